"""Finding kube-apiserver, etcd and kube-controller-manager.

Order, the same conventions controller-runtime's envtest follows:

1. `TEST_ASSET_KUBE_APISERVER`, `TEST_ASSET_ETCD`,
   `TEST_ASSET_KUBE_CONTROLLER_MANAGER` (one binary each), and
   `KUBEBUILDER_ASSETS` (a directory) for the ones not named that way;
2. the cache, `<cache root>/<version>/` (see `opgen.testing.binaries.cache`);
3. a build, only when the caller allows it: `obtain.obtain_binaries` (what
   `opgen envtest use` runs); test fixtures never start a build.

Nothing here builds: this is what a control plane uses to find its binaries.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from opgen.errors import EnvtestError
from opgen.testing.binaries import cache
from opgen.testing.binaries.binaryset import Binaries
from opgen.testing.binaries.guidance import WAYS_OUT
from opgen.testing.binaries.versions import KubernetesVersion

__all__ = [
    "ASSETS_ENV",
    "BINARY_ENV",
    "BinariesNotFound",
    "find_binaries",
    "from_cache",
    "from_environment",
]

ASSETS_ENV = "KUBEBUILDER_ASSETS"
BINARY_ENV = {
    "kube-apiserver": "TEST_ASSET_KUBE_APISERVER",
    "etcd": "TEST_ASSET_ETCD",
    "kube-controller-manager": "TEST_ASSET_KUBE_CONTROLLER_MANAGER",
}


class BinariesNotFound(EnvtestError):
    """No binaries where they are looked for; tests skip on this unless envtest is required."""


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
    return Binaries(
        kube_apiserver=apiserver,
        etcd=etcd,
        kube_controller_manager=chosen["kube-controller-manager"],
        directory=Path(assets).expanduser().absolute() if assets else apiserver.parent,
        source="environment",
    )


def from_cache(root: Path, version: KubernetesVersion) -> Binaries | None:
    """The cached set for `version`, or None unless all three binaries are there."""
    directory = cache.version_dir(root, str(version))
    paths = {name: directory / name for name in cache.BINARY_NAMES}
    if not all(_is_executable(path) for path in paths.values()):
        return None
    return Binaries(
        kube_apiserver=paths["kube-apiserver"],
        etcd=paths["etcd"],
        kube_controller_manager=paths["kube-controller-manager"],
        directory=directory,
        source="cache",
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
        f"{cache.version_dir(root, str(version))} does not hold kube-apiserver, etcd and "
        "kube-controller-manager",
        hint=f"run `opgen envtest use` (or `make envtest`) to build them once; or {WAYS_OUT}",
    )
