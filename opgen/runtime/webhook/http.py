"""The webhook server's HTTPS/1.1: requests in, reviews out, and no way to hang it.

Plain asyncio streams over TLS (1.2 or newer; ALPN offers `http/1.1` only),
with keep-alive, as the API server reuses its connections. Each request is
`POST <path>` with a `Content-Length` body of JSON; anything else is answered
with a 4xx and one log line, in the endpoint's own review format (a
`Status` for unknown paths), and the connection is closed:

| what | answer |
|---|---|
| request line or header not HTTP/1.x, header line too long | 400 |
| more than 100 header lines | 431 |
| unknown path | 404 |
| a method other than POST | 405 |
| `Transfer-Encoding` (chunked) or no `Content-Length` | 411 |
| a body over `max_request_bytes` (7 MiB, controller-runtime's limit) | 413 |
| a content type other than `application/json` | 415 |
| headers begun but not complete in time, or the body | 408 |

Every wait on the client has a timeout (`header_timeout` for a request's
head, `body_timeout` for its body, `idle_timeout` between requests on one
connection), so a slow or silent client costs a connection, never the server.
"""

from __future__ import annotations

import asyncio
import json
import logging
import ssl
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from opgen.runtime.metrics import Metrics
from opgen.runtime.webhook.review import Answer

__all__ = ["Endpoint", "HttpsServer"]

log = logging.getLogger("opgen.runtime.webhook")

_REASONS = {
    200: ("OK", ""),
    400: ("Bad Request", "BadRequest"),
    404: ("Not Found", "NotFound"),
    405: ("Method Not Allowed", "MethodNotAllowed"),
    408: ("Request Timeout", "Timeout"),
    411: ("Length Required", "BadRequest"),
    413: ("Payload Too Large", "RequestEntityTooLarge"),
    415: ("Unsupported Media Type", "UnsupportedMediaType"),
    431: ("Request Header Fields Too Large", "BadRequest"),
}
_MAX_HEADER_LINES = 100
_LINE_LIMIT = 16 * 1024


class Endpoint(Protocol):
    """What serves one path: reviews, and refusals in the same format."""

    async def review(self, body: bytes) -> Answer: ...

    def refusal(self, status: int, reason: str, message: str) -> Answer: ...


