"""Finding kube-apiserver, etcd and kube-controller-manager.

Order, the same conventions controller-runtime's envtest follows:

1. `TEST_ASSET_KUBE_APISERVER`, `TEST_ASSET_ETCD`,
   `TEST_ASSET_KUBE_CONTROLLER_MANAGER` (one binary each), and
   `KUBEBUILDER_ASSETS` (a directory) for the ones not named that way;
2. the cache, `<cache root>/<version>/` (see `opgen.testing.cache`);
3. a build (`opgen.testing.build`), only when the caller allows it
   (`opgen envtest use` does; test fixtures never start a build).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from opgen.errors import EnvtestError
from opgen.testing import cache
from opgen.testing.commands import version_output
from opgen.testing.guidance import WAYS_OUT
from opgen.testing.versions import (
    ETCD_MIN_VERSION,
    KubernetesVersion,
    parse_etcd_version,
)

__all__ = [
    "ASSETS_ENV",
    "BINARY_ENV",
    "Binaries",
    "BinariesNotFound",
    "find_binaries",
    "from_cache",
    "from_environment",
    "obtain_binaries",
    "verify_binaries",
    "verify_etcd",
]

ASSETS_ENV = "KUBEBUILDER_ASSETS"
BINARY_ENV = {
    "kube-apiserver": "TEST_ASSET_KUBE_APISERVER",
    "etcd": "TEST_ASSET_ETCD",
    "kube-controller-manager": "TEST_ASSET_KUBE_CONTROLLER_MANAGER",
}


class BinariesNotFound(EnvtestError):
    """No binaries where they are looked for; tests skip on this unless envtest is required."""


@dataclass(frozen=True)
class Binaries:
    """One set of control-plane binaries and where it came from."""

    kube_apiserver: Path
    etcd: Path
    kube_controller_manager: Path | None
    directory: Path
    """What `KUBEBUILDER_ASSETS` would point at (the kube-apiserver's directory)."""
    source: str
    """"environment", "cache" or "build"."""

    def as_dict(self) -> dict[str, Path | None]:
        return {
            "kube-apiserver": self.kube_apiserver,
            "etcd": self.etcd,
            "kube-controller-manager": self.kube_controller_manager,
        }


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


def obtain_binaries(
    version: KubernetesVersion,
    env: Mapping[str, str],
    root: Path,
    progress: Callable[[str], None],
) -> Binaries:
    """Find the binaries, building them into the cache when they are missing.

    Safe when several processes call it at once: the build runs under the
    cache's per-version lock and the others wait, then find the result.
    """
    found = from_environment(env)
    if found is not None:
        return found
    cached = from_cache(root, version)
    if cached is not None:
        verify_binaries(cached, version)
        return cached
    from opgen.testing.build import build_into

    with cache.locked(root, str(version), on_wait=progress):
        cached = from_cache(root, version)
        if cached is None:
            with cache.stage_dir(root, str(version)) as staging:
                staged_bin = build_into(version, staging, env, progress)
                cache.install_staged(staged_bin, cache.version_dir(root, str(version)))
            cached = from_cache(root, version)
            if cached is None:
                raise EnvtestError(
                    f"the build did not leave a complete set in {root}/{version}"
                )
            return Binaries(
                kube_apiserver=cached.kube_apiserver,
                etcd=cached.etcd,
                kube_controller_manager=cached.kube_controller_manager,
                directory=cached.directory,
                source="build",
            )
    verify_binaries(cached, version)
    return cached
