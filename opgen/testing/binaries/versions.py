"""The pinned Kubernetes version and the version arithmetic envtest needs.

`KUBERNETES_VERSION` is the one place opgen pins the Kubernetes release whose
kube-apiserver, kube-controller-manager and etcd it tests against.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from opgen.errors import EnvtestError

__all__ = [
    "ETCD_MIN_VERSION",
    "KUBERNETES_VERSION",
    "KubernetesVersion",
    "parse_etcd_version",
]

KUBERNETES_VERSION = "1.36.3"

# Kubernetes >= 1.35 locks ConsistentListFromCache on; it needs etcd's
# RequestWatchProgress fix, released in 3.5.13.
ETCD_MIN_VERSION = (3, 5, 13)

_RELEASE = re.compile(r"^v?(?P<major>\d+)\.(?P<minor>\d+)\.(?P<patch>\d+)$")
_ETCD_VERSION_LINE = re.compile(r"etcd Version:\s*v?(\d+)\.(\d+)\.(\d+)")


@dataclass(frozen=True, order=True)
class KubernetesVersion:
    """A Kubernetes release, `1.Y.Z`."""

    major: int
    minor: int
    patch: int

    @classmethod
    def parse(cls, text: str) -> KubernetesVersion:
        match = _RELEASE.match(text.strip())
        if match is None:
            raise EnvtestError(
                f"{text!r} is not a Kubernetes release version",
                hint=f"give a version like {KUBERNETES_VERSION} (major.minor.patch)",
            )
        return cls(int(match["major"]), int(match["minor"]), int(match["patch"]))

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"

    @property
    def git_version(self) -> str:
        """The tag of `k8s.io/kubernetes`, e.g. `v1.36.3`."""
        return f"v{self}"

    @property
    def staging_version(self) -> str:
        """The tag of the published staging modules (`k8s.io/api` ...), e.g. `v0.36.3`."""
        return f"v0.{self.minor}.{self.patch}"


def parse_etcd_version(version_output: str) -> tuple[int, int, int]:
    """Read `etcd Version: 3.5.16` from `etcd --version` output."""
    match = _ETCD_VERSION_LINE.search(version_output)
    if match is None:
        raise EnvtestError(
            "cannot read the version from `etcd --version`: "
            + version_output.strip()[:200]
        )
    major, minor, patch = (int(part) for part in match.groups())
    return major, minor, patch
