"""What a connection can cost the webhook server, and how it stops.

A slow or silent client costs one connection, never the server: connections
that send nothing, or a request head byte by byte (slow loris), are closed
once the server's read timeout has passed without a complete head, while
other clients are served. `stop()` closes idle keep-alive connections at once
instead of waiting for their timeout, answers reviews in flight, and cancels
those that outlast its shutdown timeout.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest

import opgen.api as op
from opgen import runtime as rt
from tests.webhook.handlers import PetDefaulter
from tests.webhook.kinds_v1 import Pet
from tests.webhook.serving import exchange, open_tls, review

MUTATE = "/mutate-webhook-opgen-dev-v1-pet"
SLOW_HEAD = (
    f"POST {MUTATE} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: {'a' * 2000}".encode()
)
"""A request head that never ends, sent a byte at a time (1/20 s apart: 100 s in all)."""


def pet_review(uid: str) -> bytes:
    return review(
        "AdmissionReview",
        {
            "uid": uid,
            "kind": {"group": "webhook.opgen.dev", "version": "v1", "kind": "Pet"},
            "operation": "CREATE",
            "name": "rex",
            "object": {
                "apiVersion": "webhook.opgen.dev/v1",
                "kind": "Pet",
                "metadata": {"name": "rex"},
                "spec": {"name": "rex"},
            },
        },
    )


async def start(*handlers: object, **timeouts: float) -> rt.webhook.WebhookServer:
    server = rt.webhook.WebhookServer(rt.WebhookOptions(host="127.0.0.1", port=0))
    for handler in handlers:
        server.add(handler)
    for name, seconds in timeouts.items():
        setattr(server, name, seconds)
    await server.start()
    return server


def port_of(server: rt.webhook.WebhookServer) -> int:
    assert server.address is not None
    return server.address[1]


@pytest.fixture
async def slow_server() -> AsyncIterator[rt.webhook.WebhookServer]:
    server = await start(PetDefaulter(), read_timeout=0.5, body_timeout=0.5)
    try:
        yield server
    finally:
        await server.stop()


async def _silent(port: int) -> float:
    """Connect, send nothing; seconds from connecting until the server closed the
    connection (counted from before the server could have seen it)."""
    loop = asyncio.get_running_loop()
    connecting = loop.time()
    reader, writer = await open_tls(port)
    try:
        assert await reader.read() == b""  # closed, without an answer
        return loop.time() - connecting
    finally:
        writer.close()


async def _slow_loris(port: int) -> tuple[bytes, int]:
    """Send `SLOW_HEAD` a byte at a time until the server closes the connection:
    what the server answered, and how many bytes had been sent."""
    reader, writer = await open_tls(port)
    closed = asyncio.ensure_future(reader.read())
    sent = 0
    try:
        while not closed.done() and sent < len(SLOW_HEAD):
            writer.write(SLOW_HEAD[sent : sent + 1])
            sent += 1
            await asyncio.wait({closed}, timeout=0.05)
        return await closed, sent
    finally:
        writer.close()


async def test_slow_and_silent_clients_cost_a_connection_never_the_server(
    slow_server: rt.webhook.WebhookServer,
) -> None:
    port = port_of(slow_server)
    silent = [asyncio.ensure_future(_silent(port)) for _ in range(50)]
    lorises = [asyncio.ensure_future(_slow_loris(port)) for _ in range(50)]

    reader, writer = await open_tls(port)
    status, _, body = await exchange(reader, writer, MUTATE, pet_review("u-1"))
    assert status == 200 and json.loads(body)["response"]["uid"] == "u-1"

    for waited in await asyncio.gather(*silent):
        assert waited >= slow_server.read_timeout  # not before the read timeout
    for answer, sent in await asyncio.gather(*lorises):
        assert answer == b""  # closed without an answer ...
        assert sent < len(SLOW_HEAD)  # ... before the head was complete
    assert await reader.read() == b""  # the served connection, idle, is closed too
    writer.close()

    reader, writer = await open_tls(port)
    status, _, _ = await exchange(reader, writer, MUTATE, pet_review("u-2"))
    assert status == 200
    writer.close()


async def test_a_slow_body_is_answered_408(
    slow_server: rt.webhook.WebhookServer,
) -> None:
    reader, writer = await open_tls(port_of(slow_server))
    writer.write(
        f"POST {MUTATE} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{".encode()
    )
    answer = await reader.read()
    writer.close()
    assert answer.startswith(b"HTTP/1.1 408 ")
    document = json.loads(answer.partition(b"\r\n\r\n")[2])
    assert document["kind"] == "AdmissionReview"
    assert "did not arrive in time" in document["response"]["status"]["message"]


async def test_stop_closes_keep_alive_connections_at_once_after_200_reviews() -> None:
    """200 concurrent reviews, one per connection, each connection kept alive after
    its answer (as the API server keeps them); then `stop()` must close them all
    and return within 2 s.

    The 2 s bound is the issue's requirement, and asserted because it is robust:
    - The read timeout (which would close idle connections) and the shutdown
      timeout (which would end reviews in flight) are an hour here, so a `stop()`
      that waits on either fails by an hour, not by a hair.
    - What `stop()` does do is close 200 sockets: 0.04-0.07 s of CPU, 0.11-0.33 s
      of wall time with the machine's two cores at a load average of 9 to 15
      (8 runs). Missing 2 s would take ten times that contention.
    The server it replaces could hang here for the 60 s of a lost cancellation.
    """
    server = await start(PetDefaulter(), read_timeout=3600, shutdown_timeout=3600)
    loop = asyncio.get_running_loop()
    try:
        port = port_of(server)
        connections = await asyncio.gather(*(open_tls(port) for _ in range(200)))
        answers = await asyncio.gather(
            *(
                exchange(reader, writer, MUTATE, pet_review(f"u-{index}"))
                for index, (reader, writer) in enumerate(connections)
            )
        )
        assert [status for status, _, _ in answers] == [200] * 200
        assert all(headers.get("connection") != "close" for _, headers, _ in answers)

        started = loop.time()
        await server.stop()
        stopped_in = loop.time() - started

        for reader, writer in connections:
            assert await reader.read() == b""  # every keep-alive connection closed
            writer.close()
        assert stopped_in < 2.0, f"stop() took {stopped_in:.2f} s"
    finally:
        await server.stop()


@op.webhook(Pet, mutating=True)
class Gated:
    """A defaulter that waits for `release` once `entered` is set."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    async def default(self, obj: Pet) -> None:
        self.entered.set()
        await self.release.wait()


