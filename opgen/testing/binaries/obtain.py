"""Finding the binaries, or building them into the cache when they are missing.

What `opgen envtest use` runs. Test fixtures never build: they use
`opgen.testing.binaries.find_binaries`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from opgen.errors import EnvtestError
from opgen.testing.binaries import build, cache
from opgen.testing.binaries.binaryset import Binaries, verify_binaries
from opgen.testing.binaries.locate import from_cache, from_environment
from opgen.testing.binaries.versions import KubernetesVersion

__all__ = ["obtain_binaries"]


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
    with cache.locked(root, str(version), on_wait=progress):
        cached = from_cache(root, version)
        if cached is None:
            with cache.stage_dir(root, str(version)) as staging:
                staged_bin = build.build_into(version, staging, env, progress)
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
