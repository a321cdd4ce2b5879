"""The advice every "no binaries" error gives: the three ways out."""

from __future__ import annotations

__all__ = ["WAYS_OUT"]

WAYS_OUT = (
    "(1) set KUBEBUILDER_ASSETS to a directory holding kube-apiserver, etcd and "
    "kube-controller-manager (or TEST_ASSET_KUBE_APISERVER/TEST_ASSET_ETCD/"
    "TEST_ASSET_KUBE_CONTROLLER_MANAGER), (2) install Go (https://go.dev/dl/) and run "
    "`opgen envtest use` to build them once into the cache, or (3) test against an "
    "existing cluster with USE_EXISTING_CLUSTER=true and KUBECONFIG=<path>"
)
