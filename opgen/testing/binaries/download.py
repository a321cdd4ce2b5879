"""Downloading a prebuilt envtest archive into a staging directory, the way setup-envtest does.

Reads the index (`releases`), downloads the archive for this platform while
hashing it, refuses it unless its SHA-512 matches the index, unpacks the
regular files by their base names (kube-apiserver, etcd, kubectl) and runs
`--version` on them. The caller (`obtain`) holds the cache lock and renames
the result into place; a failure leaves only the staging directory, which
the caller removes.

Unreachable hosts and missing archives raise `DownloadUnavailable` (the
caller may build instead); a body cut short or a checksum that does not
match raise `EnvtestError`: something is wrong that a build would hide.
"""

from __future__ import annotations

import asyncio
import hashlib
import shutil
import tarfile
from collections.abc import Callable
from pathlib import Path

import aiohttp

from opgen.errors import EnvtestError
from opgen.testing.binaries.binaryset import Binaries, verify_binaries
from opgen.testing.binaries.releases import (
    INDEX_URL_ENV,
    Archive,
    DownloadUnavailable,
    current_platform,
    pick_archive,
)
from opgen.testing.binaries.versions import KubernetesVersion

__all__ = ["ARCHIVE_BINARIES", "download_into"]

ARCHIVE_BINARIES = ("kube-apiserver", "etcd", "kubectl")
_CHUNK = 1 << 20
# Connecting fails fast where the host is unreachable; a stalled body fails
# after a minute without a byte, however long the whole download takes.
_TIMEOUT = aiohttp.ClientTimeout(total=None, sock_connect=15, sock_read=60)


def download_into(
    version: KubernetesVersion,
    staging: Path,
    index_url: str,
    progress: Callable[[str], None],
    platform: tuple[str, str] | None = None,
) -> Path:
    """Download, verify and unpack the archive for `version`; return its bin directory."""
    os_name, arch = platform if platform is not None else current_platform()
    archive_file = staging / "archive.tar.gz"
    archive = asyncio.run(
        _fetch(version, index_url, os_name, arch, archive_file, progress)
    )
    bin_dir = staging / "bin"
    _unpack(archive, archive_file, bin_dir)
    archive_file.unlink()
    progress("verifying the binaries (--version)")
    verify_binaries(
        Binaries(
            kube_apiserver=bin_dir / "kube-apiserver",
            etcd=bin_dir / "etcd",
            kube_controller_manager=None,
            directory=bin_dir,
            source="download",
            kubectl=bin_dir / "kubectl" if (bin_dir / "kubectl").is_file() else None,
        ),
        version,
    )
    return bin_dir


async def _fetch(
    version: KubernetesVersion,
    index_url: str,
    os_name: str,
    arch: str,
    archive_file: Path,
    progress: Callable[[str], None],
) -> Archive:
    async with aiohttp.ClientSession(timeout=_TIMEOUT, trust_env=True) as session:
        progress(f"reading the envtest index {index_url}")
        index_text = await _get_text(session, index_url)
        archive = pick_archive(index_text, index_url, version, os_name, arch)
        progress(f"downloading {archive.url}")
        await _get_file(session, archive, archive_file)
    return archive


def _unreachable(url: str, error: BaseException) -> DownloadUnavailable:
    reason = str(error) or type(error).__name__
    return DownloadUnavailable(
        f"cannot reach {url}: {reason}",
        hint=f"for a mirror, set --index-url or ${INDEX_URL_ENV}",
    )


async def _get_text(session: aiohttp.ClientSession, url: str) -> str:
    try:
        async with session.get(url) as response:
            if response.status != 200:
                raise DownloadUnavailable(
                    f"{url} answered HTTP {response.status} {response.reason or ''}".rstrip(),
                    hint=f"for a mirror, set --index-url or ${INDEX_URL_ENV}",
                )
            return await response.text()
    except (aiohttp.ClientConnectionError, asyncio.TimeoutError) as error:
        raise _unreachable(url, error) from error


async def _get_file(
    session: aiohttp.ClientSession, archive: Archive, target: Path
) -> None:
    """Stream `archive` into `target`, then check its length and SHA-512."""
    digest = hashlib.sha512()
    received = 0
    try:
        async with session.get(archive.url) as response:
            if response.status != 200:
                raise DownloadUnavailable(
                    f"{archive.url} answered HTTP {response.status} "
                    f"{response.reason or ''}".rstrip()
                )
            with target.open("wb") as out:
                try:
                    async for chunk in response.content.iter_chunked(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
                        received += len(chunk)
                except (
                    aiohttp.ClientPayloadError,
                    aiohttp.ClientConnectionError,
                    asyncio.TimeoutError,
                ) as error:
                    expected = (
                        f" of {response.content_length}"
                        if response.content_length is not None
                        else ""
                    )
                    raise EnvtestError(
                        f"the download of {archive.url} broke off after {received}"
                        f"{expected} bytes: {str(error) or type(error).__name__}",
                        hint="run `opgen envtest use` again, or `--source build` to "
                        "build the binaries with Go",
                    ) from error
    except (aiohttp.ClientConnectionError, asyncio.TimeoutError) as error:
        raise _unreachable(archive.url, error) from error
    if digest.hexdigest() != archive.sha512:
        raise EnvtestError(
            f"{archive.name} from {archive.url} does not match the SHA-512 the index "
            f"lists (got {digest.hexdigest()[:16]}…, expected {archive.sha512[:16]}…); "
            "it was refused and nothing was installed",
            hint="the download or the mirror is corrupt or tampered with: check "
            f"--index-url / ${INDEX_URL_ENV}, or use `--source build`",
        )


def _unpack(archive: Archive, archive_file: Path, bin_dir: Path) -> None:
    """The archive's regular files, by base name, into `bin_dir` (executable)."""
    bin_dir.mkdir()
    try:
        with tarfile.open(archive_file, "r:gz") as tar:
            for member in tar:
                name = Path(member.name).name
                if not member.isreg() or name not in ARCHIVE_BINARIES:
                    continue
                source = tar.extractfile(member)
                if source is None:
                    continue
                with source, (bin_dir / name).open("wb") as out:
                    shutil.copyfileobj(source, out, _CHUNK)
                (bin_dir / name).chmod(0o755)
    except (tarfile.TarError, OSError, EOFError) as error:
        raise EnvtestError(
            f"cannot unpack {archive.name}: {error}",
            hint="use `--source build` to build the binaries with Go",
        ) from error
    missing = [
        name for name in ("kube-apiserver", "etcd") if not (bin_dir / name).is_file()
    ]
    if missing:
        raise EnvtestError(
            f"{archive.name} holds no {' and no '.join(missing)}",
            hint="use `--source build` to build the binaries with Go",
        )
