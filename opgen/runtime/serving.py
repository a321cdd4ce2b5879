"""The manager's HTTP servers, on aiohttp: one address, one handler, TLS or plain.

The webhook server and the metrics/probes server are built on `HttpServer`;
this is the one module that imports aiohttp's web server (an import-linter
contract), so handlers see only `Request` and answer with a `Response`.

aiohttp parses and writes HTTP/1.1 (HTTP/2 is not served: the TLS context
offers `http/1.1` alone in ALPN, and an HTTP/2 preface in clear text is a
400). Keep-alive is on. What a client can cost, and what it gets:

| the client | the server |
|---|---|
| never finishes the TLS handshake | closes the connection after `HANDSHAKE_TIMEOUT` (10 s) |
| sends nothing, or a request head slowly (slow loris) | closes the connection when the head is not complete `read_timeout` after the connection was set up or the previous answer sent |
| sends a body slowly | `Request.body()` raises `Refused(408)` after `body_timeout` |
| sends a body over `max_body_bytes` | `Request.body()` raises `Refused(413)`, unread |
| sends what is not HTTP/1.x, a line over 8 KiB, over 100 headers | 400 (aiohttp's answer), closed, one warning line |

So a slow or silent client costs one connection, never the server. `stop()`
closes the listener and every idle keep-alive connection at once, gives
requests in flight up to `shutdown_timeout` to be answered, then cancels them.

aiohttp's web server is imported by the first `start()`: a manager that serves
nothing (probes, metrics and webhooks off) does not load it.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp.http_exceptions import HttpProcessingError

if TYPE_CHECKING:
    from aiohttp import web

__all__ = ["Handler", "HttpServer", "Refused", "Request", "Response"]

MAX_HEADERS = 100
HANDSHAKE_TIMEOUT = 10.0
"""Seconds a client has to finish its TLS handshake. Apart from the read timeout, so
that a burst of connections on a busy machine is not cut off mid-handshake."""


class Refused(Exception):
    """A request the handler answers with `status` (a 4xx) and `message`."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


async def _no_body() -> bytes:
    return b""


@dataclass(frozen=True)
class Request:
    """What a handler sees of a request: method, path (no query), headers (names
    case-insensitive), the declared body length, the client's address, and the
    body on demand.

    `await request.body()` reads the whole body; it raises `Refused(413)` when the
    body is over the server's limit (checked before reading a declared length) and
    `Refused(408)` when it does not arrive within the server's body timeout.
    """

    method: str
    path: str
    headers: Mapping[str, str]
    content_length: int | None = None
    chunked: bool = False
    peer: str = "unknown"
    body: Callable[[], Awaitable[bytes]] = field(default=_no_body, repr=False)


@dataclass(frozen=True)
class Response:
    """Status, content type, body; `close` ends the connection after it."""

    status: int
    content_type: str
    body: bytes
    close: bool = False


Handler = Callable[[Request], Awaitable[Response]]


