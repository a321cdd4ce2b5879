"""Interim envtest: etcd + kube-apiserver from the cached binaries, token auth.

Stands in for `opgen.testing`'s plugin until it is on main (then this module
and the fixtures in conftest.py that use it are deleted). Same fixture names
and attributes as the plugin: `envtest.kubeconfig_path`, `.kubeconfig`,
`.server`, `.install_crds(paths)`.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2
import yaml
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

ASSETS = Path(
    os.environ.get("KUBEBUILDER_ASSETS", Path.home() / ".cache/opgen/envtest/1.36.3")
)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ControlPlane:
    def __init__(self) -> None:
        self.dir = Path(
            tempfile.mkdtemp(
                prefix="opgen-rt-envtest-",
                dir="/dev/shm" if Path("/dev/shm").exists() else None,
            )
        )
        self.token = secrets.token_hex(16)
        self.processes: list[subprocess.Popen[bytes]] = []
        self.apiserver: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.etcd_url = ""

    @property
    def server(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    @property
    def kubeconfig(self) -> dict[str, Any]:
        return {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": "envtest",
                    "cluster": {
                        "server": self.server,
                        "insecure-skip-tls-verify": True,
                    },
                }
            ],
            "users": [{"name": "admin", "user": {"token": self.token}}],
            "contexts": [
                {
                    "name": "envtest",
                    "context": {
                        "cluster": "envtest",
                        "user": "admin",
                        "namespace": "default",
                    },
                }
            ],
            "current-context": "envtest",
        }

    @property
    def kubeconfig_path(self) -> Path:
        path = self.dir / "kubeconfig"
        if not path.exists():
            path.write_text(yaml.safe_dump(self.kubeconfig))
        return path

    def _spawn(self, args: list[str], log: str) -> subprocess.Popen[bytes]:
        out = open(self.dir / log, "ab")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen(
            args, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        self.processes.append(proc)
        return proc

    def start(self) -> ControlPlane:
        client_port, peer_port = _free_port(), _free_port()
        self.etcd_url = f"http://127.0.0.1:{client_port}"
        self._spawn(
            [
                str(ASSETS / "etcd"),
                f"--data-dir={self.dir / 'etcd'}",
                f"--listen-client-urls={self.etcd_url}",
                f"--advertise-client-urls={self.etcd_url}",
                f"--listen-peer-urls=http://127.0.0.1:{peer_port}",
                f"--initial-advertise-peer-urls=http://127.0.0.1:{peer_port}",
                f"--initial-cluster=default=http://127.0.0.1:{peer_port}",
                "--unsafe-no-fsync=true",
            ],
            "etcd.log",
        )
        self._wait(f"{self.etcd_url}/health", auth=False)
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        (self.dir / "sa.key").write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
        (self.dir / "sa.pub").write_bytes(
            key.public_key().public_bytes(
                serialization.Encoding.PEM,
                serialization.PublicFormat.SubjectPublicKeyInfo,
            )
        )
        (self.dir / "tokens.csv").write_text(
            f'{self.token},admin,admin-uid,"system:masters"\n'
        )
        self.port = _free_port()
        self.start_apiserver()
        return self

    def start_apiserver(self) -> None:
        self.apiserver = self._spawn(
            [
                str(ASSETS / "kube-apiserver"),
                f"--etcd-servers={self.etcd_url}",
                "--bind-address=127.0.0.1",
                "--advertise-address=127.0.0.1",
                f"--secure-port={self.port}",
                f"--cert-dir={self.dir / 'certs'}",
                f"--token-auth-file={self.dir / 'tokens.csv'}",
                f"--service-account-issuer=https://127.0.0.1:{self.port}/",
                f"--service-account-key-file={self.dir / 'sa.pub'}",
                f"--service-account-signing-key-file={self.dir / 'sa.key'}",
                "--authorization-mode=RBAC",
                "--service-cluster-ip-range=10.0.0.0/24",
                "--allow-privileged=true",
                "--disable-admission-plugins=ServiceAccount",
            ],
            "kube-apiserver.log",
        )
        self._wait(f"{self.server}/readyz", auth=True, timeout=90)
        self._wait(f"{self.server}/api/v1/namespaces/default", auth=True, timeout=30)

    def stop_apiserver(self) -> None:
        if self.apiserver is not None:
            self._terminate(self.apiserver)
            self.processes.remove(self.apiserver)
            self.apiserver = None

    def _wait(self, url: str, *, auth: bool, timeout: float = 30) -> None:
        headers = {"Authorization": f"Bearer {self.token}"} if auth else {}
        deadline = time.monotonic() + timeout
        last: object = None
        while time.monotonic() < deadline:
            try:
                resp = httpx2.get(url, headers=headers, verify=False, timeout=2)
                if resp.status_code == 200:
                    return
                last = resp.status_code
            except httpx2.HTTPError as exc:
                last = exc
            time.sleep(0.2)
        raise RuntimeError(
            f"{url} not ready after {timeout}s: {last}; logs in {self.dir}"
        )

    def install_crds(self, paths: list[Path]) -> None:
        headers = {"Authorization": f"Bearer {self.token}"}
        base = f"{self.server}/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
        names = []
        with httpx2.Client(verify=False, headers=headers, timeout=10) as http:
            for path in paths:
                for doc in yaml.safe_load_all(path.read_text()):
                    if not doc:
                        continue
                    resp = http.post(base, json=doc)
                    if resp.status_code not in (201, 409):
                        raise RuntimeError(resp.text)
                    names.append(doc["metadata"]["name"])
            for name in names:
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline:
                    conditions = (
                        http.get(f"{base}/{name}").json().get("status") or {}
                    ).get("conditions") or []
                    if any(
                        c["type"] == "Established" and c["status"] == "True"
                        for c in conditions
                    ):
                        break
                    time.sleep(0.1)

    @staticmethod
    def _terminate(proc: subprocess.Popen[bytes]) -> None:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()

    def stop(self) -> None:
        for proc in reversed(self.processes):
            self._terminate(proc)
        self.processes.clear()
        shutil.rmtree(self.dir, ignore_errors=True)
