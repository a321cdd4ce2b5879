"""`Environment`: a real etcd + kube-apiserver (+ kube-controller-manager) for tests.

    with Environment(controller_manager=True, crd_paths=["config/crd/bases"]) as env:
        async with env.client() as client:   # an rt.Client, admin
        ...
    async with Environment() as env:   # the same, started in a worker thread
        ...

Start: etcd, then kube-apiserver on free loopback ports with fresh
certificates, waiting for `/readyz` and the `default` namespace; then the
admin kubeconfig; then the CRDs; then (optionally) kube-controller-manager.
A start that loses a port race is retried with new ports; any other failure
stops what was started and raises `EnvtestError` quoting the process's log.
Stop: kube-controller-manager, kube-apiserver, etcd, each as a process group
(SIGTERM, grace period, SIGKILL), then the work directory goes. The same
happens at interpreter exit (atexit) and, through a watchdog process, when
the owner is killed outright. `USE_EXISTING_CLUSTER=true` uses the cluster
in `KUBECONFIG` instead and starts nothing.
"""

from __future__ import annotations

import asyncio
import atexit
import copy
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from opgen import runtime as rt
from opgen.errors import EnvtestError
from opgen.runtime.kubeconfig import KubeConfig
from opgen.testing.binaries import (
    KUBERNETES_VERSION,
    Binaries,
    KubernetesVersion,
    find_binaries,
    require_controller_manager,
    verify_etcd,
)
from opgen.testing.controlplane import crds, kubeconfig, rbac
from opgen.testing.controlplane import webhooks as local_webhooks
from opgen.testing.controlplane.adminapi import AdminApi
from opgen.testing.controlplane.localplane import LocalControlPlane

__all__ = ["DEFAULT_START_TIMEOUT", "DEFAULT_STOP_TIMEOUT", "Environment"]

DEFAULT_START_TIMEOUT = 60.0
DEFAULT_STOP_TIMEOUT = 20.0
CRD_TIMEOUT = 60.0

# controller-runtime's envtest reads these too (Go durations such as "90s" or "2m").
START_TIMEOUT_ENV = "KUBEBUILDER_CONTROLPLANE_START_TIMEOUT"
STOP_TIMEOUT_ENV = "KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT"
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(ms|s|m|h)?$")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}

_RUNNING: set[Environment] = set()


def _timeout(
    given: float | None, environ: Mapping[str, str], variable: str, default: float
) -> float:
    """`given`, else the variable (a simple Go duration or seconds), else `default`."""
    if given is not None:
        return given
    text = environ.get(variable, "").strip()
    if not text:
        return default
    match = _DURATION.match(text)
    if match is None:
        raise EnvtestError(
            f"{variable}={text!r} is not a duration",
            hint='use e.g. "90s", "2m" or "90"',
        )
    return float(match[1]) * _UNIT_SECONDS[match[2] or "s"]


@atexit.register
def _stop_all_at_exit() -> None:
    for environment in list(_RUNNING):
        environment.stop()


