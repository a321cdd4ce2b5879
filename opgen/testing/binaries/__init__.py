"""Obtaining the control-plane binaries: kube-apiserver, etcd, kube-controller-manager.

This package is the one entry point the rest of `opgen.testing` uses: it finds
a set (`find_binaries`: `KUBEBUILDER_ASSETS` / `TEST_ASSET_*`, then the cache)
and checks it, and it names the pinned Kubernetes version. It never builds;
`obtain.obtain_binaries` (what `opgen envtest use` runs) does, and nothing that
runs a control plane imports it.

- `locate`: the environment variables, then the cache;
- `binaryset`: the `Binaries` record and the `--version` checks;
- `versions`: `KUBERNETES_VERSION` and the version arithmetic;
- `cache`: where the cache lives, its lock, atomic installs;
- `obtain`: find, else build under the cache's lock;
- `build`: one verified set into a staging directory, from `kubebuild`
  (kube-apiserver and kube-controller-manager from Go modules, with the
  throwaway module of `gomod`) and `etcd_source` (Debian's etcd, else a Go
  build);
- `commands`: running go, apt-get, dpkg-deb and the binaries, logged;
- `guidance`: the ways out every "no binaries" error offers.
"""

from __future__ import annotations

from opgen.testing.binaries.binaryset import Binaries, verify_binaries, verify_etcd
from opgen.testing.binaries.cache import cache_root
from opgen.testing.binaries.locate import (
    ASSETS_ENV,
    BINARY_ENV,
    BinariesNotFound,
    find_binaries,
    from_cache,
    from_environment,
)
from opgen.testing.binaries.versions import (
    ETCD_MIN_VERSION,
    KUBERNETES_VERSION,
    KubernetesVersion,
)

__all__ = [
    "ASSETS_ENV",
    "BINARY_ENV",
    "ETCD_MIN_VERSION",
    "KUBERNETES_VERSION",
    "Binaries",
    "BinariesNotFound",
    "KubernetesVersion",
    "cache_root",
    "find_binaries",
    "from_cache",
    "from_environment",
    "verify_binaries",
    "verify_etcd",
]
