"""`Environment`: a real etcd + kube-apiserver (+ kube-controller-manager) for tests.

    with Environment(controller_manager=True, crd_paths=["config/crd/bases"]) as env:
        client = env.client()          # lightkube, admin
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
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from lightkube import AsyncClient, Client, KubeConfig

from opgen.errors import EnvtestError
from opgen.testing import controlplane, crds, kubeconfig
from opgen.testing.binaries import Binaries, find_binaries, verify_etcd
from opgen.testing.pki import Pki, generate_pki
from opgen.testing.processes import ManagedProcess, Watchdog, free_port
from opgen.testing.versions import KUBERNETES_VERSION, KubernetesVersion

__all__ = ["DEFAULT_START_TIMEOUT", "DEFAULT_STOP_TIMEOUT", "Environment"]

DEFAULT_START_TIMEOUT = 60.0
DEFAULT_STOP_TIMEOUT = 20.0
CRD_TIMEOUT = 60.0
PORT_ATTEMPTS = 5
WORK_DIR_PREFIX = "opgen-envtest-"

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
    ) -> None:
        self._environ = dict(os.environ if environ is None else environ)
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
        self._work_dir: Path | None = None
        self._watchdog: Watchdog | None = None
        self._processes: list[ManagedProcess] = []
        self._controller_manager: ManagedProcess | None = None
        self._kubeconfig_path: Path | None = None
        self._kubeconfig: dict[str, Any] | None = None
        self._server: str | None = None

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
        return self._work_dir

    @property
    def controller_manager_running(self) -> bool:
        return self._existing or self._controller_manager is not None

    def lightkube_config(self) -> KubeConfig:
        self._require_started()
        return KubeConfig.from_dict(self.kubeconfig, fname=self.kubeconfig_path)

    def client(self) -> Client:
        """A synchronous lightkube client acting as the admin user."""
        return Client(config=self.lightkube_config(), field_manager=crds.FIELD_MANAGER)

    def async_client(self) -> AsyncClient:
        """An asynchronous lightkube client acting as the admin user (close it when done)."""
        return AsyncClient(
            config=self.lightkube_config(), field_manager=crds.FIELD_MANAGER
        )

    def install_crds(
        self, paths: Iterable[crds.CrdSource], timeout: float = CRD_TIMEOUT
    ) -> None:
        """Apply CRDs (files, directories or dicts); wait until each is Established and served.

        A CRD the API server rejects raises `EnvtestError` carrying the server's message.
        """
        client = self.client()
        try:
            crds.install_crds(client, paths, timeout)
        finally:
            client.close()

    def uninstall_crds(
        self, paths: Iterable[crds.CrdSource], timeout: float = CRD_TIMEOUT
    ) -> None:
        """Delete CRDs (and their objects) and wait until they are gone."""
        client = self.client()
        try:
            crds.uninstall_crds(client, paths, timeout)
        finally:
            client.close()

    async def ainstall_crds(
        self, paths: Iterable[crds.CrdSource], timeout: float = CRD_TIMEOUT
    ) -> None:
        await asyncio.to_thread(self.install_crds, list(paths), timeout)

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
            if self._crd_paths:
                began = time.monotonic()
                self.install_crds(self._crd_paths)
                self.timings["crds"] = time.monotonic() - began
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
        for process in reversed(self._processes):
            process.stop(self.stop_timeout)
            if self._watchdog is not None:
                self._watchdog.forget(process)
        self._processes.clear()
        self._controller_manager = None
        if self._work_dir is not None:
            shutil.rmtree(self._work_dir, ignore_errors=True)
            self._work_dir = None
        if self._watchdog is not None:
            self._watchdog.close()
            self._watchdog = None
        self._kubeconfig = None
        self._kubeconfig_path = None
        self._server = None
        _RUNNING.discard(self)

    def start_controller_manager(self) -> None:
        """Start kube-controller-manager (garbage collector, namespace controller). Idempotent.

        With an existing cluster this does nothing: the cluster runs its own.
        """
        self._require_started()
        if self.controller_manager_running:
            return
        controller_manager = self._controller_manager_binary()
        work = self._require_work_dir()
        began = time.monotonic()

        def command() -> tuple[list[str], str]:
            port = free_port()
            cert_dir = Path(tempfile.mkdtemp(prefix="kcm-certs-", dir=work))
            args = controlplane.controller_manager_args(
                controller_manager, self.kubeconfig_path, cert_dir, port
            )
            return args, f"https://127.0.0.1:{port}/healthz"

        self._controller_manager = self._launch(
            "kube-controller-manager",
            command,
            controlplane.insecure_ssl_context(),
            time.monotonic() + self.start_timeout,
        )
        self.timings["kube-controller-manager"] = time.monotonic() - began

    # -- internals --------------------------------------------------------------

    def _require_started(self) -> None:
        if not self.started:
            raise EnvtestError(
                "the envtest environment is not started (call start() first)"
            )

    def _require_work_dir(self) -> Path:
        if self._work_dir is None:
            raise EnvtestError(
                "the envtest environment is not started (call start() first)"
            )
        return self._work_dir

    def _resolved_binaries(self) -> Binaries:
        if self._binaries is None:
            self._binaries = find_binaries(
                KubernetesVersion.parse(KUBERNETES_VERSION), self._environ
            )
        return self._binaries

    def _controller_manager_binary(self) -> Path:
        binaries = self._resolved_binaries()
        if binaries.kube_controller_manager is None:
            raise EnvtestError(
                "kube-controller-manager is not among the envtest binaries "
                f"(found via {binaries.source}: {binaries.directory})",
                hint="set TEST_ASSET_KUBE_CONTROLLER_MANAGER, or use the set "
                "`opgen envtest use` builds, which includes it",
            )
        return binaries.kube_controller_manager

    def _connect_existing(self) -> None:
        path, config = kubeconfig.existing_cluster_kubeconfig(self._environ)
        self._server = kubeconfig.server_of(config)
        self._kubeconfig_path = path
        self._kubeconfig = config

    def _launch(
        self,
        name: str,
        command: Callable[[], tuple[list[str], str]],
        context: Any,
        deadline: float,
    ) -> ManagedProcess:
        """Start `name` and wait for its probe; retry with new ports if one was taken."""
        work = self._require_work_dir()
        for attempt in range(1, PORT_ATTEMPTS + 1):
            args, probe_url = command()
            suffix = "" if attempt == 1 else f".retry-{attempt}"
            process = ManagedProcess(
                name, args, work / "logs" / f"{name}{suffix}.log", self._environ
            )
            process.start()
            self._processes.append(process)
            if self._watchdog is not None:
                self._watchdog.watch(process)
            try:
                controlplane.wait_until_ok(probe_url, process, deadline, context)
            except controlplane.NotReady as not_ready:
                if process.port_conflict() and attempt < PORT_ATTEMPTS:
                    process.stop(self.stop_timeout)
                    self._processes.remove(process)
                    continue
                raise process.failure(
                    f"did not start within {self.start_timeout:.0f} s: {not_ready.what}"
                    if not not_ready.process_exited
                    else f"did not start: it {not_ready.what}"
                ) from None
            return process
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _start_control_plane(self) -> None:
        binaries = self._resolved_binaries()
        verify_etcd(binaries.etcd)
        if self._want_controller_manager:
            self._controller_manager_binary()  # fail before starting anything
        work = Path(tempfile.mkdtemp(prefix=WORK_DIR_PREFIX))
        self._work_dir = work
        self._watchdog = Watchdog(work)
        (work / "logs").mkdir()
        deadline = time.monotonic() + self.start_timeout

        began = time.monotonic()
        pki = generate_pki(work / "pki")
        self.timings["pki"] = time.monotonic() - began

        etcd_ports: list[controlplane.EtcdPorts] = []

        def etcd_command() -> tuple[list[str], str]:
            ports = controlplane.EtcdPorts(client=free_port(), peer=free_port())
            etcd_ports.append(ports)
            data_dir = Path(tempfile.mkdtemp(prefix="etcd-data-", dir=work))
            return (
                controlplane.etcd_args(binaries.etcd, data_dir, ports),
                f"{ports.client_url}/health",
            )

        began = time.monotonic()
        self._launch("etcd", etcd_command, None, deadline)
        self.timings["etcd"] = time.monotonic() - began

        began = time.monotonic()
        api_ports = self._start_apiserver(binaries, pki, etcd_ports[-1], deadline)
        self.timings["kube-apiserver"] = time.monotonic() - began

        config = kubeconfig.admin_kubeconfig(
            api_ports.url, pki.ca_pem, pki.client_cert_pem, pki.client_key_pem
        )
        path = work / "kubeconfig"
        kubeconfig.write_kubeconfig(path, config)
        self._server = api_ports.url
        self._kubeconfig_path = path
        self._kubeconfig = config

    def _start_apiserver(
        self,
        binaries: Binaries,
        pki: Pki,
        etcd: controlplane.EtcdPorts,
        deadline: float,
    ) -> controlplane.ApiserverPorts:
        work = self._require_work_dir()
        chosen: list[controlplane.ApiserverPorts] = []

        def command() -> tuple[list[str], str]:
            ports = controlplane.ApiserverPorts(secure=free_port())
            chosen.append(ports)
            args = controlplane.apiserver_args(
                binaries.kube_apiserver, pki, work / "pki", etcd, ports
            )
            return args, f"{ports.url}/readyz"

        context = controlplane.admin_ssl_context(pki)
        apiserver = self._launch("kube-apiserver", command, context, deadline)
        ports = chosen[-1]
        try:
            controlplane.wait_until_ok(
                f"{ports.url}/api/v1/namespaces/default", apiserver, deadline, context
            )
        except controlplane.NotReady as not_ready:
            raise apiserver.failure(
                f"is ready but the default namespace never appeared: {not_ready.what}"
            ) from None
        return ports
