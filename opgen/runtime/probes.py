"""A minimal HTTP/1.1 server for `/healthz`, `/readyz` and `/metrics`.

Plain asyncio streams: GET only, one response per connection, no keep-alive
— enough for kubelet probes and Prometheus scrapes, and no web framework in
the operator image. A check is an `async () -> None` that raises when unhealthy.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping

__all__ = ["Check", "ProbeServer", "parse_bind_address"]

log = logging.getLogger("opgen.runtime.probes")

Check = Callable[[], Awaitable[None]]
Route = Callable[[], Awaitable[tuple[int, str, bytes]]]


def parse_bind_address(address: str) -> tuple[str, int] | None:
    """`":8080"` → ("0.0.0.0", 8080); `"127.0.0.1:0"` → any free port; `"0"` or `""` → disabled."""
    if address in ("", "0"):
        return None
    host, _, port = address.rpartition(":")
    return (host or "0.0.0.0", int(port))


def checks_route(checks: Mapping[str, Check]) -> Route:
    """A route answering 200 when every check passes, else 500 listing the failures."""

    async def route() -> tuple[int, str, bytes]:
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
    """Serves routes on one address."""

    def __init__(self, host: str, port: int, routes: Mapping[str, Route]) -> None:
        self.host = host
        self.port = port
        self.routes = dict(routes)
        self._server: asyncio.base_events.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        log.info(
            "serving %s on %s:%d", ", ".join(sorted(self.routes)), self.host, self.port
        )

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def _handle(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        try:
            request_line = await asyncio.wait_for(reader.readline(), 10)
            while (await asyncio.wait_for(reader.readline(), 10)) not in (
                b"\r\n",
                b"\n",
                b"",
            ):
                pass
            parts = request_line.decode("latin-1").split()
            path = parts[1].split("?", 1)[0] if len(parts) >= 2 else "/"
            route = self.routes.get(path.rstrip("/") or "/")
            if len(parts) < 2 or parts[0] not in ("GET", "HEAD"):
                status, ctype, body = 405, "text/plain", b"method not allowed\n"
            elif route is None:
                status, ctype, body = 404, "text/plain", b"not found\n"
            else:
                status, ctype, body = await route()
            reason = {200: "OK", 404: "Not Found", 405: "Method Not Allowed"}.get(
                status, "Error"
            )
            head = (
                f"HTTP/1.1 {status} {reason}\r\nContent-Type: {ctype}\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            )
            writer.write(
                head.encode("latin-1") + (body if parts and parts[0] != "HEAD" else b"")
            )
            await writer.drain()
        except (asyncio.TimeoutError, ConnectionError):
            pass
        finally:
            writer.close()
