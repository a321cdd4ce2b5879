"""A lean HTTP/1.1 client for one API server: the transport's hot path.

Why not httpx2: a controller sends thousands of small requests to one server,
and httpx2 (with httpcore and anyio beneath it) spent about 1.4 ms of CPU on
each, most of it in layers a controller does not need — its pool checks every
connection on every request, and each request passes client, auth, transport,
pool, connection and h11 state machines. This module is one layer on asyncio
streams: about 0.2 ms per request, TLS included (docs/runtime.md, "The HTTP
layer", has the measurements).

What it does, and no more:

- a pool of keep-alive connections to one origin, at most `max_connections`
  open; an idle one is taken last-in first-out, checked in O(1) (one that the
  server closed meanwhile is dropped), and every request that needs one more
  connection opens it (TLS with the given `ssl.SSLContext`);
- requests with a body of known length; answers with `Content-Length`,
  `Transfer-Encoding: chunked`, or read until the server closes;
  `Connection: close` and HTTP/1.0 answers are honoured;
- timeouts like httpx's: connecting (TCP and TLS), waiting for a free
  connection, writing, and each read (the head, a chunk, the body) may take
  at most `timeout` seconds; a stream's reads have their own limit (a watch);
- a request that finds its reused connection closed by the server before any
  byte of the answer arrived is sent again once on a new connection when it is
  idempotent (GET, HEAD, PUT, DELETE), as Go's net/http does;
- a failure without an answer raises `HTTPError` (`ConnectError`, `Timeout`,
  `ProtocolError`, `ConnectionClosed`).

Credentials are the transport's business (headers it passes in); this module
knows nothing of Kubernetes.
"""

from __future__ import annotations

import asyncio
import ssl
import sys
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TypeVar

__all__ = [
    "ConnectError",
    "ConnectionClosed",
    "HTTPError",
    "Origin",
    "Pool",
    "ProtocolError",
    "Stream",
    "Timeout",
]

T = TypeVar("T")

_IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
_NO_BODY_STATUS = frozenset({204, 304})
_MAX_HEAD = 1 << 16


class HTTPError(Exception):
    """A request that got no (complete) answer."""


class ConnectError(HTTPError):
    """The server could not be reached (refused, unresolvable, TLS failed)."""


class Timeout(HTTPError):
    """Connecting, waiting for a connection, writing or a read took too long."""


class ProtocolError(HTTPError):
    """The server's answer is not HTTP/1.1 this client understands."""


class ConnectionClosed(HTTPError):
    """The connection broke before the answer was complete."""


async def _within(awaitable: Awaitable[T], seconds: float | None, what: str) -> T:
    """`await awaitable`, raising `Timeout` after `seconds` (None: no limit)."""
    if seconds is None:
        return await awaitable
    try:
        if sys.version_info >= (3, 11):
            async with asyncio.timeout(seconds):
                return await awaitable
        return await asyncio.wait_for(awaitable, seconds)
    except asyncio.TimeoutError:
        raise Timeout(f"{what} took longer than {seconds:g}s") from None


@dataclass(frozen=True)
class Origin:
    """Where the server is: scheme, host and port."""

    scheme: str
    host: str
    port: int

    @property
    def host_header(self) -> str:
        default = 443 if self.scheme == "https" else 80
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == default else f"{host}:{self.port}"


