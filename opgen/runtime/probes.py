"""The health probe and metrics server: `/healthz`, `/readyz`, `/metrics`.

`ProbeServer` serves a few GET routes on one address (`serving.HttpServer`,
aiohttp, over TLS when given an SSL context): kubelet probes and Prometheus
scrapes. HTTP/1.1 only, over TLS too (ALPN offers `http/1.1` alone), which
keeps HTTP/2's rapid-reset and stream-cancellation attacks (CVE-2023-44487,
CVE-2023-39325) out by construction. A path without a route is a 404, a method
other than GET or HEAD a 405; a connection idle for `read_timeout` (10 s) is
closed.

A check is an `async () -> None` that raises when unhealthy. A `Guard` sees
each request's method, path and headers before its route runs and may answer
instead (the metrics server's authentication and authorisation).
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Awaitable, Callable, Mapping

from opgen.runtime.serving import HttpServer, Request, Response

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
Route = Callable[[], Awaitable[Response]]
Guard = Callable[[Request], Awaitable[Response | None]]
"""Returns None to let the request through, or the response to send instead."""

_TEXT = "text/plain; charset=utf-8"


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
        return Response(200 if ok else 500, _TEXT, ("\n".join(lines) + "\n").encode())

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
        read_timeout: float = 10.0,
    ) -> None:
        self.routes = dict(routes)
        self.guard = guard
        self._http = HttpServer(
            host,
            port,
            self._respond,
            ssl_context=ssl_context,
            read_timeout=read_timeout,
            log=log,
        )

    @property
    def host(self) -> str:
        return self._http.host

    @property
    def port(self) -> int:
        """The port asked for; once serving, the bound port."""
        return self._http.port

    @property
    def serving(self) -> bool:
        """Between `start()` and `stop()`; `port` is then the bound port."""
        return self._http.serving

    @property
    def scheme(self) -> str:
        return self._http.scheme

    async def start(self) -> None:
        await self._http.start()
        log.info(
            "serving %s on %s://%s:%d",
            ", ".join(sorted(self.routes)),
            self.scheme,
            self.host,
            self.port,
        )

    async def stop(self) -> None:
        await self._http.stop()

    async def _respond(self, request: Request) -> Response:
        route = self.routes.get(request.path.rstrip("/") or "/")
        if route is None:
            return Response(404, _TEXT, b"not found\n")
        if request.method not in ("GET", "HEAD"):
            return Response(405, _TEXT, b"method not allowed\n")
        if self.guard is not None:
            refused = await self.guard(request)
            if refused is not None:
                return refused
        return await route()
