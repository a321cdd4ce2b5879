"""End-to-end tests: the manager in a process of its own, as its ServiceAccount.

What every generated project's `tests/e2e` needs, so that its test files hold
only its own scenarios:

- `deployed_config(envtest, root, workdir)` applies `config/default` (rendered
  by `kubectl kustomize`) to the envtest API server, without what only routes
  traffic to a pod (`ROUTING_KINDS` and the webhook Service: no kubelet runs
  one), binds the metrics-reader role to the manager's ServiceAccount (as
  Kubebuilder's e2e test does), and gives a kubeconfig holding that account's
  token; it deletes what it applied afterwards;
- `manager_process(package, kubeconfig, cwd=root)` runs the manager as the pod
  would (`E2E_MANAGER`, the built wheel's command, else `python -m <package>`),
  on free loopback ports, waits until `/readyz` answers, and stops it with
  SIGTERM on leaving; `ManagerProcess` reads its `/metrics` and its output;
- `kubectl`, `samples`, `free_port`, `http_get` and `wait_for` (a blocking
  `eventually` with a deadline) for the steps in between.

`kubectl` missing skips the test, or fails it when `OPGEN_REQUIRE_ENVTEST` is
set, as a missing envtest binary does.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest
import yaml

from opgen.testing.controlplane.environment import Environment
from opgen.testing.controlplane.rbac import RenderedRbac, rendered_rbac

__all__ = [
    "ROUTING_KINDS",
    "DeployedConfig",
    "ManagerProcess",
    "deployed_config",
    "free_port",
    "http_get",
    "kubectl",
    "manager_command",
    "manager_process",
    "samples",
    "wait_for",
]

T = TypeVar("T")

TIMEOUT = 120.0
"""Seconds `wait_for` waits by default: a manager's start on a loaded machine."""
STOP_TIMEOUT = 60.0
ROUTING_KINDS = frozenset(
    {
        "CustomResourceDefinition",
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
        "Certificate",
        "Issuer",
    }
)
"""Kinds of config/default that `deployed_config` leaves out: they route the API
server to a pod (none runs in envtest), or the session installed them (CRDs)."""
_RECONCILES = re.compile(
    r'controller_runtime_reconcile_total\{.*result="(\w+)".*\} (\S+)'
)


