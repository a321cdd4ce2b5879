"""opgen.testing: a real kube-apiserver + etcd for tests, like controller-runtime's envtest.

- `Environment` starts etcd, kube-apiserver and optionally kube-controller-manager
  on loopback (or connects to an existing cluster) and installs CRDs.
- `find_binaries` / `obtain_binaries` locate (or build) the binaries for
  `KUBERNETES_VERSION`; `opgen envtest use` is the command-line face.
- The pytest plugin (`opgen.testing.plugin`, loaded through an entry point)
  provides the `envtest`, `envtest_controller_manager`, `kube_client` and
  `namespace` fixtures.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from opgen.testing.binaries import (
        Binaries,
        BinariesNotFound,
        find_binaries,
        obtain_binaries,
        verify_binaries,
    )
    from opgen.testing.cache import cache_root
    from opgen.testing.crds import CrdSource, load_crds
    from opgen.testing.environment import Environment
    from opgen.testing.versions import (
        ETCD_MIN_VERSION,
        KUBERNETES_VERSION,
        KubernetesVersion,
    )

# Names resolve on first use (PEP 562), so `opgen envtest --help` and other light
# users of `opgen.testing.versions` do not pay for lightkube, yaml and cryptography.
_HOME = {
    "Binaries": "binaries",
    "BinariesNotFound": "binaries",
    "find_binaries": "binaries",
    "obtain_binaries": "binaries",
    "verify_binaries": "binaries",
    "cache_root": "cache",
    "CrdSource": "crds",
    "load_crds": "crds",
    "Environment": "environment",
    "ETCD_MIN_VERSION": "versions",
    "KUBERNETES_VERSION": "versions",
    "KubernetesVersion": "versions",
}


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'opgen.testing' has no attribute {name!r}")
    return getattr(importlib.import_module(f"opgen.testing.{module}"), name)


__all__ = [
    "ETCD_MIN_VERSION",
    "KUBERNETES_VERSION",
    "Binaries",
    "BinariesNotFound",
    "CrdSource",
    "Environment",
    "KubernetesVersion",
    "cache_root",
    "find_binaries",
    "load_crds",
    "obtain_binaries",
    "verify_binaries",
]
