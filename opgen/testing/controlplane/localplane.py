"""`LocalControlPlane`: the processes of a throwaway control plane and their work directory.

It owns the work directory (`$TMPDIR/opgen-envtest-*`: certificates, etcd
data, logs, kubeconfig), the watchdog that cleans it up if the owner dies,
and the processes: etcd, kube-apiserver and, on request,
kube-controller-manager. A process that dies because its port was taken is
restarted on new ports; any other failure raises `EnvtestError` quoting its
log. `opgen.testing.Environment` is the public face.
"""

from __future__ import annotations

import logging
import shutil
import ssl
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from opgen.errors import EnvtestError
from opgen.testing.binaries import Binaries
from opgen.testing.controlplane import components, kubeconfig
from opgen.testing.controlplane.pki import Pki, generate_pki
from opgen.testing.controlplane.processes import ManagedProcess, Watchdog, free_port

__all__ = ["PORT_ATTEMPTS", "WORK_DIR_PREFIX", "LocalControlPlane"]

PORT_ATTEMPTS = 5
WORK_DIR_PREFIX = "opgen-envtest-"

log = logging.getLogger("opgen.testing")

Command = Callable[[], tuple[list[str], str]]
"""Builds a fresh command line (new ports) and the URL that answers 200 once it is ready."""