def kubectl(
    kubeconfig: Path, *args: str, stdin: str | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """Run kubectl against `kubeconfig`'s cluster; fails the test on an error
    unless `check=False` (then read `returncode` and `stderr`)."""
    binary = shutil.which("kubectl")
    if binary is None:
        message = "kubectl is not on PATH; the e2e tests apply config/default with it"
        if os.environ.get("OPGEN_REQUIRE_ENVTEST"):
            pytest.fail(message)
        pytest.skip(message)
    done = subprocess.run(
        [binary, "--kubeconfig", str(kubeconfig), *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    if check:
        assert done.returncode == 0, f"kubectl {' '.join(args)}:\n{done.stderr}"
    return done


def wait_for(
    check: Callable[[], T | None],
    what: str,
    *,
    timeout: float = TIMEOUT,
    interval: float = 0.5,
) -> T:
    """`check()`'s first truthy result, asked every `interval` seconds; fails
    naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(interval)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def http_get(url: str, token: str | None = None) -> tuple[int, str]:
    """GET `url`: (status, body); (0, "") when nothing answers. HTTPS is not
    verified (the manager's certificates are self-signed)."""
    request = urllib.request.Request(url)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(request, timeout=5, context=context) as answer:
            return int(answer.status), answer.read().decode()
    except urllib.error.HTTPError as error:
        return int(error.code), ""
    except OSError:
        return 0, ""


def samples(root: Path) -> list[dict[str, Any]]:
    """Every object of the project's `config/samples/` (its kustomization aside)."""
    return [
        document
        for path in sorted((root / "config/samples").glob("*.yaml"))
        if path.name != "kustomization.yaml"
        for document in yaml.safe_load_all(path.read_text())
        if document
    ]


def manager_command(package: str) -> list[str]:
    """The manager `make test-e2e` built and installed (`E2E_MANAGER`), else
    `python -m <package>` from the checkout."""
    command = os.environ.get("E2E_MANAGER")
    return shlex.split(command) if command else [sys.executable, "-m", package]


@dataclass(frozen=True)
class DeployedConfig:
    """`config/default` applied; who the manager runs as."""

    admin_kubeconfig: Path
    kubeconfig_path: Path
    """A kubeconfig holding a token of the manager's ServiceAccount, in its namespace."""
    service_account: str
    namespace: str

    def token(self) -> str:
        """A new token of the manager's ServiceAccount."""
        return kubectl(
            self.admin_kubeconfig,
            "create",
            "token",
            self.service_account,
            "-n",
            self.namespace,
        ).stdout.strip()


def _deploys(document: Mapping[str, Any]) -> bool:
    webhook_service = document["kind"] == "Service" and str(
        document["metadata"]["name"]
    ).endswith("-webhook-service")
    return document["kind"] not in ROUTING_KINDS and not webhook_service


def _metrics_reader_binding(rbac: RenderedRbac) -> dict[str, Any]:
    """Binds config/rbac's metrics-reader ClusterRole to the manager's account."""
    role = next(
        str(o["metadata"]["name"])
        for o in rbac.objects
        if o["kind"] == "ClusterRole"
        and o["metadata"]["name"].endswith("metrics-reader")
    )
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": f"{role}-e2e"},
        "roleRef": {
            "apiGroup": "rbac.authorization.k8s.io",
            "kind": "ClusterRole",
            "name": role,
        },
        "subjects": [
            {
                "kind": "ServiceAccount",
                "name": rbac.service_account,
                "namespace": rbac.namespace,
            }
        ],
    }


@contextlib.contextmanager
def deployed_config(
    envtest: Environment,
    root: Path,
    workdir: Path,
    *,
    extra: Sequence[Mapping[str, Any]] = (),
) -> Iterator[DeployedConfig]:
    """`config/default` of the project at `root` applied (see the module's
    docstring), with the `extra` objects (a namespace for the samples, say); a
    kubeconfig of the manager's ServiceAccount written in `workdir`."""
    admin = envtest.kubeconfig_path
    rbac = rendered_rbac(root)
    rendered = kubectl(admin, "kustomize", str(root / "config/default")).stdout
    applied: list[Mapping[str, Any]] = [
        d for d in yaml.safe_load_all(rendered) if d and _deploys(d)
    ]
    applied.append(_metrics_reader_binding(rbac))
    applied.extend(extra)
    documents = yaml.safe_dump_all([dict(d) for d in applied])
    kubectl(admin, "apply", "--server-side", "-f", "-", stdin=documents)
    try:
        deployed = DeployedConfig(
            admin_kubeconfig=admin,
            kubeconfig_path=workdir / "manager.kubeconfig",
            service_account=rbac.service_account,
            namespace=rbac.namespace,
        )
        config: dict[str, Any] = yaml.safe_load(admin.read_text())
        config["users"] = [
            {"name": rbac.service_account, "user": {"token": deployed.token()}}
        ]
        for context in config["contexts"]:
            context["context"]["user"] = rbac.service_account
            context["context"]["namespace"] = rbac.namespace
        deployed.kubeconfig_path.write_text(yaml.safe_dump(config))
        yield deployed
    finally:
        kubectl(
            admin,
            "delete",
            "--ignore-not-found",
            "--wait=false",
            "-f",
            "-",
            stdin=documents,
        )


@dataclass
class ManagerProcess:
    """A manager running in a process of its own, on loopback ports."""

    process: subprocess.Popen[str]
    probes: int
    metrics: int | None
    webhooks: int
    output: str = field(default="", init=False)
    """Everything it printed (stdout and stderr), once it stopped."""

    def ready(self) -> bool:
        """Whether `/readyz` answers 200 (its caches synced, its webhook server up)."""
        return http_get(f"http://127.0.0.1:{self.probes}/readyz")[0] == 200

    def running(self) -> bool:
        return self.process.poll() is None

    def get_metrics(self, token: str | None = None) -> tuple[int, str]:
        """GET /metrics (HTTPS, as `--metrics-secure` serves it) with `token`."""
        assert self.metrics is not None, "started without a metrics server"
        return http_get(f"https://127.0.0.1:{self.metrics}/metrics", token)

    def reconciles(self, token: str) -> tuple[float, float]:
        """(reconciles done, reconciles that failed), from its /metrics."""
        status, text = self.get_metrics(token)
        assert status == 200, f"GET /metrics answered {status}"
        done = failed = 0.0
        for line in text.splitlines():
            found = _RECONCILES.match(line)
            if found is None:
                continue
            if found.group(1) == "error":
                failed += float(found.group(2))
            else:
                done += float(found.group(2))
        return done, failed

    def stop(self) -> int:
        """SIGTERM, then wait for it; its exit code (`output` holds what it printed)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        output, _ = self.process.communicate(timeout=STOP_TIMEOUT)
        self.output += output or ""
        return int(self.process.returncode)


@contextlib.contextmanager
def manager_process(
    package: str,
    kubeconfig: Path,
    *,
    cwd: Path,
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    metrics: bool = True,
    webhook_port: int | None = None,
) -> Iterator[ManagerProcess]:
    """Run the manager (`manager_command(package)`) as `kubeconfig`'s user, with
    its probes, metrics (unless `metrics=False`) and webhook server on free
    loopback ports, and the flags `args`; yields once `/readyz` answers, and
    stops it with SIGTERM on leaving. Its environment is `env`, `PATH` and
    `KUBECONFIG` alone, so nothing of the test's leaks into it."""
    probes, webhooks = free_port(), webhook_port or free_port()
    metrics_port = free_port() if metrics else None
    flags = [
        f"--health-probe-bind-address=127.0.0.1:{probes}",
        f"--webhook-port={webhooks}",
    ]
    if metrics_port is not None:
        flags.append(f"--metrics-bind-address=127.0.0.1:{metrics_port}")
    process = subprocess.Popen(
        [*manager_command(package), *flags, *args],
        cwd=cwd,
        env={
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            **(env or {}),
            "KUBECONFIG": str(kubeconfig),
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    manager = ManagerProcess(process, probes, metrics_port, webhooks)
    try:
        wait_for(
            lambda: not manager.running() or manager.ready(),
            "the manager to be ready",
        )
        if not manager.running():
            manager.stop()
            pytest.fail(f"the manager exited before it was ready:\n{manager.output}")
        yield manager
    finally:
        if manager.process.returncode is None:
            manager.stop()
