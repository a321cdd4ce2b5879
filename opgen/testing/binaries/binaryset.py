"""One set of control-plane binaries: the `Binaries` record and the checks a set must pass.

`verify_binaries` runs `--version` on each binary: kube-apiserver and
kube-controller-manager must report the Kubernetes version asked for (kubectl,
which has no `--version`, is not run), and
etcd must be at least `ETCD_MIN_VERSION` (`verify_etcd`). Finding a set
(`locate`), building one (`build`) and fetching etcd (`etcd_source`) all
check with these.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from opgen.errors import EnvtestError
from opgen.testing.binaries.commands import version_output
from opgen.testing.binaries.versions import (
    ETCD_MIN_VERSION,
    KubernetesVersion,
    parse_etcd_version,
)

__all__ = ["Binaries", "verify_binaries", "verify_etcd"]


@dataclass(frozen=True)
class Binaries:
    """One set of control-plane binaries and where it came from."""

    kube_apiserver: Path
    etcd: Path
    kube_controller_manager: Path | None
    directory: Path
    """What `KUBEBUILDER_ASSETS` would point at (the kube-apiserver's directory)."""
    source: str
    """"environment", "cache", "download" or "build"."""
    kubectl: Path | None = None
    """The kubectl of the same release, when the set has one (downloaded sets do)."""

    def as_dict(self) -> dict[str, Path | None]:
        return {
            "kube-apiserver": self.kube_apiserver,
            "etcd": self.etcd,
            "kube-controller-manager": self.kube_controller_manager,
            "kubectl": self.kubectl,
        }


def verify_etcd(etcd: Path) -> tuple[int, int, int]:
    """`etcd --version`, which must be at least `ETCD_MIN_VERSION`."""
    found = parse_etcd_version(version_output(etcd))
    if found < ETCD_MIN_VERSION:
        wanted = ".".join(map(str, ETCD_MIN_VERSION))
        raise EnvtestError(
            f"{etcd} is etcd {'.'.join(map(str, found))}; Kubernetes >= 1.35 needs etcd >= {wanted} "
            "(older ones break consistent watches, so informers fail)",
            hint=f"use an etcd >= {wanted}, e.g. the one `opgen envtest use` installs",
        )
    return found


def verify_binaries(binaries: Binaries, version: KubernetesVersion) -> None:
    """Run `--version` on each binary: Kubernetes ones must report `version`."""
    expected = f"Kubernetes {version.git_version}"
    for name in ("kube-apiserver", "kube-controller-manager"):
        path = binaries.as_dict()[name]
        if path is None:
            continue
        reported = version_output(path)
        if reported.strip() != expected:
            raise EnvtestError(
                f"{path} reports {reported.strip()!r}, expected {expected!r}",
                hint="remove the directory and run `opgen envtest use` again",
            )
    verify_etcd(binaries.etcd)
