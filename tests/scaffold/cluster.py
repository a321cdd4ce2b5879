"""Running a generated project's manager against envtest, as it runs in a cluster.

`deploy` applies the project's `config/default` (namespace, CRDs, service
account, the generated RBAC, the Deployment; envtest has no kubelet, so the
pod never starts) and returns a kubeconfig holding a token of the manager's
service account, with its namespace as the context's, as in a pod. A manager
started with it has exactly the permissions the generated RBAC grants.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from opgen.testing import Environment, e2e
from tests.waiting import until


def kubectl_binary() -> str:
    """kubectl, installed from Debian's kubernetes-client package when missing."""
    found = shutil.which("kubectl")
    if found is None:
        subprocess.run(["apt-get", "update", "-qq"], check=True, capture_output=True)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "kubernetes-client"],
            check=True,
            capture_output=True,
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        )
        found = shutil.which("kubectl")
    assert found, "kubectl is needed; apt-get install kubernetes-client"
    return found


def kubectl(
    kubeconfig: Path, *args: str, stdin: str | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """`opgen.testing.e2e.kubectl`, with kubectl installed first when missing."""
    kubectl_binary()
    return e2e.kubectl(kubeconfig, *args, stdin=stdin, check=check)


def run_kubectl(env: Mapping[str, str], *args: str, cwd: Path | None = None) -> str:
    """kubectl with the environment `env` (its KUBECONFIG, HOME); asserts success."""
    done = subprocess.run(
        [kubectl_binary(), *args],
        env=dict(env),
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"kubectl {' '.join(args)}: {done.stderr}"
    return done.stdout


def kustomize_default(root: Path) -> str:
    """`kubectl kustomize config/default` in `root`: everything `make deploy` applies."""
    done = subprocess.run(
        [kubectl_binary(), "kustomize", "config/default"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"kubectl kustomize config/default:\n{done.stderr}"
    return done.stdout


def kustomize(root: Path) -> list[dict[str, Any]]:
    """The objects `kubectl kustomize config/default` gives in `root`."""
    return [doc for doc in yaml.safe_load_all(kustomize_default(root)) if doc]


def deploy(envtest: Environment, root: Path, name: str, out: Path) -> Path:
    """Apply `config/default`; the kubeconfig of the manager's service account."""
    rendered = kustomize_default(root)
    # The session's API server is shared: an earlier test may have installed a CRD
    # of the same name through envtest (field manager `opgen-envtest`); this apply
    # stands for `make deploy` onto a cluster it owns.
    kubectl(
        envtest.kubeconfig_path,
        "apply",
        "--server-side",
        "--force-conflicts",
        "-f",
        "-",
        stdin=rendered,
    )
    namespace = f"{name}-system"
    token = kubectl(
        envtest.kubeconfig_path,
        "create",
        "token",
        f"{name}-controller-manager",
        "-n",
        namespace,
    ).stdout.strip()
    config: dict[str, Any] = yaml.safe_load(envtest.kubeconfig_path.read_text())
    config["users"] = [{"name": "manager", "user": {"token": token}}]
    for context in config["contexts"]:
        context["context"]["user"] = "manager"
        context["context"]["namespace"] = namespace
    out.write_text(yaml.safe_dump(config))
    return out


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class ManagerRun:
    process: subprocess.Popen[str]
    output: str = ""


@contextlib.contextmanager
def manager(
    root: Path,
    package: str,
    kubeconfig: Path,
    *flags: str,
    command: Sequence[str] | None = None,
    base_env: Mapping[str, str] | None = None,
    **env: str,
) -> Iterator[ManagerRun]:
    """`python -m <package>` in `root` (or `command`, e.g. an image's entrypoint,
    in `base_env`); on exit SIGTERM, and it must stop cleanly; its output is then
    the run's `output`."""
    process = subprocess.Popen(
        [
            *(command or [sys.executable, "-m", package]),
            f"--health-probe-bind-address=127.0.0.1:{free_port()}",
            *flags,
        ],
        cwd=root,
        env={
            **(os.environ if base_env is None else base_env),
            "KUBECONFIG": str(kubeconfig),
            **env,
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    run = ManagerRun(process)
    try:
        yield run
    finally:
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=60)
        run.output = output
    assert process.returncode == 0, output
    assert "starting manager" in output, output
    assert "SIGTERM received: stopping the manager" in output, output
    # The last line, in either log encoding (console or JSON).
    assert "manager stopped" in output.rstrip().rsplit("\n", 1)[-1], output
    assert "Forbidden" not in output, output


def conditions(kubeconfig: Path, *resource: str) -> dict[str, str]:
    got = kubectl(kubeconfig, "get", *resource, "-o", "yaml")
    status = yaml.safe_load(got.stdout).get("status") or {}
    return {c["type"]: c["status"] for c in status.get("conditions", [])}


def wait_ready(kubeconfig: Path, *resource: str) -> dict[str, str]:
    """The object's conditions once Ready is True."""

    def ready() -> dict[str, str] | None:
        found = conditions(kubeconfig, *resource)
        return found if found.get("Ready") == "True" else None

    return until(ready, f"{' '.join(resource)} to be Ready", every=0.5)


def sample(root: Path, path: str, namespace: str, name: str | None = None) -> str:
    """The sample object at `path`, moved into `namespace` (and renamed)."""
    document: dict[str, Any] = yaml.safe_load((root / path).read_text())
    document["metadata"]["namespace"] = namespace
    if name is not None:
        document["metadata"]["name"] = name
    return yaml.safe_dump(document)
