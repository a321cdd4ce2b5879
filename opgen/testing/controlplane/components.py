"""Command lines and readiness probes for etcd, kube-apiserver and kube-controller-manager.

The flags follow controller-runtime's envtest (loopback only, certificates
from `opgen.testing.controlplane.pki`, RBAC authorization, no ServiceAccount admission
since nothing creates default service accounts) plus a kube-controller-manager
running only the garbage collector and namespace controllers, which envtest
lacks: without it owned objects are never collected and deleted namespaces
stay Terminating. kube-apiserver also gets a short
`--shutdown-watch-termination-grace-period`, so that it stops within seconds
even while clients hold watches open.
"""

from __future__ import annotations

import functools
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from opgen.testing.controlplane.pki import Pki
from opgen.testing.controlplane.processes import ManagedProcess

__all__ = [
    "CONTROLLER_MANAGER_CONTROLLERS",
    "ApiserverPorts",
    "EtcdPorts",
    "NotReady",
    "admin_ssl_context",
    "apiserver_args",
    "controller_manager_args",
    "etcd_args",
    "insecure_ssl_context",
    "wait_until_ok",
]

CONTROLLER_MANAGER_CONTROLLERS = ("garbagecollector", "namespace")
WATCH_TERMINATION_GRACE = "1s"
"""How long a stopping kube-apiserver lets open watches drain before it closes them."""
POLL_SECONDS = 0.1
PROBE_TIMEOUT = 2.0


@dataclass(frozen=True)
class EtcdPorts:
    client: int
    peer: int

    @property
    def client_url(self) -> str:
        return f"http://127.0.0.1:{self.client}"

    @property
    def peer_url(self) -> str:
        return f"http://127.0.0.1:{self.peer}"


@dataclass(frozen=True)
class ApiserverPorts:
    secure: int

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.secure}"


@functools.lru_cache(maxsize=8)
def _etcd_supports_no_fsync(etcd: Path) -> bool:
    """envtest passes --unsafe-no-fsync only when `etcd --help` lists it (3.5+)."""
    try:
        done = subprocess.run(
            [str(etcd), "--help"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "unsafe-no-fsync" in done.stdout + done.stderr


def etcd_args(etcd: Path, data_dir: Path, ports: EtcdPorts) -> list[str]:
    args = [
        str(etcd),
        "--name=default",
        f"--data-dir={data_dir}",
        f"--listen-client-urls={ports.client_url}",
        f"--advertise-client-urls={ports.client_url}",
        f"--listen-peer-urls={ports.peer_url}",
        f"--initial-advertise-peer-urls={ports.peer_url}",
        f"--initial-cluster=default={ports.peer_url}",
    ]
    if _etcd_supports_no_fsync(etcd):
        args.append("--unsafe-no-fsync=true")
    return args


def apiserver_args(
    apiserver: Path, pki: Pki, cert_dir: Path, etcd: EtcdPorts, ports: ApiserverPorts
) -> list[str]:
    return [
        str(apiserver),
        f"--etcd-servers={etcd.client_url}",
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        f"--secure-port={ports.secure}",
        f"--cert-dir={cert_dir}",
        f"--tls-cert-file={pki.serving_cert}",
        f"--tls-private-key-file={pki.serving_key}",
        f"--client-ca-file={pki.ca_cert}",
        f"--service-account-issuer={ports.url}/",
        f"--service-account-key-file={pki.service_account_public_key}",
        f"--service-account-signing-key-file={pki.service_account_private_key}",
        "--authorization-mode=RBAC",
        "--service-cluster-ip-range=10.0.0.0/24",
        "--allow-privileged=true",
        "--disable-admission-plugins=ServiceAccount",
        # Without it, SIGTERM waits for every open watch to end, which a client's
        # watch never does: the server would only go when killed.
        f"--shutdown-watch-termination-grace-period={WATCH_TERMINATION_GRACE}",
    ]


def controller_manager_args(
    controller_manager: Path, kubeconfig: Path, cert_dir: Path, secure_port: int
) -> list[str]:
    return [
        str(controller_manager),
        f"--kubeconfig={kubeconfig}",
        f"--authentication-kubeconfig={kubeconfig}",
        f"--authorization-kubeconfig={kubeconfig}",
        f"--controllers={','.join(CONTROLLER_MANAGER_CONTROLLERS)}",
        "--leader-elect=false",
        "--bind-address=127.0.0.1",
        f"--secure-port={secure_port}",
        f"--cert-dir={cert_dir}",
        "--use-service-account-credentials=false",
    ]


def admin_ssl_context(pki: Pki) -> ssl.SSLContext:
    """TLS that trusts the envtest CA and presents the admin client certificate."""
    context = ssl.create_default_context(cafile=str(pki.ca_cert))
    context.load_cert_chain(str(pki.client_cert), str(pki.client_key))
    return context


def insecure_ssl_context() -> ssl.SSLContext:
    """For kube-controller-manager's /healthz: it serves a self-signed certificate."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def _get(url: str, context: ssl.SSLContext | None) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(
            url, timeout=PROBE_TIMEOUT, context=context
        ) as response:
            return int(response.status), response.read().decode(errors="replace")
    except urllib.error.HTTPError as error:
        return int(error.code), error.read().decode(errors="replace")


class NotReady(Exception):
    """A probe did not succeed before its deadline, or the process died."""

    def __init__(self, what: str, process_exited: bool) -> None:
        super().__init__(what)
        self.what = what
        self.process_exited = process_exited


def wait_until_ok(
    url: str,
    process: ManagedProcess,
    deadline: float,
    context: ssl.SSLContext | None = None,
) -> str:
    """Poll `url` until it answers 200; return the body. Raises `NotReady`."""
    last = "no answer yet"
    while True:
        if process.exit_code() is not None:
            raise NotReady(
                f"exited with code {process.exit_code()}", process_exited=True
            )
        try:
            status, body = _get(url, context)
            if status == 200:
                return body
            last = f"HTTP {status}: {body.strip()[:300]}"
        except (OSError, ssl.SSLError) as error:
            last = str(error)
        if time.monotonic() >= deadline:
            raise NotReady(
                f"{url} did not become ready in time ({last})", process_exited=False
            )
        time.sleep(POLL_SECONDS)