class Environment:
    """A control plane for tests; see the module docstring."""

    def __init__(
        self,
        *,
        binaries: Binaries | None = None,
        controller_manager: bool = False,
        crd_paths: Sequence[crds.CrdSource] = (),
        use_existing_cluster: bool | None = None,
        start_timeout: float | None = None,
        stop_timeout: float | None = None,
        environ: Mapping[str, str] | None = None,
        webhook_install_options: local_webhooks.WebhookInstallOptions | None = None,
    ) -> None:
        self._environ = dict(os.environ if environ is None else environ)
        self.webhook_install_options = webhook_install_options
        self._webhooks: local_webhooks.LocalWebhooks | None = None
        self._binaries = binaries
        self._want_controller_manager = controller_manager
        self._crd_paths = list(crd_paths)
        self._existing = (
            kubeconfig.use_existing_cluster(self._environ)
            if use_existing_cluster is None
            else use_existing_cluster
        )
        self.start_timeout = _timeout(
            start_timeout, self._environ, START_TIMEOUT_ENV, DEFAULT_START_TIMEOUT
        )
        self.stop_timeout = _timeout(
            stop_timeout, self._environ, STOP_TIMEOUT_ENV, DEFAULT_STOP_TIMEOUT
        )
        self.timings: dict[str, float] = {}
        """Seconds each start step took ("etcd", "kube-apiserver", ...)."""
        self._local: LocalControlPlane | None = None
        self._kubeconfig_path: Path | None = None
        self._kubeconfig: dict[str, Any] | None = None
        self._server: str | None = None
        self._scratch: Path | None = None
        self._token_files = 0

    # -- what tests use -------------------------------------------------------

    @property
    def is_existing_cluster(self) -> bool:
        return self._existing

    @property
    def started(self) -> bool:
        return self._kubeconfig is not None

    @property
    def kubeconfig_path(self) -> Path:
        """The admin kubeconfig (or the existing cluster's)."""
        self._require_started()
        assert self._kubeconfig_path is not None
        return self._kubeconfig_path

    @property
    def kubeconfig(self) -> dict[str, Any]:
        """The kubeconfig's content (a copy)."""
        self._require_started()
        return copy.deepcopy(self._kubeconfig or {})

    @property
    def server(self) -> str:
        """The API server's URL, e.g. `https://127.0.0.1:43123`."""
        self._require_started()
        assert self._server is not None
        return self._server

    @property
    def work_dir(self) -> Path | None:
        """The temporary directory (certificates, etcd data, logs); None for an existing cluster."""
        return self._local.work_dir if self._local is not None else None

    @property
    def process_ids(self) -> dict[str, int]:
        """Process ids of the control plane by name (`etcd`, `kube-apiserver`,
        `kube-controller-manager`); empty for an existing cluster or before start."""
        return self._local.process_ids if self._local is not None else {}

    @property
    def controller_manager_running(self) -> bool:
        return self._existing or (
            self._local is not None and self._local.controller_manager_running
        )

    def kube_config(self) -> KubeConfig:
        """The admin kubeconfig, loaded: for `rt.Manager(...)`, `rt.Client.from_kubeconfig(...)`."""
        self._require_started()
        return KubeConfig.from_dict(self.kubeconfig, fname=self.kubeconfig_path)

    def client(self) -> rt.Client:
        """An `rt.Client` acting as the admin user, without a cache (reads go to the
        API server) or a rate limit; close it (`async with`, or `await client.aclose()`).
        """
        return rt.Client.from_kubeconfig(
            self.kube_config(), options=rt.ClientOptions(qps=0)
        )

    def install_crds(
        self, paths: Iterable[crds.CrdSource], timeout: float = CRD_TIMEOUT
    ) -> None:
        """Apply CRDs (files, directories or dicts); wait until each is Established and served.

        With webhooks installed, a CRD converting by webhook calls the local server.
        A CRD the API server rejects raises `EnvtestError` carrying the server's message.
        """
        documents: list[crds.CrdSource] = list(paths)
        local = self._webhooks
        if local is not None:
            documents = [
                local_webhooks.with_local_conversion(crd, local).body
                for crd in crds.load_crds(documents)
            ]
        crds.install_crds(self.kube_config(), documents, timeout)

    # -- webhooks -------------------------------------------------------------

    @property
    def webhooks(self) -> local_webhooks.LocalWebhooks | None:
        """Where the installed webhook configurations call (host, port, certificates),
        once webhooks are installed; `webhooks.server_options()` serves them."""
        return self._webhooks

    def install_webhooks(
        self,
        options: local_webhooks.WebhookInstallOptions,
        *,
        crd_paths: Iterable[crds.CrdSource] = (),
    ) -> local_webhooks.LocalWebhooks:
        """Install the webhook configurations of `options`, calling a local server, and
        point the conversion of the CRDs in `crd_paths` (already installed) at it too.

        Pass the options to the constructor instead to have the CRDs installed with
        the local conversion from the start.
        """
        self._require_started()
        if self._webhooks is not None:
            raise EnvtestError(
                "webhooks are installed already (uninstall_webhooks() first)"
            )
        local = local_webhooks.prepare(options, self.work_dir)
        documents = local_webhooks.load_configurations(options.paths)
        names = [crd.name for crd in crds.load_crds(crd_paths)]
        with self._admin_client() as client:
            self._webhooks = local_webhooks.install_configurations(
                client, local, documents, options
            )
            local_webhooks.patch_conversion(client, names, local)
        self.webhook_install_options = options
        return self._webhooks

    def uninstall_webhooks(self) -> None:
        """Delete the webhook configurations this environment installed."""
        local, self._webhooks = self._webhooks, None
        if local is not None and self.started:
            with self._admin_client() as client:
                local_webhooks.uninstall_configurations(client, local)

    def wait_for_webhooks(self, timeout: float = 60.0) -> None:
        """Return once the API server calls the webhook server through every installed
        configuration (a webhook server must be serving `webhooks.server_options()`)."""
        if self._webhooks is None:
            raise EnvtestError("no webhooks are installed")
        with self._admin_client() as client:
            local_webhooks.wait_until_served(client, self._webhooks, timeout=timeout)

    def uninstall_crds(
        self, paths: Iterable[crds.CrdSource], timeout: float = CRD_TIMEOUT
    ) -> None:
        """Delete CRDs (and their objects) and wait until they are gone."""
        crds.uninstall_crds(self.kube_config(), paths, timeout)

    async def ainstall_crds(
        self, paths: Iterable[crds.CrdSource], timeout: float = CRD_TIMEOUT
    ) -> None:
        await asyncio.to_thread(self.install_crds, list(paths), timeout)

    def deploy_rbac(self, project_root: str | os.PathLike[str]) -> rbac.ManagerAccount:
        """Apply a generated project's RBAC as `config/default` deploys it, and return
        its manager's ServiceAccount with a kubeconfig holding a token of it.

        The ServiceAccount, `config/rbac/role.yaml` and the other roles and bindings
        get `config/default`'s namespace and name prefix, as `make deploy` gives
        them; a manager built from `account.kubeconfig_path` has exactly the
        permissions the generated RBAC grants. Idempotent (server-side apply);
        each call issues a new token (valid 24 h).
        """
        self._require_started()
        self._token_files += 1
        out = self._scratch_dir() / f"manager-{self._token_files}.kubeconfig"
        with self._admin_client() as client:
            return rbac.deploy_rbac(client, Path(project_root), self.kubeconfig, out)

    # -- lifecycle ------------------------------------------------------------

    def __enter__(self) -> Environment:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    async def __aenter__(self) -> Environment:
        return await self.astart()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.astop()

    async def astart(self) -> Environment:
        return await asyncio.to_thread(self.start)

    async def astop(self) -> None:
        await asyncio.to_thread(self.stop)

    def start(self) -> Environment:
        """Start (or connect to) the control plane and install the CRDs. Idempotent."""
        if self.started:
            return self
        _RUNNING.add(self)
        try:
            if self._existing:
                self._connect_existing()
            else:
                self._start_control_plane()
            options = self.webhook_install_options
            if options is not None:
                self._webhooks = local_webhooks.prepare(options, self.work_dir)
            if self._crd_paths:
                began = time.monotonic()
                self.install_crds(self._crd_paths)
                self.timings["crds"] = time.monotonic() - began
            if options is not None and self._webhooks is not None:
                with self._admin_client() as client:
                    self._webhooks = local_webhooks.install_configurations(
                        client,
                        self._webhooks,
                        local_webhooks.load_configurations(options.paths),
                        options,
                    )
            # After the CRDs: the garbage collector discovers resource types at
            # start and then only every 30 s.
            if self._want_controller_manager:
                self.start_controller_manager()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop every process (whole process groups) and remove the work directory. Idempotent."""
        if self._existing and self._webhooks is not None:
            self.uninstall_webhooks()  # they point at this machine
        self._webhooks = None
        if self._local is not None:
            self._local.stop()
            self._local = None
        self._kubeconfig = None
        self._kubeconfig_path = None
        self._server = None
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None
        _RUNNING.discard(self)

    def stop_apiserver(self) -> None:
        """Stop kube-apiserver and leave it stopped (etcd keeps running), for as long
        as a test needs the API server unreachable; `start_apiserver()` brings it
        back. Idempotent. Takes seconds, open watches or not. Not available with an
        existing cluster."""
        self._require_local("stop_apiserver()").stop_apiserver()
        self.timings.update(self._local_timings())

    def start_apiserver(self) -> None:
        """Start a stopped kube-apiserver again in place (same port, certificates and
        etcd); returns once it answers `/readyz`. Idempotent. Objects survive; a watch
        resumed from before the stop gets 410 Gone (the new server's watch cache
        starts empty)."""
        self._require_local("start_apiserver()").start_apiserver()
        self.timings.update(self._local_timings())

    def restart_apiserver(self) -> None:
        """`stop_apiserver()` then `start_apiserver()`: objects survive, watches are
        cut, and resuming one from before the restart gets 410 Gone.
        `timings["kube-apiserver restart"]` says how long the whole took."""
        self._require_local("restart_apiserver()").restart_apiserver()
        self.timings.update(self._local_timings())

    async def astop_apiserver(self) -> None:
        """`stop_apiserver()` in a worker thread, for async tests."""
        await asyncio.to_thread(self.stop_apiserver)

    async def astart_apiserver(self) -> None:
        """`start_apiserver()` in a worker thread, for async tests."""
        await asyncio.to_thread(self.start_apiserver)

    async def arestart_apiserver(self) -> None:
        """`restart_apiserver()` in a worker thread, for async tests."""
        await asyncio.to_thread(self.restart_apiserver)

    @property
    def apiserver_running(self) -> bool:
        """Whether kube-apiserver runs (an existing cluster's always counts as running)."""
        if self._local is None:
            return self.started
        return self._local.apiserver_running

    def start_controller_manager(self) -> None:
        """Start kube-controller-manager (garbage collector, namespace controller). Idempotent.

        With an existing cluster this does nothing: the cluster runs its own.
        """
        self._require_started()
        if self._local is None:
            return
        self._local.start_controller_manager(
            require_controller_manager(self._local.binaries)
        )
        self.timings.update(self._local.timings)

    # -- internals --------------------------------------------------------------

    def _admin_client(self) -> AdminApi:
        return AdminApi(self.kube_config(), field_manager=crds.FIELD_MANAGER)

    def _require_local(self, what: str) -> LocalControlPlane:
        self._require_started()
        if self._local is None:
            raise EnvtestError(
                f"{what} needs a local control plane; "
                "this environment uses an existing cluster",
                hint="run the test without USE_EXISTING_CLUSTER, or skip it there",
            )
        return self._local

    def _local_timings(self) -> dict[str, float]:
        return self._local.timings if self._local is not None else {}

    def _scratch_dir(self) -> Path:
        """Where this environment writes its own files: the work directory of a local
        control plane; for an existing cluster a temporary one. `stop()` removes both.
        """
        if self._local is not None:
            return self._local.work_dir
        if self._scratch is None:
            self._scratch = Path(tempfile.mkdtemp(prefix="opgen-existing-cluster-"))
        return self._scratch

    def _require_started(self) -> None:
        if not self.started:
            raise EnvtestError(
                "the envtest environment is not started (call start() first)"
            )

    def _start_control_plane(self) -> None:
        binaries = self._binaries or find_binaries(
            KubernetesVersion.parse(KUBERNETES_VERSION), self._environ
        )
        verify_etcd(binaries.etcd)
        if self._want_controller_manager:
            require_controller_manager(binaries)  # fail before starting anything
        self._local = LocalControlPlane(
            binaries, self._environ, self.start_timeout, self.stop_timeout
        )
        self._local.start()
        self.timings.update(self._local.timings)
        self._server = self._local.server
        self._kubeconfig_path = self._local.kubeconfig_path
        self._kubeconfig = self._local.kubeconfig

    def _connect_existing(self) -> None:
        path, config = kubeconfig.existing_cluster_kubeconfig(self._environ)
        self._server = kubeconfig.server_of(config)
        self._kubeconfig_path = path
        self._kubeconfig = config
