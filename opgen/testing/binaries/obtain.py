"""Finding the binaries, or downloading (else building) them into the cache when missing.

What `opgen envtest use` runs. Test fixtures never download or build: they
use `opgen.testing.binaries.find_binaries`.

With `source="auto"` a prebuilt envtest archive is downloaded (kube-apiserver,
etcd, kubectl); when none can be had (no archive for this version or
platform, the index or archive host unreachable) the set is built with Go
instead. A download that breaks off or fails its checksum is an error, not a
reason to build: it says something is wrong. kube-controller-manager is not in
the archives; `controller_manager=True` builds it into the cached set when the
set lacks it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Literal

from opgen.errors import EnvtestError
from opgen.testing.binaries import build, cache, download
from opgen.testing.binaries.binaryset import Binaries, verify_binaries
from opgen.testing.binaries.guidance import CONTROLLER_MANAGER_MISSING
from opgen.testing.binaries.locate import (
    ControllerManagerMissing,
    from_cache,
    from_environment,
)
from opgen.testing.binaries.releases import (
    DEFAULT_INDEX_URL,
    INDEX_URL_ENV,
    DownloadUnavailable,
)
from opgen.testing.binaries.versions import KubernetesVersion

__all__ = ["SOURCES", "Source", "index_url", "obtain_binaries"]

Source = Literal["auto", "download", "build"]
SOURCES: tuple[Source, ...] = ("auto", "download", "build")


def index_url(env: Mapping[str, str], override: str | None = None) -> str:
    """The envtest index: `override` (`--index-url`), else `$OPGEN_ENVTEST_INDEX_URL`,
    else controller-tools' own."""
    return override or env.get(INDEX_URL_ENV) or DEFAULT_INDEX_URL


def obtain_binaries(
    version: KubernetesVersion,
    env: Mapping[str, str],
    root: Path,
    progress: Callable[[str], None],
    *,
    source: Source = "auto",
    index: str | None = None,
    controller_manager: bool = False,
) -> Binaries:
    """Find the binaries, downloading or building them into the cache when missing.

    Safe when several processes call it at once: downloads and builds run
    under the cache's per-version lock and the others wait, then find the
    result.
    """
    found = from_environment(env)
    if found is not None:
        if controller_manager and found.kube_controller_manager is None:
            raise ControllerManagerMissing(
                "kube-controller-manager is not among the binaries the environment "
                f"names ({found.directory})",
                hint="set TEST_ASSET_KUBE_CONTROLLER_MANAGER, or unset "
                "KUBEBUILDER_ASSETS and TEST_ASSET_* to use the cache; "
                + CONTROLLER_MANAGER_MISSING,
            )
        return found
    cached = from_cache(root, version)
    if cached is not None and (
        cached.kube_controller_manager is not None or not controller_manager
    ):
        verify_binaries(cached, version)
        return cached
    with cache.locked(root, str(version), on_wait=progress):
        made = None
        if from_cache(root, version) is None:
            made = _install_set(version, env, root, progress, source, index)
        cached = from_cache(root, version)
        if cached is None:
            raise EnvtestError(f"no complete set was left in {root}/{version}")
        if controller_manager and cached.kube_controller_manager is None:
            _add_controller_manager(version, env, root, progress)
            made = made or "build"
            cached = from_cache(root, version)
            assert cached is not None
    if made is None:
        verify_binaries(cached, version)
        return cached
    return Binaries(
        kube_apiserver=cached.kube_apiserver,
        etcd=cached.etcd,
        kube_controller_manager=cached.kube_controller_manager,
        directory=cached.directory,
        source=made,
        kubectl=cached.kubectl,
    )


def _install_set(
    version: KubernetesVersion,
    env: Mapping[str, str],
    root: Path,
    progress: Callable[[str], None],
    source: Source,
    index: str | None,
) -> str:
    """Download (else build) a set into staging, then rename it into place; how it came."""
    target = cache.version_dir(root, str(version))
    with cache.stage_dir(root, str(version)) as staging:
        if source != "build":
            attempt = staging / "download"
            attempt.mkdir()
            try:
                staged = download.download_into(
                    version, attempt, index_url(env, index), progress
                )
            except DownloadUnavailable as unavailable:
                if source == "download":
                    raise
                progress(
                    f"{unavailable.message}; building the binaries with Go instead "
                    "(--source download makes this an error)"
                )
            else:
                cache.install_staged(staged, target)
                return "download"
        attempt = staging / "build"
        attempt.mkdir()
        staged = build.build_into(version, attempt, env, progress)
        cache.install_staged(staged, target)
        return "build"


def _add_controller_manager(
    version: KubernetesVersion,
    env: Mapping[str, str],
    root: Path,
    progress: Callable[[str], None],
) -> None:
    progress(
        "kube-controller-manager is not in the cached set (the envtest archives do "
        "not carry it); building it with Go"
    )
    with cache.stage_dir(root, str(version)) as staging:
        binary = build.build_controller_manager_into(version, staging, env, progress)
        cache.install_binary(binary, cache.version_dir(root, str(version)))