class LocalControlPlane:
    """etcd + kube-apiserver (+ kube-controller-manager) on loopback."""

    def __init__(
        self,
        binaries: Binaries,
        environ: Mapping[str, str],
        start_timeout: float,
        stop_timeout: float,
    ) -> None:
        self.binaries = binaries
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.timings: dict[str, float] = {}
        self._environ = dict(environ)
        self._processes: list[ManagedProcess] = []
        self._apiserver: ManagedProcess | None = None
        self._apiserver_ready: tuple[str, ssl.SSLContext] | None = None
        self._controller_manager: ManagedProcess | None = None
        self.work_dir = Path(tempfile.mkdtemp(prefix=WORK_DIR_PREFIX))
        self._watchdog: Watchdog | None = Watchdog(self.work_dir)
        (self.work_dir / "logs").mkdir()
        self.kubeconfig_path = self.work_dir / "kubeconfig"
        self.kubeconfig: dict[str, Any] = {}
        self.server = ""

    @property
    def controller_manager_running(self) -> bool:
        return self._controller_manager is not None

    @property
    def process_ids(self) -> dict[str, int]:
        """The running processes' ids by name ("etcd", "kube-apiserver", ...)."""
        return {
            process.name: process.pid for process in self._processes if process.running
        }

    @property
    def apiserver_running(self) -> bool:
        return self._apiserver is not None and self._apiserver.running

    def start(self) -> None:
        """Start etcd and kube-apiserver and write the admin kubeconfig."""
        deadline = time.monotonic() + self.start_timeout
        began = time.monotonic()
        pki = generate_pki(self.work_dir / "pki")
        self.timings["pki"] = time.monotonic() - began

        began = time.monotonic()
        etcd = self._start_etcd(deadline)
        self.timings["etcd"] = time.monotonic() - began

        began = time.monotonic()
        apiserver = self._start_apiserver(pki, etcd, deadline)
        self.timings["kube-apiserver"] = time.monotonic() - began

        self.kubeconfig = kubeconfig.admin_kubeconfig(
            apiserver.url, pki.ca_pem, pki.client_cert_pem, pki.client_key_pem
        )
        kubeconfig.write_kubeconfig(self.kubeconfig_path, self.kubeconfig)
        self.server = apiserver.url

    def start_controller_manager(self, binary: Path) -> None:
        """Start kube-controller-manager with the garbage collector and namespace controllers."""
        if self._controller_manager is not None:
            return
        began = time.monotonic()

        def command() -> tuple[list[str], str]:
            port = free_port()
            cert_dir = Path(tempfile.mkdtemp(prefix="kcm-certs-", dir=self.work_dir))
            args = components.controller_manager_args(
                binary, self.kubeconfig_path, cert_dir, port
            )
            return args, f"https://127.0.0.1:{port}/healthz"

        self._controller_manager = self._launch(
            "kube-controller-manager",
            command,
            components.insecure_ssl_context(),
            time.monotonic() + self.start_timeout,
        )
        self.timings["kube-controller-manager"] = time.monotonic() - began

    def stop_apiserver(self) -> None:
        """Stop kube-apiserver (etcd keeps running); idempotent.

        The server is started with a short `--shutdown-watch-termination-grace-period`,
        so open watches do not hold it up: it exits within seconds of SIGTERM."""
        process = self._require_apiserver("stop")
        if not process.running:
            return
        began = time.monotonic()
        self._stop_process(process)
        self.timings["kube-apiserver stop"] = time.monotonic() - began

    def start_apiserver(self) -> None:
        """Start a stopped kube-apiserver again, same arguments and port; wait for
        /readyz. Idempotent. etcd kept every object; the new server's watch cache
        starts empty, so a watch resuming from an older resourceVersion is answered
        410 Gone, as after a real API server restart."""
        process = self._require_apiserver("start")
        if process.running:
            return
        assert self._apiserver_ready is not None
        url, context = self._apiserver_ready
        began = time.monotonic()
        process.start()
        if self._watchdog is not None:
            self._watchdog.watch(process)
        try:
            components.wait_until_ok(url, process, began + self.start_timeout, context)
        except components.NotReady as not_ready:
            raise process.failure(
                f"did not come back after being stopped: {not_ready.what}"
            ) from None
        self.timings["kube-apiserver start"] = time.monotonic() - began

    def restart_apiserver(self) -> None:
        """`stop_apiserver()` then `start_apiserver()`; `timings["kube-apiserver
        restart"]` is the whole of it."""
        began = time.monotonic()
        self.stop_apiserver()
        self.start_apiserver()
        self.timings["kube-apiserver restart"] = time.monotonic() - began

    def _require_apiserver(self, verb: str) -> ManagedProcess:
        if self._apiserver is None or self._apiserver_ready is None:
            raise EnvtestError(f"kube-apiserver was never started, so it cannot {verb}")
        return self._apiserver

    def stop(self) -> None:
        """Stop the processes, last started first, then remove the work directory."""
        for process in reversed(self._processes):
            self._stop_process(process)
        self._processes.clear()
        self._apiserver = None
        self._apiserver_ready = None
        self._controller_manager = None
        shutil.rmtree(self.work_dir, ignore_errors=True)
        if self._watchdog is not None:
            self._watchdog.close()
            self._watchdog = None

    def _stop_process(self, process: ManagedProcess) -> None:
        if not process.stop(self.stop_timeout):
            log.warning(
                "%s did not exit within %.0f s of SIGTERM: it was killed",
                process.name,
                self.stop_timeout,
            )
        if self._watchdog is not None:
            self._watchdog.forget(process)

    def _launch(
        self,
        name: str,
        command: Command,
        context: ssl.SSLContext | None,
        deadline: float,
    ) -> ManagedProcess:
        """Start `name` and wait for its probe; retry with new ports if one was taken."""
        for attempt in range(1, PORT_ATTEMPTS + 1):
            args, probe_url = command()
            suffix = "" if attempt == 1 else f".retry-{attempt}"
            log = self.work_dir / "logs" / f"{name}{suffix}.log"
            process = ManagedProcess(name, args, log, self._environ)
            process.start()
            self._processes.append(process)
            if self._watchdog is not None:
                self._watchdog.watch(process)
            try:
                components.wait_until_ok(probe_url, process, deadline, context)
            except components.NotReady as not_ready:
                if process.port_conflict() and attempt < PORT_ATTEMPTS:
                    process.stop(self.stop_timeout)
                    self._processes.remove(process)
                    continue
                raise process.failure(
                    f"did not start: it {not_ready.what}"
                    if not_ready.process_exited
                    else f"did not start within {self.start_timeout:.0f} s: {not_ready.what}"
                ) from None
            return process
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _start_etcd(self, deadline: float) -> components.EtcdPorts:
        chosen: list[components.EtcdPorts] = []

        def command() -> tuple[list[str], str]:
            ports = components.EtcdPorts(client=free_port(), peer=free_port())
            chosen.append(ports)
            data_dir = Path(tempfile.mkdtemp(prefix="etcd-data-", dir=self.work_dir))
            args = components.etcd_args(self.binaries.etcd, data_dir, ports)
            return args, f"{ports.client_url}/health"

        self._launch("etcd", command, None, deadline)
        return chosen[-1]

    def _start_apiserver(
        self, pki: Pki, etcd: components.EtcdPorts, deadline: float
    ) -> components.ApiserverPorts:
        chosen: list[components.ApiserverPorts] = []

        def command() -> tuple[list[str], str]:
            ports = components.ApiserverPorts(secure=free_port())
            chosen.append(ports)
            args = components.apiserver_args(
                self.binaries.kube_apiserver, pki, self.work_dir / "pki", etcd, ports
            )
            return args, f"{ports.url}/readyz"

        context = components.admin_ssl_context(pki)
        apiserver = self._launch("kube-apiserver", command, context, deadline)
        ports = chosen[-1]
        self._apiserver = apiserver
        self._apiserver_ready = (f"{ports.url}/readyz", context)
        try:
            components.wait_until_ok(
                f"{ports.url}/api/v1/namespaces/default", apiserver, deadline, context
            )
        except components.NotReady as not_ready:
            raise apiserver.failure(
                f"is ready but the default namespace never appeared: {not_ready.what}"
            ) from None
        return ports