async def test_stop_answers_a_review_in_flight() -> None:
    handler = Gated()
    server = await start(handler)
    http = server._http
    assert http is not None
    port = port_of(server)
    reader, writer = await open_tls(port)
    answer = asyncio.ensure_future(
        exchange(reader, writer, MUTATE, pet_review("u-flight"))
    )
    await handler.entered.wait()
    stopping = asyncio.ensure_future(server.stop())
    while http.serving:
        await asyncio.sleep(0)
    with pytest.raises(OSError):  # no longer listening ...
        await open_tls(port)
    assert not stopping.done()  # ... but waiting for the review in flight
    handler.release.set()
    status, _, body = await answer
    await stopping
    assert status == 200 and json.loads(body)["response"]["uid"] == "u-flight"
    assert await reader.read() == b""
    writer.close()


async def test_stop_cancels_a_review_that_outlasts_the_shutdown_timeout() -> None:
    handler = Gated()
    server = await start(handler, shutdown_timeout=0.1)
    reader, writer = await open_tls(port_of(server))
    answer = asyncio.ensure_future(
        exchange(reader, writer, MUTATE, pet_review("u-stuck"))
    )
    await handler.entered.wait()
    await server.stop()  # returns although the handler never would
    with pytest.raises(asyncio.IncompleteReadError):
        await answer  # closed without an answer: the API server's failurePolicy applies
    writer.close()
