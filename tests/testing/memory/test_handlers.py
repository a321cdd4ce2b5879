"""The webhook handlers' own manager on the memory server: a handler reading other
objects through `manager.client` (a cached read, as the example's quota check)
sees them, and sees objects written later by the test (the writes reach its
informer before the next review), the reviews run in the writer's thread, and
the handlers' informer stops with the server."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import opgen.api as op
from opgen import runtime as rt
from opgen.api.k8s import ConfigMap
from opgen.load.handlers import webhooks_of
from opgen.render.webhook import webhook_documents
from opgen.testing import eventually
from opgen.testing.memory import Kinds, MemoryApiServer, MemoryTransport
from tests.webhook import handlers, kinds_v1

LOCKS = "/apis/webhook.opgen.dev/v1/namespaces/default/locks"
CLOSED = "the namespace is closed"


@op.webhook(kinds_v1.Lock, mutating=False)
class LockGuard:
    """Refuses Locks while a ConfigMap named `closed` is in their namespace."""

    def __init__(self, client: rt.Client) -> None:
        self.client = client

    async def validate_create(self, obj: kinds_v1.Lock) -> list[str]:
        found = await self.client.list(ConfigMap, namespace=obj.metadata.namespace)
        if any(c.metadata.name == "closed" for c in found):
            raise rt.webhook.Denied(CLOSED)
        return []

    async def validate_update(self, old: Any, new: Any) -> list[str]:
        return []

    async def validate_delete(self, obj: Any) -> list[str]:
        return []


def _setup(manager: rt.Manager) -> None:
    manager.webhooks.add(LockGuard(manager.client))


def _lock(name: str) -> bytes:
    document = {
        "apiVersion": "webhook.opgen.dev/v1",
        "kind": "Lock",
        "metadata": {"name": name},
        "spec": {"text": name},
    }
    return json.dumps(document).encode()


def _guarded(setup: Callable[[rt.Manager], None] = _setup) -> MemoryApiServer:
    """A memory server of the test CRDs whose Locks `LockGuard` reviews,
    registered by `setup`."""
    kinds = Kinds()
    kinds.add_crds(handlers.generated_crds())
    server = MemoryApiServer(kinds)
    server.use_webhooks(webhook_documents(webhooks_of([LockGuard]).admission), setup)
    return server


async def _closed_after_a_lock(transport: MemoryTransport) -> None:
    """A Lock made while the namespace is open, then the ConfigMap closing it."""
    first = await transport.send("POST", LOCKS, body=_lock("a"))
    assert first.status == 201, first.body
    made = await transport.send(
        "POST",
        "/api/v1/namespaces/default/configmaps",
        body=json.dumps({"metadata": {"name": "closed"}}).encode(),
    )
    assert made.status == 201, made.body


async def test_a_cached_read_in_a_handler_follows_the_servers_writes() -> None:
    server = _guarded()
    transport = server.transport()
    try:
        await _closed_after_a_lock(transport)
        attempts = iter(range(1000))

        async def refused() -> dict[str, Any] | None:
            answer = await transport.send(
                "POST", LOCKS, body=_lock(f"b{next(attempts)}")
            )
            return json.loads(answer.body) if answer.status == 403 else None

        status = await eventually(refused, message="the guard to see the ConfigMap")
        assert status["message"] == (
            'admission webhook "vlock-v1.webhook.opgen.dev" denied the request: '
            + CLOSED
        )
        assert server.handlers is not None
        assert server.handlers.manager is not None
    finally:
        server.close()
    assert server.handlers.manager is None
    assert server.store.subscriptions == 0  # the handlers' informer stopped watching


async def test_a_review_runs_in_the_writers_thread_and_sees_the_writes_before_it() -> (
    None
):
    """No thread of their own: a review costs no hand-over between threads; and
    the handlers' informer takes in what was written before the request it
    reviews (the first Lock after the ConfigMap is refused, no retry needed)."""
    threads: list[threading.Thread] = []

    def setup(manager: rt.Manager) -> None:
        threads.append(threading.current_thread())
        _setup(manager)

    server = _guarded(setup)
    transport = server.transport()
    try:
        await _closed_after_a_lock(transport)
        refused = await transport.send("POST", LOCKS, body=_lock("b"))
        assert refused.status == 403, refused.body
        assert CLOSED in json.loads(refused.body)["message"]
    finally:
        server.close()
    assert threads == [threading.current_thread()]
    assert server.store.subscriptions == 0
