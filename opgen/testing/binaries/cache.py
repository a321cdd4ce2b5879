"""The envtest binary cache: where it lives, its lock, and atomic installs.

Layout: `<root>/<version>/{kube-apiserver,etcd}` plus, when the set has them,
`kube-controller-manager` (built) and `kubectl` (downloaded), with
`<root>` = `--bin-dir`, else `$OPGEN_ENVTEST_CACHE`, else
`$XDG_CACHE_HOME/opgen/envtest`, else `~/.cache/opgen/envtest`. A download or
a build goes into a hidden staging directory next to the version directory and
is renamed into place once verified (a kube-controller-manager added later is
renamed into the version directory the same way), under a per-version file lock, so two processes
never see (or produce) half a set.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from opgen.errors import EnvtestError

__all__ = [
    "BINARY_NAMES",
    "CACHE_ENV",
    "OPTIONAL_BINARY_NAMES",
    "cache_root",
    "install_binary",
    "install_staged",
    "locked",
    "stage_dir",
    "version_dir",
]

CACHE_ENV = "OPGEN_ENVTEST_CACHE"
BINARY_NAMES = ("kube-apiserver", "etcd")
"""What every cached set holds."""
OPTIONAL_BINARY_NAMES = ("kube-controller-manager", "kubectl")
"""What a cached set may hold: a build brings kube-controller-manager, a download kubectl."""


def cache_root(env: Mapping[str, str], bin_dir: Path | None = None) -> Path:
    """The directory holding one sub-directory per Kubernetes version."""
    if bin_dir is not None:
        return bin_dir.expanduser().absolute()
    configured = env.get(CACHE_ENV)
    if configured:
        return Path(configured).expanduser().absolute()
    xdg = env.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path(env.get("HOME") or Path.home()) / ".cache"
    return (base / "opgen" / "envtest").absolute()


def version_dir(root: Path, version: str) -> Path:
    return root / version


@contextlib.contextmanager
def locked(
    root: Path, version: str, on_wait: Callable[[str], None] | None = None
) -> Iterator[None]:
    """Hold the per-version lock of the cache (blocks while another process builds)."""
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise EnvtestError(
            f"cannot create the envtest cache directory {root}: {error}",
            hint=f"choose a writable directory with --bin-dir or ${CACHE_ENV}",
        ) from error
    lock_path = root / f".{version}.lock"
    with lock_path.open("a") as lock_file:
        try:
            fcntl.flock(lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait(
                    f"waiting for another process that is preparing {root / version} ..."
                )
            fcntl.flock(lock_file, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock_file, fcntl.LOCK_UN)


@contextlib.contextmanager
def stage_dir(root: Path, version: str) -> Iterator[Path]:
    """A fresh staging directory next to the version directory, removed afterwards.

    Call with the lock held: leftovers of crashed earlier builds are removed first.
    """
    for leftover in root.glob(f".{version}.staging-*"):
        shutil.rmtree(leftover, ignore_errors=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{version}.staging-", dir=root))
    try:
        yield staging
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def install_staged(staged_bin: Path, target: Path) -> None:
    """Move a verified set of binaries into place in one rename.

    An existing (necessarily incomplete) target is moved aside first; call with
    the lock held.
    """
    if target.exists():
        aside = target.with_name(f".{target.name}.replaced-{os.getpid()}")
        shutil.rmtree(aside, ignore_errors=True)
        target.rename(aside)
        shutil.rmtree(aside, ignore_errors=True)
    staged_bin.rename(target)


def install_binary(staged: Path, target_dir: Path) -> None:
    """Move one verified binary into an existing version directory in one rename.

    Call with the lock held; `staged` must be on the same file system
    (a staging directory under the cache root).
    """
    os.replace(staged, target_dir / staged.name)
