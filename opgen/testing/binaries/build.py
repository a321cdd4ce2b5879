"""Building one complete, verified set of binaries into a staging directory.

Go is checked first (kube-apiserver cannot come from anywhere else), then
kube-apiserver and kube-controller-manager are compiled, then etcd is fetched,
then every binary is run with `--version`. `build_controller_manager_into`
builds kube-controller-manager alone, for a downloaded set (the archives do
not carry it). The caller
(`opgen.testing.binaries.obtain.obtain_binaries`) holds the cache lock and renames
the result into place.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from opgen.errors import EnvtestError
from opgen.testing.binaries.binaryset import Binaries, verify_binaries
from opgen.testing.binaries.commands import version_output
from opgen.testing.binaries.etcd_source import EtcdSource, obtain_etcd
from opgen.testing.binaries.kubebuild import build_kubernetes, require_go
from opgen.testing.binaries.versions import KubernetesVersion

__all__ = ["build_controller_manager_into", "build_into"]


def build_into(
    version: KubernetesVersion,
    staging: Path,
    env: Mapping[str, str],
    progress: Callable[[str], None],
    etcd_source: EtcdSource = "auto",
) -> Path:
    """Build the set for `version` under `staging`; return the directory holding it."""
    require_go(env, "build kube-apiserver and kube-controller-manager")
    bin_dir = staging / "bin"
    bin_dir.mkdir()
    kubernetes_gomod = build_kubernetes(
        version, staging / "kubernetes", bin_dir, env, progress
    )
    obtain_etcd(
        staging / "etcd", bin_dir / "etcd", kubernetes_gomod, env, progress, etcd_source
    )
    progress("verifying the binaries (--version)")
    verify_binaries(
        Binaries(
            kube_apiserver=bin_dir / "kube-apiserver",
            etcd=bin_dir / "etcd",
            kube_controller_manager=bin_dir / "kube-controller-manager",
            directory=bin_dir,
            source="build",
        ),
        version,
    )
    return bin_dir


def build_controller_manager_into(
    version: KubernetesVersion,
    staging: Path,
    env: Mapping[str, str],
    progress: Callable[[str], None],
) -> Path:
    """Build kube-controller-manager for `version` under `staging`; return the binary."""
    require_go(env, "build kube-controller-manager")
    bin_dir = staging / "bin"
    bin_dir.mkdir()
    build_kubernetes(
        version,
        staging / "kubernetes",
        bin_dir,
        env,
        progress,
        commands=("kube-controller-manager",),
    )
    binary = bin_dir / "kube-controller-manager"
    progress("verifying kube-controller-manager (--version)")
    reported = version_output(binary).strip()
    if reported != f"Kubernetes {version.git_version}":
        raise EnvtestError(
            f"{binary} reports {reported!r}, expected 'Kubernetes {version.git_version}'"
        )
    return binary
