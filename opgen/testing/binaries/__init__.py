"""Obtaining the control-plane binaries: kube-apiserver, etcd, kube-controller-manager.

This package is the one entry point the rest of `opgen.testing` uses: it finds
a set (`find_binaries`: `KUBEBUILDER_ASSETS` / `TEST_ASSET_*`, then the cache)
and checks it, and it names the pinned Kubernetes version. It never downloads
or builds; `obtain.obtain_binaries` (what `opgen envtest use` runs) does, and
nothing that runs a control plane imports it.

- `locate`: the environment variables, then the cache;
- `binaryset`: the `Binaries` record and the `--version` checks;
- `versions`: `KUBERNETES_VERSION` and the version arithmetic;
- `cache`: where the cache lives, its lock, atomic installs;
- `obtain`: find, else download (else build) under the cache's lock, and add
  kube-controller-manager (built) when asked for;
- `download`: one verified set from a prebuilt envtest archive into a staging
  directory (aiohttp), chosen by `releases` from controller-tools'
  `envtest-releases.yaml` index;
- `build`: one verified set into a staging directory, from `kubebuild`
  (kube-apiserver and kube-controller-manager from Go modules, with the
  throwaway module of `gomod`) and `etcd_source` (Debian's etcd, else a Go
  build);
- `commands`: running go, apt-get, dpkg-deb and the binaries, logged;
- `guidance`: the ways out every "no binaries" error offers, and how to get
  kube-controller-manager.
"""

from __future__ import annotations

from opgen.testing.binaries.binaryset import Binaries, verify_binaries, verify_etcd
from opgen.testing.binaries.cache import cache_root
from opgen.testing.binaries.locate import (
    ASSETS_ENV,
    BINARY_ENV,
    KUBECTL_ENV,
    BinariesNotFound,
    ControllerManagerMissing,
    find_binaries,
    from_cache,
    from_environment,
    require_controller_manager,
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
    "KUBECTL_ENV",
    "KUBERNETES_VERSION",
    "Binaries",
    "BinariesNotFound",
    "ControllerManagerMissing",
    "KubernetesVersion",
    "cache_root",
    "find_binaries",
    "from_cache",
    "from_environment",
    "require_controller_manager",
    "verify_binaries",
    "verify_etcd",
]
