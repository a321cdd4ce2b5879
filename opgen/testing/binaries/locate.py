"""Finding kube-apiserver, etcd and kube-controller-manager.

Order, the same conventions controller-runtime's envtest follows:

1. `TEST_ASSET_KUBE_APISERVER`, `TEST_ASSET_ETCD`,
   `TEST_ASSET_KUBE_CONTROLLER_MANAGER`, `TEST_ASSET_KUBECTL` (one binary
   each), and `KUBEBUILDER_ASSETS` (a directory) for the ones not named that way;
2. the cache, `<cache root>/<version>/` (see `opgen.testing.binaries.cache`);
3. a download or a build, only when the caller allows it:
   `obtain.obtain_binaries` (what `opgen envtest use` runs); test fixtures
   never start either.

Nothing here builds: this is what a control plane uses to find its binaries.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from opgen.errors import EnvtestError
from opgen.testing.binaries import cache
from opgen.testing.binaries.binaryset import Binaries
from opgen.testing.binaries.guidance import CONTROLLER_MANAGER_MISSING, WAYS_OUT
from opgen.testing.binaries.versions import KubernetesVersion

__all__ = [
    "ASSETS_ENV",
    "BINARY_ENV",
    "KUBECTL_ENV",
    "BinariesNotFound",
    "ControllerManagerMissing",
    "find_binaries",
    "from_cache",
    "from_environment",
    "require_controller_manager",
]

ASSETS_ENV = "KUBEBUILDER_ASSETS"
BINARY_ENV = {
    "kube-apiserver": "TEST_ASSET_KUBE_APISERVER",
    "etcd": "TEST_ASSET_ETCD",
    "kube-controller-manager": "TEST_ASSET_KUBE_CONTROLLER_MANAGER",
}
KUBECTL_ENV = "TEST_ASSET_KUBECTL"


class BinariesNotFound(EnvtestError):
    """No binaries where they are looked for; tests skip on this unless envtest is required."""


class ControllerManagerMissing(BinariesNotFound):
    """The set has no kube-controller-manager, and the test or command needs one."""


def require_controller_manager(binaries: Binaries) -> Path:
    """The set's kube-controller-manager, or `ControllerManagerMissing` saying how to get one."""
    if binaries.kube_controller_manager is None:
        raise ControllerManagerMissing(
            "kube-controller-manager is not among the envtest binaries "
            f"(found via {binaries.source}: {binaries.directory})",
            hint=CONTROLLER_MANAGER_MISSING,
        )
    return binaries.kube_controller_manager


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def from_environment(env: Mapping[str, str]) -> Binaries | None:
    """Binaries named by `TEST_ASSET_*` / `KUBEBUILDER_ASSETS`, or None when unset.

    A variable that is set but points at nothing is an error, never silently
    skipped: the user asked for that binary. kube-controller-manager is
    optional in an assets directory (setup-envtest's sets have none).
    """
    assets = env.get(ASSETS_ENV) or None
    explicit = {
        name: env.get(variable) or None for name, variable in BINARY_ENV.items()
    }
    if assets is None and not any(explicit.values()):
        return None
    chosen: dict[str, Path | None] = {}
    for name, variable in BINARY_ENV.items():
        named = explicit[name]
        if named is not None:
            path = Path(named).expanduser()
            if not _is_executable(path):
                raise EnvtestError(
                    f"{variable}={named} is not an executable file",
                    hint=f"point {variable} at the {name} binary, or unset it",
                )
            chosen[name] = path.absolute()
        elif assets is not None:
            path = Path(assets).expanduser() / name
            if _is_executable(path):
                chosen[name] = path.absolute()
            elif name == "kube-controller-manager":
                chosen[name] = None
            else:
                raise EnvtestError(
                    f"{ASSETS_ENV}={assets} has no executable {name}",
                    hint=f"point {ASSETS_ENV} at a directory with kube-apiserver and etcd, "
                    f"or set {variable}",
                )
        else:
            chosen[name] = None
    missing = [
        BINARY_ENV[name] for name in ("kube-apiserver", "etcd") if chosen[name] is None
    ]
    if missing:
        raise EnvtestError(
            f"{', '.join(missing)} not set (and no {ASSETS_ENV})",
            hint=f"set {ASSETS_ENV} to a directory with the binaries, or each TEST_ASSET_* variable",
        )
    apiserver = chosen["kube-apiserver"]
    etcd = chosen["etcd"]
    assert apiserver is not None and etcd is not None
    kubectl = _kubectl_from_environment(env, assets)
    return Binaries(
        kube_apiserver=apiserver,
        etcd=etcd,
        kube_controller_manager=chosen["kube-controller-manager"],
        directory=Path(assets).expanduser().absolute() if assets else apiserver.parent,
        source="environment",
        kubectl=kubectl,
    )


def _kubectl_from_environment(
    env: Mapping[str, str], assets: str | None
) -> Path | None:
    named = env.get(KUBECTL_ENV) or None
    if named is not None:
        path = Path(named).expanduser()
        if not _is_executable(path):
            raise EnvtestError(
                f"{KUBECTL_ENV}={named} is not an executable file",
                hint=f"point {KUBECTL_ENV} at a kubectl binary, or unset it",
            )
        return path.absolute()
    if assets is not None:
        path = Path(assets).expanduser() / "kubectl"
        if _is_executable(path):
            return path.absolute()
    return None


def from_cache(root: Path, version: KubernetesVersion) -> Binaries | None:
    """The cached set for `version`, or None unless kube-apiserver and etcd are there.

    kube-controller-manager (a build's) and kubectl (a download's) are taken
    when present.
    """
    directory = cache.version_dir(root, str(version))
    if not all(_is_executable(directory / name) for name in cache.BINARY_NAMES):
        return None
    optional = {
        name: directory / name if _is_executable(directory / name) else None
        for name in cache.OPTIONAL_BINARY_NAMES
    }
    return Binaries(
        kube_apiserver=directory / "kube-apiserver",
        etcd=directory / "etcd",
        kube_controller_manager=optional["kube-controller-manager"],
        directory=directory,
        source="cache",
        kubectl=optional["kubectl"],
    )


def find_binaries(
    version: KubernetesVersion, env: Mapping[str, str], root: Path | None = None
) -> Binaries:
    """Environment variables, then the cache; `BinariesNotFound` otherwise (no build)."""
    found = from_environment(env)
    if found is not None:
        return found
    root = root if root is not None else cache.cache_root(env)
    cached = from_cache(root, version)
    if cached is not None:
        return cached
    raise BinariesNotFound(
        f"no envtest binaries for Kubernetes {version}: {ASSETS_ENV} is not set and "
        f"{cache.version_dir(root, str(version))} does not hold kube-apiserver and etcd",
        hint="run `opgen envtest use` (or `make envtest`) to download or build them "
        f"once; or {WAYS_OUT}",
    )
