"""`opgen envtest run`: a local control plane for kubectl and `make run`, until a signal.

Each test runs the real command in a process of its own (its own session,
so the signals go to it alone, as from a terminal or a process manager) with
a private TMPDIR and kubeconfig: the control plane answers kubectl through the
kubeconfig it published, a signal stops it with exit code 0, the kubeconfig
is as it was, and no process or work directory is left.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from opgen.testing import Environment
from opgen.testing.binaries import Binaries
from opgen.testing.controlplane.devcluster import publish, unpublish
from tests.scaffold.cluster import run_kubectl
from tests.testing.crd_samples import GROUP, widget_crd
from tests.testing.processes import processes_mentioning
from tests.testing.test_plugin import _with_binaries, binaries  # noqa: F401
from tests.waiting import until

WIDGETS = f"widgets.{GROUP}"
OTHER = {
    "apiVersion": "v1",
    "kind": "Config",
    "clusters": [{"name": "other", "cluster": {"server": "https://127.0.0.1:1"}}],
    "users": [{"name": "other", "user": {"token": "t"}}],
    "contexts": [{"name": "other", "context": {"cluster": "other", "user": "other"}}],
    "current-context": "other",
}


def start(tmp_path: Path, environ: dict[str, str], *args: str) -> subprocess.Popen[str]:
    crds = tmp_path / "crds"
    crds.mkdir(exist_ok=True)
    (crds / "widgets.yaml").write_text(yaml.safe_dump(widget_crd()))
    return subprocess.Popen(
        [sys.executable, "-m", "opgen", "envtest", "run", "--crds", str(crds), *args],
        cwd=tmp_path,
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def banner(process: subprocess.Popen[str]) -> list[str]:
    """stdout up to the end of the banner (the Ctrl-C line)."""
    assert process.stdout is not None
    lines: list[str] = []
    while not lines or not lines[-1].startswith("Ctrl-C"):
        line = process.stdout.readline()
        assert (
            line
        ), f"exited early: {process.wait()}\n{process.stderr and process.stderr.read()}"
        lines.append(line.rstrip("\n"))
    return lines


def pids(lines: list[str]) -> dict[str, int]:
    line = next(line for line in lines if line.startswith("  processes: "))
    pairs = [item.rsplit(" ", 1) for item in line.split(": ", 1)[1].split(", ")]
    return {name: int(pid) for name, pid in pairs}


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


kubectl = run_kubectl


def stop(process: subprocess.Popen[str], sig: signal.Signals) -> tuple[str, str]:
    process.send_signal(sig)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    return out, err


def nothing_left(tmp_path: Path, started: dict[str, int]) -> None:
    assert [name for name, pid in started.items() if alive(pid)] == []
    assert processes_mentioning(str(tmp_path / "tmp")) == []
    assert list((tmp_path / "tmp").iterdir()) == []


@pytest.mark.envtest
def test_kubectl_works_until_sigterm_and_the_kubeconfig_is_restored(
    envtest: Environment, binaries: Binaries, tmp_path: Path  # noqa: F811
) -> None:
    config = tmp_path / "home" / "config"
    config.parent.mkdir()
    config.write_text(yaml.safe_dump(OTHER))
    environ = _with_binaries(tmp_path, binaries, KUBECONFIG=str(config))
    process = start(tmp_path, environ)
    try:
        lines = banner(process)
        started = pids(lines)
        assert sorted(started) == ["etcd", "kube-apiserver", "kube-controller-manager"]
        assert f"  CRDs: {WIDGETS}" in lines
        assert (
            f'  kubeconfig: {config}, context "opgen-envtest" (now the current context; was "other")'
            in lines
        )
        assert any(line.startswith("  make run") for line in lines)
        # kubectl finds it without being told where.
        assert kubectl(environ, "config", "current-context") == "opgen-envtest\n"
        assert WIDGETS in kubectl(environ, "get", "crd", "-o", "name")
        kubectl(environ, "create", "namespace", "dev")
        kubectl(environ, "create", "configmap", "hello", "-n", "dev")
        assert "configmap/hello" in kubectl(
            environ, "get", "configmap", "-n", "dev", "-o", "name"
        )
    finally:
        if process.poll() is None:
            _, err = stop(process, signal.SIGTERM)
    assert "SIGTERM received: stopping the control plane" in err
    assert "stopped; nothing is left running" in err
    assert yaml.safe_load(config.read_text()) == OTHER
    nothing_left(tmp_path, started)


@pytest.mark.envtest
def test_ctrl_c_with_a_kubeconfig_of_its_own(
    envtest: Environment, binaries: Binaries, tmp_path: Path  # noqa: F811
) -> None:
    own = tmp_path / "dev.kubeconfig"
    environ = _with_binaries(tmp_path, binaries, HOME=str(tmp_path / "home"))
    process = start(tmp_path, environ, "--kubeconfig", str(own))
    try:
        lines = banner(process)
        started = pids(lines)
        assert f"  kubeconfig: {own}" in lines
        assert any(line.startswith(f"  KUBECONFIG={own} make run") for line in lines)
        assert WIDGETS in kubectl(
            {**environ, "KUBECONFIG": str(own)}, "get", "crd", "-o", "name"
        )
    finally:
        if process.poll() is None:
            _, err = stop(process, signal.SIGINT)
    assert "SIGINT received" in err
    assert not own.exists()
    assert not (tmp_path / "home/.kube/config").exists()  # never touched
    nothing_left(tmp_path, started)


@pytest.mark.envtest
def test_sigterm_while_starting_stops_what_was_started(
    envtest: Environment, binaries: Binaries, tmp_path: Path  # noqa: F811
) -> None:
    environ = _with_binaries(tmp_path, binaries, KUBECONFIG=str(tmp_path / "config"))
    process = start(tmp_path, environ)
    stderr = process.stderr
    assert stderr is not None
    until(
        lambda: "starting etcd" in stderr.readline() or process.poll() is not None,
        "the command to start the control plane",
    )
    _, err = stop(process, signal.SIGTERM)
    assert "SIGTERM received" in err
    assert not (tmp_path / "config").exists()
    nothing_left(tmp_path, {})


def test_a_context_left_by_a_killed_run_is_replaced_and_then_removed(
    tmp_path: Path,
) -> None:
    admin: dict[str, Any] = {
        "clusters": [{"name": "envtest", "cluster": {"server": "https://127.0.0.1:2"}}],
        "users": [{"name": "envtest", "user": {"token": "x"}}],
        "contexts": [
            {"name": "envtest", "context": {"cluster": "envtest", "user": "envtest"}}
        ],
    }
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump(OTHER))
    publish(admin, path)  # a run that was killed: never unpublished
    again = publish(admin, path)
    config = yaml.safe_load(path.read_text())
    assert [c["name"] for c in config["contexts"]] == ["other", "opgen-envtest"]
    assert again.previous_context is None  # no going back to the stale one
    unpublish(again)
    assert {c["name"] for c in yaml.safe_load(path.read_text())["contexts"]} == {
        "other"
    }
    assert os.stat(path).st_mode & 0o077 == 0
