"""The advice "no binaries" errors give: the three ways out, and how to get
kube-controller-manager, which the prebuilt archives lack."""

from __future__ import annotations

__all__ = ["CONTROLLER_MANAGER_MISSING", "WAYS_OUT"]

WAYS_OUT = (
    "(1) set KUBEBUILDER_ASSETS to a directory holding kube-apiserver, etcd and "
    "kube-controller-manager (or TEST_ASSET_KUBE_APISERVER/TEST_ASSET_ETCD/"
    "TEST_ASSET_KUBE_CONTROLLER_MANAGER), (2) run `opgen envtest use` where the "
    "envtest archives can be downloaded (or point --index-url / "
    "$OPGEN_ENVTEST_INDEX_URL at a mirror), or install Go (https://go.dev/dl/) and "
    "run `opgen envtest use --source build` to build them once into the cache, or "
    "(3) test against an existing cluster with USE_EXISTING_CLUSTER=true and "
    "KUBECONFIG=<path>"
)

CONTROLLER_MANAGER_MISSING = (
    "kube-controller-manager runs garbage collection (children deleted with their "
    "owner) and namespace deletion; the prebuilt envtest archives do not carry it. "
    "Build it once into the cache with `opgen envtest use --controller-manager` "
    "(needs Go, https://go.dev/dl/; the first build takes several minutes), or set "
    "TEST_ASSET_KUBE_CONTROLLER_MANAGER to a kube-controller-manager of the same "
    "Kubernetes version"
)
