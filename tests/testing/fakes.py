"""Fake control-plane binaries for unit tests: scripts that answer `--version`."""

from __future__ import annotations

from pathlib import Path

from opgen.testing.binaries.versions import KUBERNETES_VERSION

KUBE_VERSION_OUTPUT = f"Kubernetes v{KUBERNETES_VERSION}"
ETCD_VERSION_OUTPUT = "etcd Version: 3.5.16\nGit SHA: test\nGo Version: go1.24"


def fake_binary(path: Path, version_output: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\ncat <<'EOF'\n{version_output}\nEOF\n")
    path.chmod(0o755)
    return path


def fake_set(
    directory: Path, *, controller_manager: bool = True, etcd: str = ETCD_VERSION_OUTPUT
) -> Path:
    fake_binary(directory / "kube-apiserver", KUBE_VERSION_OUTPUT)
    fake_binary(directory / "etcd", etcd)
    if controller_manager:
        fake_binary(directory / "kube-controller-manager", KUBE_VERSION_OUTPUT)
    return directory