class _Refused(Exception):
    """A request the server answers with a 4xx, then closes the connection
    (whatever else the client sent cannot be trusted to frame a request)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class _Head:
    method: str
    path: str
    headers: Mapping[str, str]
    keep_alive: bool


class HttpsServer:
    """Serves endpoints by path on one address over TLS."""

    def __init__(
        self,
        host: str,
        port: int,
        endpoints: Mapping[str, Endpoint],
        ssl_context: ssl.SSLContext,
        metrics: Metrics,
        *,
        max_request_bytes: int,
        header_timeout: float = 10.0,
        body_timeout: float = 30.0,
        idle_timeout: float = 90.0,
    ) -> None:
        self.host = host
        self.port = port
        self.endpoints = dict(endpoints)
        self.ssl_context = ssl_context
        self.metrics = metrics
        self.max_request_bytes = max_request_bytes
        self.header_timeout = header_timeout
        self.body_timeout = body_timeout
        self.idle_timeout = idle_timeout
        self._server: asyncio.base_events.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()
        for path in self.endpoints:
            # Present from the start, as controller-runtime initialises them.
            for code in ("200", "500"):
                metrics.webhook_requests.labels(path, code)

    @property
    def serving(self) -> bool:
        return self._server is not None

    async def start(self) -> None:
        self._server = await asyncio.start_server(
            self._connection,
            self.host or None,
            self.port,
            ssl=self.ssl_context,
            limit=_LINE_LIMIT,
        )
        self.port = self._server.sockets[0].getsockname()[1]
        log.info(
            "serving webhooks %s on https://%s:%d",
            ", ".join(sorted(self.endpoints)),
            self.host or "0.0.0.0",
            self.port,
        )

    async def stop(self) -> None:
        if self._server is None:
            return
        self._server.close()
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)
        await self._server.wait_closed()
        self._server = None

    async def _connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        peer = _peer(writer)
        try:
            first = True
            while True:
                head: _Head | None = None
                try:
                    head = await self._read_head(reader, first=first)
                    if head is None:
                        return
                    first = False
                    status, document, keep = await self._serve(head, reader, writer)
                except _Refused as refused:
                    log.warning(
                        "webhook server: %d for %s %s from %s: %s",
                        refused.status,
                        head.method if head else "-",
                        head.path if head else "-",
                        peer,
                        refused.message,
                    )
                    endpoint = self.endpoints.get(head.path) if head else None
                    status, document = self._refusal(endpoint, refused)
                    keep = False
                    if endpoint is not None and head is not None:
                        self.metrics.webhook_requests.labels(
                            head.path, str(status)
                        ).inc()
                await _write(writer, status, document, keep=keep)
                if not keep:
                    return
        except (asyncio.TimeoutError, ConnectionError, ssl.SSLError, OSError):
            pass
        except asyncio.IncompleteReadError:
            pass
        except asyncio.CancelledError:
            # stop() ends the connection; the task is ours and ends here (asyncio's
            # stream callback would log a cancelled connection task as an error).
            pass
        except Exception:
            log.exception("webhook server: error on a connection from %s", peer)
        finally:
            self._connections.discard(task)
            writer.close()

    def _refusal(
        self, endpoint: Endpoint | None, refused: _Refused
    ) -> tuple[int, dict[str, object]]:
        reason = _REASONS.get(refused.status, ("Error", "BadRequest"))[1]
        if endpoint is None:
            return refused.status, {
                "apiVersion": "v1",
                "kind": "Status",
                "status": "Failure",
                "code": refused.status,
                "reason": reason,
                "message": refused.message,
            }
        answer = endpoint.refusal(refused.status, reason, refused.message)
        return answer.status, answer.document

    async def _read_head(
        self, reader: asyncio.StreamReader, *, first: bool
    ) -> _Head | None:
        """The next request's line and headers; None when the client closed cleanly."""
        wait = self.header_timeout if first else self.idle_timeout
        try:
            line = await asyncio.wait_for(reader.readline(), wait)
        except ValueError:
            raise _Refused(400, "the request line is too long") from None
        if not line:
            return None
        parts = line.decode("latin-1").rstrip("\r\n").split(" ")
        if len(parts) != 3 or parts[2] not in ("HTTP/1.1", "HTTP/1.0"):
            raise _Refused(400, "not an HTTP/1.1 request line")
        method, target, version = parts
        headers: dict[str, str] = {}
        deadline = time.monotonic() + self.header_timeout
        for _ in range(_MAX_HEADER_LINES):
            try:
                raw = await asyncio.wait_for(
                    reader.readline(), max(0.0, deadline - time.monotonic())
                )
            except asyncio.TimeoutError:
                raise _Refused(
                    408, "the request's headers did not arrive in time"
                ) from None
            except ValueError:
                raise _Refused(400, "a header line is too long") from None
            if raw in (b"\r\n", b"\n"):
                break
            if not raw:
                raise asyncio.IncompleteReadError(raw, None)
            name, colon, value = raw.decode("latin-1").partition(":")
            if not colon or not name.strip() or name != name.strip():
                raise _Refused(400, "a header line is malformed")
            key = name.lower()
            if (
                key in headers
                and key == "content-length"
                and headers[key] != value.strip()
            ):
                raise _Refused(400, "conflicting Content-Length headers")
            headers[key] = value.strip()
        else:
            raise _Refused(431, f"more than {_MAX_HEADER_LINES} header lines")
        connection = headers.get("connection", "").lower()
        keep_alive = (
            connection != "close"
            if version == "HTTP/1.1"
            else connection == "keep-alive"
        )
        return _Head(method, target.split("?", 1)[0], headers, keep_alive)

    async def _serve(
        self,
        head: _Head,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> tuple[int, dict[str, object], bool]:
        endpoint = self.endpoints.get(head.path)
        if endpoint is None:
            raise _Refused(404, f"no webhook is served at {head.path}")
        body = await self._read_body(head, reader, writer)
        labels = (head.path,)
        in_flight = self.metrics.webhook_in_flight.labels(*labels)
        started = time.perf_counter()
        in_flight.inc()
        try:
            answer = await endpoint.review(body)
        finally:
            in_flight.dec()
            self.metrics.webhook_latency.labels(*labels).observe(
                time.perf_counter() - started
            )
        self.metrics.webhook_requests.labels(head.path, str(answer.status)).inc()
        return answer.status, answer.document, head.keep_alive

    async def _read_body(
        self,
        head: _Head,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> bytes:
        if head.method != "POST":
            raise _Refused(405, f"{head.method} is not allowed; webhooks take POST")
        if "transfer-encoding" in head.headers:
            raise _Refused(411, "send the body with a Content-Length, not chunked")
        length_text = head.headers.get("content-length")
        if length_text is None:
            raise _Refused(411, "the request has no Content-Length")
        if not length_text.isdigit() or not length_text.isascii():
            raise _Refused(400, f"Content-Length {length_text!r} is not a number")
        length = int(length_text)
        if length > self.max_request_bytes:
            raise _Refused(
                413,
                f"the body has {length} bytes; the limit is {self.max_request_bytes}",
            )
        media_type = head.headers.get("content-type", "").split(";", 1)[0].strip()
        if media_type.lower() != "application/json":
            raise _Refused(
                415,
                f"content type {media_type or '(none)'!r}; expected application/json",
            )
        if head.headers.get("expect", "").lower() == "100-continue":
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            await writer.drain()
        try:
            return await asyncio.wait_for(reader.readexactly(length), self.body_timeout)
        except asyncio.TimeoutError:
            raise _Refused(408, "the request's body did not arrive in time") from None


async def _write(
    writer: asyncio.StreamWriter, status: int, document: object, *, keep: bool
) -> None:
    body = json.dumps(document, separators=(",", ":")).encode()
    reason = _REASONS.get(status, ("Error", ""))[0]
    head = (
        f"HTTP/1.1 {status} {reason}\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
        f"Connection: {'keep-alive' if keep else 'close'}\r\n\r\n"
    )
    writer.write(head.encode("latin-1") + body)
    await writer.drain()


def _peer(writer: asyncio.StreamWriter) -> str:
    peer = writer.get_extra_info("peername")
    if isinstance(peer, tuple) and len(peer) >= 2:
        return f"{peer[0]}:{peer[1]}"
    return "unknown"
