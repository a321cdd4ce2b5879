"""A webhook server in a thread of its own, and a plain HTTPS client for it.

For the tests that talk to the server directly (no API server): the server
runs on its own event loop, so synchronous tests (hypothesis included) can
send it requests with `http.client` over TLS, one connection reused while the
server keeps it open.
"""

from __future__ import annotations

import asyncio
import functools
import http.client
import json
import socket
import ssl
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from opgen import runtime as rt
from opgen.runtime.metrics import Metrics
from opgen.testing.managers import left_tasks_cancelled


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class ServerThread:
    """`rt.webhook.WebhookServer` serving `handlers` on 127.0.0.1 in a thread."""

    def __init__(self, *handlers: object, **options: Any) -> None:
        self.metrics = Metrics()
        self.server = rt.webhook.WebhookServer(
            rt.WebhookOptions(host="127.0.0.1", port=0, **options), self.metrics
        )
        for handler in handlers:
            self.server.add(handler)
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def call(self, function: Callable[[], Any]) -> Any:
        """Run the coroutine `function()` returns on the server's loop; its result."""
        future: Future[Any] = asyncio.run_coroutine_threadsafe(function(), self.loop)
        return future.result(timeout=60)

    def __enter__(self) -> ServerThread:
        self._thread.start()
        self.call(self.server.start)
        return self

    def __exit__(self, *exc: object) -> None:
        self.call(self.server.stop)
        self.call(left_tasks_cancelled)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=60)
        self.loop.close()

    @property
    def port(self) -> int:
        address = self.server.address
        assert address is not None
        return address[1]

    def context(self) -> ssl.SSLContext:
        """A new client context without verification (the certificate is self-signed)."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context

    def connection(self) -> http.client.HTTPSConnection:
        return http.client.HTTPSConnection(
            "127.0.0.1", self.port, context=self.context(), timeout=60
        )

    @contextmanager
    def raw(self) -> Iterator[ssl.SSLSocket]:
        """A TLS socket to the server, to send whatever bytes a test wants."""
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=60)
        with self.context().wrap_socket(sock) as tls:
            yield tls


class Client:
    """Posts to the server over one connection, reconnecting when it is closed."""

    def __init__(self, server: ServerThread) -> None:
        self.server = server
        self._connection: http.client.HTTPSConnection | None = None
        self.connections = 0

    def post(
        self,
        path: str,
        body: bytes,
        headers: dict[str, str] | None = None,
        *,
        method: str = "POST",
    ) -> Reply:
        if self._connection is None:
            self._connection = self.server.connection()
            self.connections += 1
        connection = self._connection
        connection.request(
            method,
            path,
            body=body,
            headers={"Content-Type": "application/json", **(headers or {})},
        )
        response = connection.getresponse()
        reply = Reply(
            response.status,
            {k.lower(): v for k, v in response.getheaders()},
            response.read(),
        )
        if reply.headers.get("connection") == "close":
            self.close()
        return reply

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


def review(kind: str, request: dict[str, Any]) -> bytes:
    """An AdmissionReview (kind="AdmissionReview") or ConversionReview body."""
    api_version = (
        "admission.k8s.io/v1"
        if kind == "AdmissionReview"
        else "apiextensions.k8s.io/v1"
    )
    return json.dumps(
        {"apiVersion": api_version, "kind": kind, "request": request}
    ).encode()


@functools.cache
def client_context() -> ssl.SSLContext:
    """TLS without verification: the servers under test use self-signed certificates."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


async def open_tls(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A TLS connection to a server on 127.0.0.1, for tests on the same event loop."""
    return await asyncio.open_connection("127.0.0.1", port, ssl=client_context())


async def exchange(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    path: str,
    body: bytes,
) -> tuple[int, dict[str, str], bytes]:
    """One JSON POST on an open connection: the answer's status, headers (lower-case
    names) and body. The connection stays open for the next one."""
    writer.write(
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    await writer.drain()
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
    status_line, *lines = head.split("\r\n")
    headers = {
        name.strip().lower(): value.strip()
        for name, _, value in (line.partition(":") for line in lines if line)
    }
    answer = await reader.readexactly(int(headers["content-length"]))
    return int(status_line.split(" ")[1]), headers, answer