class HttpServer:
    """Serves `handler` on one address, over TLS when given an SSL context; see the
    module docstring for the timeouts and limits."""

    def __init__(
        self,
        host: str,
        port: int,
        handler: Handler,
        *,
        ssl_context: ssl.SSLContext | None = None,
        read_timeout: float,
        body_timeout: float = 30.0,
        max_body_bytes: int = 1024 * 1024,
        shutdown_timeout: float = 5.0,
        log: logging.Logger,
    ) -> None:
        self.host = host
        self.port = port
        self.handler = handler
        self.ssl_context = ssl_context
        self.read_timeout = read_timeout
        self.body_timeout = body_timeout
        self.max_body_bytes = max_body_bytes
        self.shutdown_timeout = shutdown_timeout
        self.log = log
        self._runner: web.AppRunner | None = None
        self._listener: asyncio.base_events.Server | None = None

    @property
    def serving(self) -> bool:
        """Between `start()` and `stop()`; `port` is then the bound port."""
        return self._listener is not None

    @property
    def scheme(self) -> str:
        return "https" if self.ssl_context is not None else "http"

    async def start(self) -> None:
        from aiohttp import web

        # One route for every path and method: the handler routes (and answers
        # unknown paths in its own format); aiohttp answers `Expect: 100-continue`.
        app = web.Application()
        app.router.add_route("*", "/{path:.*}", self._serve)
        runner = web.AppRunner(
            app,
            shutdown_timeout=self.shutdown_timeout,
            keepalive_timeout=self.read_timeout,
            max_headers=MAX_HEADERS,
            # A refused body is not drained for long: the answer is sent and the
            # connection closed soon after.
            lingering_time=1.0,
            access_log=None,
            logger=_ParserLog(self.log),
        )
        await runner.setup()
        assert runner.server is not None
        loop = asyncio.get_running_loop()
        try:
            # Listening ourselves rather than through a `web.TCPSite`, which does not
            # take a TLS handshake timeout.
            self._listener = await loop.create_server(
                runner.server,
                self.host or None,
                self.port,
                ssl=self.ssl_context,
                ssl_handshake_timeout=HANDSHAKE_TIMEOUT if self.ssl_context else None,
            )
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        self.port = self._listener.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """Stop listening, close idle connections, answer or cancel requests in flight."""
        listener, runner = self._listener, self._runner
        self._listener = self._runner = None
        if listener is not None:
            listener.close()
        if runner is not None:
            await runner.cleanup()

    async def _serve(self, raw: web.Request) -> web.StreamResponse:
        from aiohttp import web  # imported by start(): a lookup here

        if raw.version.major != 1:
            # aiohttp reads any HTTP/x.y request line with HTTP/1 framing; only 1.x is
            # served (HTTP/2's own preface is already a 400).
            response = web.Response(
                status=400,
                text=f"HTTP/{raw.version.major}.{raw.version.minor} "
                "is not served: HTTP/1.1 only\n",
            )
            response.force_close()
            return response
        request = Request(
            method=raw.method,
            path=raw.path,
            headers=raw.headers,
            content_length=raw.content_length,
            chunked="chunked" in raw.headers.get("Transfer-Encoding", "").lower(),
            peer=raw.remote or "unknown",
            body=lambda: self._read_body(raw),
        )
        answer = await self.handler(request)
        response = web.Response(
            status=answer.status,
            body=answer.body,
            headers={"Content-Type": answer.content_type},
        )
        if answer.close:
            response.force_close()
        return response

    async def _read_body(self, raw: web.Request) -> bytes:
        limit = self.max_body_bytes
        if raw.content_length is not None and raw.content_length > limit:
            raise Refused(
                413, f"the body has {raw.content_length} bytes; the limit is {limit}"
            )

        async def read() -> bytes:
            chunks: list[bytes] = []
            size = 0
            while chunk := await raw.content.readany():
                size += len(chunk)
                if size > limit:
                    raise Refused(413, f"the body is over the limit of {limit} bytes")
                chunks.append(chunk)
            return b"".join(chunks)

        try:
            return await asyncio.wait_for(read(), self.body_timeout)
        except asyncio.TimeoutError:
            raise Refused(408, "the request's body did not arrive in time") from None


class _ParserLog(logging.Logger):
    """How aiohttp's connection handler logs, told the server's way: a request it
    could not parse is the client's fault (one warning line, no traceback); any
    other failure is an error with its traceback."""

    def __init__(self, target: logging.Logger) -> None:
        super().__init__(target.name)
        self.target = target

    def exception(
        self, msg: object, *args: object, exc_info: Any = True, **kwargs: Any
    ) -> None:
        error = exc_info if isinstance(exc_info, BaseException) else sys.exc_info()[1]
        if isinstance(error, HttpProcessingError):
            reason = (error.message or "").strip().splitlines()[:1]
            self.target.warning(
                "400 for a malformed request (%s): %s",
                str(msg) % args,
                reason[0] if reason else error.code,
            )
        else:
            self.target.error(msg, *args, exc_info=exc_info, **kwargs)

    def debug(self, msg: object, *args: object, **kwargs: Any) -> None:
        self.target.debug(msg, *args, **kwargs)

    def warning(self, msg: object, *args: object, **kwargs: Any) -> None:
        self.target.warning(msg, *args, **kwargs)
