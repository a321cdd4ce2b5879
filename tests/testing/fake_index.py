"""A local envtest index and archive server (aiohttp.web on 127.0.0.1) for download tests.

Serves `/envtest-releases.yaml` and the archives it lists, the way
controller-tools' index and release assets are laid out; nothing reaches the
internet. Archives are made of the fake binaries of `tests.testing.fakes`.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import socket
import tarfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from aiohttp import web

from opgen.testing.binaries.releases import current_platform
from opgen.testing.binaries.versions import KUBERNETES_VERSION
from opgen.testing.managers import left_tasks_cancelled
from tests.testing.fakes import fake_binary, fake_set

__all__ = [
    "ArchiveServer",
    "archive_of",
    "closed_port_url",
    "envtest_archive",
    "serve",
]

INDEX_PATH = "/envtest-releases.yaml"


def envtest_archive(work: Path, version: str = KUBERNETES_VERSION) -> bytes:
    """A .tar.gz laid out like controller-tools' (`controller-tools/envtest/<binary>`)."""
    binaries = fake_set(work / "archive-source", controller_manager=False)
    fake_binary(binaries / "kubectl", f"Client Version: v{version}")
    return archive_of(
        {name: binaries / name for name in ("etcd", "kube-apiserver", "kubectl")}
    )


def archive_of(binaries: dict[str, Path], compresslevel: int = 9) -> bytes:
    """`binaries` (archive name: file) as controller-tools packs them."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=compresslevel) as tar:
        directory = tarfile.TarInfo("controller-tools/envtest")
        directory.type = tarfile.DIRTYPE
        directory.mode = 0o755
        tar.addfile(directory)
        for name, path in binaries.items():
            tar.add(path, arcname=f"controller-tools/envtest/{name}")
    return buffer.getvalue()


@dataclass
class ArchiveServer:
    """What the server serves, and which paths were asked for."""

    base_url: str = ""
    archives: dict[str, bytes] = field(default_factory=dict)
    """Archive bytes by file name, served under `/download/`."""
    index: str = ""
    cut_off: set[str] = field(default_factory=set)
    """Archive names whose body stops half-way (the connection is closed)."""
    requested: list[str] = field(default_factory=list)

    @property
    def index_url(self) -> str:
        return self.base_url + INDEX_PATH

    def publish(
        self,
        archive: bytes,
        *,
        version: str = KUBERNETES_VERSION,
        platforms: list[tuple[str, str]] | None = None,
        listed_hash: str | None = None,
        served: bytes | None = None,
    ) -> str:
        """List `archive` for `version` on `platforms` (default: this machine's).

        `listed_hash` replaces the archive's real SHA-512 in the index;
        `served` replaces the bytes served. Returns the archive's name for
        this machine.
        """
        releases: dict[str, dict[str, dict[str, str]]] = {}
        if self.index:
            releases = yaml.safe_load(self.index)["releases"]
        entries = releases.setdefault(f"v{version}", {})
        for os_name, arch in (
            platforms if platforms is not None else [current_platform()]
        ):
            name = f"envtest-v{version}-{os_name}-{arch}.tar.gz"
            entries[name] = {
                "hash": listed_hash or hashlib.sha512(archive).hexdigest(),
                "selfLink": f"{self.base_url}/download/{name}",
            }
            self.archives[name] = served if served is not None else archive
        self.index = yaml.safe_dump({"releases": releases})
        os_name, arch = current_platform()
        return f"envtest-v{version}-{os_name}-{arch}.tar.gz"

    async def _index(self, request: web.Request) -> web.Response:
        self.requested.append(request.path)
        return web.Response(text=self.index, content_type="application/x-yaml")

    async def _archive(self, request: web.Request) -> web.StreamResponse:
        self.requested.append(request.path)
        name = request.match_info["name"]
        body = self.archives.get(name)
        if body is None:
            raise web.HTTPNotFound()
        response = web.StreamResponse()
        response.content_length = len(body)
        response.content_type = "application/gzip"
        await response.prepare(request)
        if name in self.cut_off:
            await response.write(body[: len(body) // 2])
            assert request.transport is not None
            request.transport.close()
            return response
        await response.write(body)
        await response.write_eof()
        return response

    def application(self) -> web.Application:
        app = web.Application()
        app.router.add_get(INDEX_PATH, self._index)
        app.router.add_get("/download/{name}", self._archive)
        return app


@contextmanager
def serve() -> Iterator[ArchiveServer]:
    """An `ArchiveServer` listening on 127.0.0.1 (its own event loop, in a thread)."""
    server = ArchiveServer()
    loop = asyncio.new_event_loop()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    server.base_url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    runner = web.AppRunner(server.application(), handle_signals=False)
    loop.run_until_complete(runner.setup())
    loop.run_until_complete(web.SockSite(runner, sock).start())
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result()
        asyncio.run_coroutine_threadsafe(left_tasks_cancelled(), loop).result()
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()


def closed_port_url() -> str:
    """An index URL on a loopback port nothing listens on: connections are refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}{INDEX_PATH}"
