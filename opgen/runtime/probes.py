"""A minimal HTTP/1.1 server for `/healthz`, `/readyz` and `/metrics`.

Plain asyncio streams: GET only, one response per connection, no keep-alive
— enough for kubelet probes and Prometheus scrapes, and no web framework in
the operator image. HTTP/1.1 only, over TLS too (ALPN offers `http/1.1`
alone), which keeps HTTP/2's rapid-reset and stream-cancellation attacks
(CVE-2023-44487, CVE-2023-39325) out by construction.

A check is an `async () -> None` that raises when unhealthy. A `Guard` sees
each request's method, path and headers before its route runs and may answer
instead (the metrics server's authentication and authorisation).
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

__all__ = [
    "Check",
    "Guard",
    "ProbeServer",
    "Request",
    "Response",
    "Route",
    "checks_route",
    "parse_bind_address",
]

log = logging.getLogger("opgen.runtime.probes")

Check = Callable[[], Awaitable[None]]
Response = tuple[int, str, bytes]
"""Status code, content type, body."""
Route = Callable[[], Awaitable[Response]]

_REASONS = {
    200: "OK",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    500: "Internal Server Error",
}
_MAX_HEADER_LINES = 100


@dataclass(frozen=True)
class Request:
    """What a guard sees of a request: method, path (no query), headers (lower-case names)."""

    method: str
    path: str
    headers: Mapping[str, str]


Guard = Callable[[Request], Awaitable[Response | None]]
"""Returns None to let the request through, or the response to send instead."""


def parse_bind_address(address: str) -> tuple[str, int] | None:
    """`":8080"` → ("0.0.0.0", 8080); `"127.0.0.1:0"` → any free port; `"0"` or `""` → disabled."""
    if address in ("", "0"):
        return None
    host, _, port = address.rpartition(":")
    return (host or "0.0.0.0", int(port))


def checks_route(checks: Mapping[str, Check]) -> Route:
    """A route answering 200 when every check passes, else 500 listing the failures."""

    async def route() -> Response:
        lines = []
        ok = True
        for name, check in sorted(checks.items()):
            try:
                await check()
                lines.append(f"[+]{name} ok")
            except Exception as exc:
                ok = False
                lines.append(f"[-]{name} failed: {exc}")
        lines.append("ok" if ok else "check failed")
        return (
            (200 if ok else 500),
            "text/plain; charset=utf-8",
            ("\n".join(lines) + "\n").encode(),
        )

    return route


class ProbeServer:
    """Serves routes on one address, over TLS when given an SSL context."""

    def __init__(
        self,
        host: str,
        port: int,
        routes: Mapping[str, Route],
        *,
        ssl_context: ssl.SSLContext | None = None,
        guard: Guard | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.routes = dict(routes)
        self.ssl_context = ssl_context
        self.guard = guard
        self._server: asyncio.base_events.Server | None = None

    @property
    def serving(self) -> bool:
        """Between `start()` and `stop()`; `port` is then the bound port."""
        return self._server is not None

    @property
    def scheme(self) -> str:
        return "https" if self.ssl_context is not None else "http"

    async def start(self) -> None:
        self._server = await asyncio.start_server(
            self._handle, self.host, self.port, ssl=self.ssl_context
        )
        self.port = self._server.sockets[0].getsockname()[1]
        log.info(
            "serving %s on %s://%s:%d",
            ", ".join(sorted(self.routes)),
            self.scheme,
            self.host,
            self.port,
        )

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def _read_request(self, reader: asyncio.StreamReader) -> Request | None:
        request_line = await asyncio.wait_for(reader.readline(), 10)
        headers: dict[str, str] = {}
        for _ in range(_MAX_HEADER_LINES):
            line = await asyncio.wait_for(reader.readline(), 10)
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        parts = request_line.decode("latin-1").split()
        if len(parts) < 2:
            return None
        return Request(parts[0], parts[1].split("?", 1)[0], headers)

    async def _respond(self, request: Request | None) -> Response:
        if request is None or request.method not in ("GET", "HEAD"):
            return 405, "text/plain", b"method not allowed\n"
        route = self.routes.get(request.path.rstrip("/") or "/")
        if route is None:
            return 404, "text/plain", b"not found\n"
        if self.guard is not None:
            refused = await self.guard(request)
            if refused is not None:
                return refused
        return await route()

    async def _handle(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        try:
            request = await self._read_request(reader)
            status, ctype, body = await self._respond(request)
            head = (
                f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\n"
                f"Content-Type: {ctype}\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            )
            send_body = request is not None and request.method != "HEAD"
            writer.write(head.encode("latin-1") + (body if send_body else b""))
            await writer.drain()
        except (asyncio.TimeoutError, ConnectionError, ssl.SSLError):
            pass
        except Exception:
            log.exception("error answering a request")
        finally:
            writer.close()