class _Connection:
    __slots__ = ("reader", "reused", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader = reader
        self.writer = writer
        self.reused = False

    def usable(self) -> bool:
        """Still open: the server has not closed it, nothing unread is waiting."""
        return not (self.reader.at_eof() or self.writer.is_closing())

    def close(self) -> None:
        self.writer.close()


@dataclass
class _Head:
    status: int
    length: int | None
    chunked: bool
    keep_alive: bool


def _parse_head(raw: bytes) -> _Head:
    lines = raw.split(b"\r\n")
    status_line = lines[0]
    if not status_line.startswith(b"HTTP/1.") or len(status_line) < 12:
        raise ProtocolError(f"not an HTTP/1.x status line: {status_line[:80]!r}")
    try:
        status = int(status_line[9:12])
    except ValueError:
        raise ProtocolError(f"bad status line: {status_line[:80]!r}") from None
    head = _Head(status, None, False, status_line.startswith(b"HTTP/1.1"))
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            try:
                head.length = int(value)
            except ValueError:
                raise ProtocolError(f"bad Content-Length: {value[:40]!r}") from None
        elif name == b"transfer-encoding":
            head.chunked = b"chunked" in value.lower()
        elif name == b"connection":
            token = value.strip().lower()
            if token == b"close":
                head.keep_alive = False
            elif token == b"keep-alive":
                head.keep_alive = True
    return head


class Stream:
    """An answer whose body is read as it arrives (a watch)."""

    def __init__(
        self,
        status: int,
        connection: _Connection,
        head: _Head,
        read_timeout: float | None,
    ) -> None:
        self.status = status
        self._connection = connection
        self._head = head
        self._read_timeout = read_timeout
        self.complete = False
        """Whether the whole body was read (the connection may then be reused)."""

    async def _pieces(self) -> AsyncIterator[bytes]:
        reader, timeout = self._connection.reader, self._read_timeout
        try:
            if self._head.chunked:
                while True:
                    size_line = await _within(
                        reader.readuntil(b"\r\n"), timeout, "reading a chunk"
                    )
                    try:
                        size = int(size_line.split(b";", 1)[0], 16)
                    except ValueError:
                        raise ProtocolError(
                            f"bad chunk size: {size_line[:40]!r}"
                        ) from None
                    if size == 0:
                        while (
                            await _within(
                                reader.readuntil(b"\r\n"), timeout, "reading trailers"
                            )
                            != b"\r\n"
                        ):
                            pass
                        break
                    data = await _within(
                        reader.readexactly(size + 2), timeout, "reading a chunk"
                    )
                    yield data[:-2]
            elif self._head.length is not None:
                remaining = self._head.length
                while remaining:
                    data = await _within(
                        reader.read(min(remaining, 1 << 16)),
                        timeout,
                        "reading the body",
                    )
                    if not data:
                        raise ConnectionClosed(
                            "the server closed the connection mid-body"
                        )
                    remaining -= len(data)
                    yield data
            else:
                while data := await _within(
                    reader.read(1 << 16), timeout, "reading the body"
                ):
                    yield data
                self._head.keep_alive = False
        except (asyncio.IncompleteReadError, ConnectionError) as error:
            raise ConnectionClosed(
                f"the connection broke mid-answer: {error}"
            ) from error
        except asyncio.LimitOverrunError as error:
            raise ProtocolError(f"a chunk header is too long: {error}") from error
        self.complete = True

    async def read(self) -> bytes:
        """The whole body."""
        return b"".join([piece async for piece in self._pieces()])

    async def lines(self) -> AsyncIterator[str]:
        """The body line by line (split on `\\n`, a trailing `\\r` dropped), as it arrives."""
        pending = b""
        async for piece in self._pieces():
            pending += piece
            if b"\n" not in piece:
                continue
            *complete, pending = pending.split(b"\n")
            for line in complete:
                yield line.rstrip(b"\r").decode()
        if pending:
            yield pending.rstrip(b"\r").decode()


class Pool:
    """Keep-alive HTTP/1.1 connections to one origin."""

    def __init__(
        self,
        origin: Origin,
        ssl_context: ssl.SSLContext | None,
        *,
        max_connections: int,
        timeout: float,
    ) -> None:
        self.origin = origin
        self.timeout = timeout
        self._ssl = ssl_context if origin.scheme == "https" else None
        self._idle: list[_Connection] = []
        self._limit = max_connections
        self._slots: asyncio.Semaphore | None = None
        self._open: set[_Connection] = set()
        self.closed = False
        self.connections_opened = 0
        """How many connections this pool opened so far (each one a TLS handshake)."""

    def _semaphore(self) -> asyncio.Semaphore:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self._limit)
        return self._slots

    async def _connect(self) -> _Connection:
        origin = self.origin
        try:
            reader, writer = await _within(
                asyncio.open_connection(
                    origin.host,
                    origin.port,
                    ssl=self._ssl,
                    server_hostname=origin.host if self._ssl else None,
                ),
                self.timeout,
                f"connecting to {origin.host_header}",
            )
        except (OSError, ssl.SSLError) as error:
            raise ConnectError(
                f"cannot connect to {origin.host_header}: {error}"
            ) from error
        self.connections_opened += 1
        connection = _Connection(reader, writer)
        self._open.add(connection)
        return connection

    async def _acquire(self) -> _Connection:
        if self.closed:  # a programming error, as with httpx: no request after aclose()
            raise RuntimeError("cannot send a request: the client has been closed")
        slots = self._semaphore()
        if slots.locked():
            await _within(
                slots.acquire(), self.timeout, "waiting for a free connection"
            )
        else:
            await slots.acquire()
        while self._idle:
            connection = self._idle.pop()
            if connection.usable():
                connection.reused = True
                return connection
            self._discard(connection)
        try:
            return await self._connect()
        except BaseException:
            slots.release()
            raise

    def _discard(self, connection: _Connection) -> None:
        self._open.discard(connection)
        connection.close()

    def _release(self, connection: _Connection, reusable: bool) -> None:
        if reusable and not self.closed and connection.usable():
            self._idle.append(connection)
        else:
            self._discard(connection)
        self._semaphore().release()

    async def _send(
        self, connection: _Connection, head: bytes, body: bytes | None
    ) -> _Head:
        writer = connection.writer
        writer.write(head + body if body else head)
        await _within(writer.drain(), self.timeout, "sending the request")
        reader = connection.reader
        while True:
            try:
                raw = await _within(
                    reader.readuntil(b"\r\n\r\n"),
                    self.timeout,
                    "waiting for the answer",
                )
            except asyncio.LimitOverrunError as error:
                raise ProtocolError(
                    f"the answer's head is too long: {error}"
                ) from error
            if len(raw) > _MAX_HEAD:
                raise ProtocolError("the answer's head is too long")
            parsed = _parse_head(raw)
            if not 100 <= parsed.status < 200:
                return parsed

    def _head(
        self, method: str, target: str, headers: bytes, body: bytes | None
    ) -> bytes:
        lines = f"{method} {target} HTTP/1.1\r\nHost: {self.origin.host_header}\r\n"
        if body is not None:
            lines += f"Content-Length: {len(body)}\r\n"
        return lines.encode() + headers + b"\r\n"

    async def _start(
        self, method: str, target: str, headers: bytes, body: bytes | None
    ) -> tuple[_Connection, _Head]:
        """Send the request and read the answer's head (retrying once, see the module doc)."""
        head = self._head(method, target, headers, body)
        for attempt in (1, 2):
            connection = await self._acquire()
            try:
                return connection, await self._send(connection, head, body)
            except (asyncio.IncompleteReadError, ConnectionError, OSError) as error:
                self._release(connection, False)
                nothing_back = not isinstance(error, asyncio.IncompleteReadError) or (
                    not error.partial
                )
                if (
                    attempt == 1
                    and connection.reused
                    and nothing_back
                    and method in _IDEMPOTENT
                ):
                    continue
                raise ConnectionClosed(
                    f"the connection to {self.origin.host_header} broke: {error!r}"
                ) from error
            except BaseException:
                self._release(connection, False)
                raise
        raise AssertionError("unreachable")

    async def request(
        self, method: str, target: str, headers: bytes, body: bytes | None = None
    ) -> tuple[int, bytes]:
        """Send one request; its status and whole body.

        `target` is the path with its query; `headers` the header lines, each
        ending in CRLF (Host and Content-Length are added here).
        """
        connection, head = await self._start(method, target, headers, body)
        stream = Stream(head.status, connection, head, self.timeout)
        try:
            if method == "HEAD" or head.status in _NO_BODY_STATUS:
                data = b""
                stream.complete = True
            else:
                data = await stream.read()
        except BaseException:
            self._release(connection, False)
            raise
        self._release(connection, stream.complete and head.keep_alive)
        return head.status, data

    @asynccontextmanager
    async def stream(
        self,
        method: str,
        target: str,
        headers: bytes,
        *,
        read_timeout: float | None,
    ) -> AsyncIterator[Stream]:
        """Send one request and yield its answer as it arrives; released on exit
        (the connection is reused only if the whole body was read)."""
        connection, head = await self._start(method, target, headers, None)
        stream = Stream(head.status, connection, head, read_timeout)
        try:
            yield stream
        finally:
            self._release(connection, stream.complete and head.keep_alive)

    async def aclose(self) -> None:
        """Close every connection; later requests raise `RuntimeError`. Idempotent."""
        self.closed = True
        for connection in list(self._open):
            self._discard(connection)
        self._idle.clear()
