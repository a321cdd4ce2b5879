"""A whole manager over a scripted transport (`Manager(transport=...)`): no API server.

`ScriptedApi` is a `seams.Transport` that keeps Widgets in memory and answers
what a manager asks of an API server: a list, a watch whose events it sends as
objects change, and status writes. The manager syncs its cache from it, a
controller reconciles the Widget it lists, and its status write comes back
through the watch into the cache.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from opgen import runtime as rt
from opgen.runtime.seams import Answer, Transport
from tests.runtime.kinds import Widget, WidgetStatus

ALL = "/apis/test.opgen.dev/v1/widgets"
"""Where the cache lists and watches Widgets (every namespace)."""
WIDGETS = "/apis/test.opgen.dev/v1/namespaces/ns/widgets"


class Lines:
    """A watch answer: the events the API sends, line by line, until it is closed."""

    status = 200
    headers: Mapping[str, str] = {}

    def __init__(self) -> None:
        self.events: asyncio.Queue[str] = asyncio.Queue()

    async def read(self) -> bytes:
        return b""

    async def lines(self) -> AsyncIterator[str]:
        while True:
            yield await self.events.get()


class ScriptedApi:
    """Widgets in namespace `ns`, served as the API server would (a `seams.Transport`)."""

    host = "scripted"
    namespace = "ns"

    def __init__(self, *widgets: dict[str, Any]) -> None:
        self.version = 0
        self.objects: dict[str, dict[str, Any]] = {}
        for widget in widgets:
            self._store(widget)
        self.requests: list[str] = []
        self.watches: list[Lines] = []
        self.watching = asyncio.Event()
        self.closed = False

    def _store(self, obj: dict[str, Any]) -> dict[str, Any]:
        self.version += 1
        obj["metadata"]["resourceVersion"] = str(self.version)
        self.objects[obj["metadata"]["name"]] = obj
        return obj

    async def send(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        content_type: str | None = None,
        accept: str | None = None,
    ) -> Answer:
        assert accept is None, "the manager's own reads are of whole objects"
        self.requests.append(f"{method} {path.partition('?')[0]}")
        route = path.partition("?")[0]
        if method == "GET" and route == ALL:
            listed = {
                "kind": "WidgetList",
                "apiVersion": "test.opgen.dev/v1",
                "metadata": {"resourceVersion": str(self.version)},
                "items": list(self.objects.values()),
            }
            return Answer(200, json.dumps(listed).encode())
        name, _, subresource = route.removeprefix(WIDGETS + "/").partition("/")
        if method == "PATCH" and subresource == "status" and name in self.objects:
            assert body is not None
            assert content_type == "application/merge-patch+json"
            stored = self.objects[name]
            stored["status"] = json.loads(body)["status"]
            self._store(stored)
            for watch in self.watches:
                event = {"type": "MODIFIED", "object": stored}
                watch.events.put_nowait(json.dumps(event))
            return Answer(200, json.dumps(stored).encode())
        status = {"kind": "Status", "code": 404, "reason": "NotFound", "message": path}
        return Answer(404, json.dumps(status).encode())

    @asynccontextmanager
    async def stream(
        self,
        method: str,
        path: str,
        *,
        read_timeout: float | None,
        accept: str | None = None,
    ) -> AsyncIterator[Lines]:
        self.requests.append(f"WATCH {path.partition('?')[0]}")
        assert "watch=true" in path and "allowWatchBookmarks=true" in path
        watch = Lines()
        self.watches.append(watch)
        self.watching.set()
        try:
            yield watch
        finally:
            self.watches.remove(watch)

    async def aclose(self) -> None:
        self.closed = True

    def sibling(self) -> Transport:
        raise AssertionError("only a sharded replica asks for one; these shard nothing")


def widget(name: str, replicas: int) -> dict[str, Any]:
    return {
        "apiVersion": "test.opgen.dev/v1",
        "kind": "Widget",
        "metadata": {"name": name, "namespace": "ns", "generation": 1, "uid": "u1"},
        "spec": {"replicas": replicas},
    }


class CopyReplicas:
    """Sets status.replicas from spec.replicas, as a reconciler would."""

    def __init__(self, client: rt.Client) -> None:
        self.client = client
        self.seen: list[tuple[str, int | None]] = []
        self.wrote = asyncio.Event()

    async def reconcile(self, request: rt.Request) -> rt.Result:
        found = await self.client.get(Widget, request.name, request.namespace)
        replicas = found.status.replicas if found.status is not None else None
        self.seen.append((request.name, replicas))
        if found.status is None or found.status.replicas != found.spec.replicas:
            found.status = WidgetStatus(
                replicas=found.spec.replicas, observed_generation=1
            )
            await self.client.patch_status(found)
            self.wrote.set()
        return rt.Result()


async def test_a_manager_syncs_reconciles_and_writes_status_over_a_scripted_transport() -> (
    None
):
    api = ScriptedApi(widget("a", replicas=3))
    off = "0"
    manager = rt.Manager(
        options=rt.ManagerOptions(
            metrics=rt.MetricsOptions(bind_address=off),
            probes=rt.ProbeOptions(bind_address=off),
        ),
        transport=api,
    )
    reconciler = CopyReplicas(manager.client)
    manager.add_controller(
        rt.Controller("copy", for_=rt.For(Widget), reconciler=reconciler)
    )
    running = asyncio.create_task(manager.run(install_signal_handlers=False))
    try:
        await manager.elected.wait()  # the cache synced: controllers started
        assert api.requests[0] == f"GET {ALL}"
        await reconciler.wrote.wait()
        # a cached read waits for the client's own write to come back by the watch
        cached = await manager.client.get(Widget, "a", "ns")
        assert cached.status is not None and cached.status.replicas == 3
    finally:
        manager.stop()
        await running
    assert reconciler.seen == [("a", None)]
    status = api.objects["a"]["status"]
    assert (status["replicas"], status["observedGeneration"]) == (3, 1)
    assert f"WATCH {ALL}" in api.requests
    assert api.requests.count(f"PATCH {WIDGETS}/a/status") == 1
    assert api.closed, "the manager closes its transport when run() returns"
