"""The assigner reads metadata only: its lists and its watch ask for
`PartialObjectMetadata`, so no object's spec, status or data reaches the leader;
against a server that sends the objects whole it assigns all the same."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from opgen import runtime as rt
from opgen.api import ObjectMeta
from opgen.api.k8s import ConfigMap
from opgen.runtime.resources import resource_type
from opgen.runtime.rest import METADATA_ACCEPT, METADATA_LIST_ACCEPT, RestClient
from opgen.runtime.seams import Answer, Stream
from opgen.runtime.sharding.assigner import Assigner
from opgen.runtime.sharding.membership import Members
from opgen.testing.memory import MemoryApiServer, MemoryTransport
from tests.runtime.kinds import Widget, WidgetSpec
from tests.runtime.sharding.inprocess import NS, RING, SHARD, until
from tests.runtime.virtual_time import VirtualTimeLoop, run_virtual
from tests.testing.memory.crds import served_kinds


class _Recording:
    """A transport in front of the memory server's that notes each request's
    `Accept` and every object it hands back; `whole`: it drops the `Accept`, as a
    server that cannot send metadata alone."""

    def __init__(self, inner: MemoryTransport, *, whole: bool) -> None:
        self.inner = inner
        self.host, self.namespace = inner.host, inner.namespace
        self.whole = whole
        self.accepts: list[tuple[str, str, str | None]] = []
        self.received: list[dict[str, Any]] = []

    async def send(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        content_type: str | None = None,
        accept: str | None = None,
    ) -> Answer:
        self.accepts.append((method, path.partition("?")[0], accept))
        answer = await self.inner.send(
            method,
            path,
            body=body,
            content_type=content_type,
            accept=None if self.whole else accept,
        )
        if method == "GET":
            document = json.loads(answer.body)
            self.received.extend(document.get("items") or [document])
        return answer

    @asynccontextmanager
    async def stream(
        self,
        method: str,
        path: str,
        *,
        read_timeout: float | None,
        accept: str | None = None,
    ) -> AsyncIterator[Stream]:
        self.accepts.append(("WATCH", path.partition("?")[0], accept))
        async with self.inner.stream(
            method,
            path,
            read_timeout=read_timeout,
            accept=None if self.whole else accept,
        ) as stream:
            received = self.received

            class Noted:
                status, headers = stream.status, stream.headers

                async def read(self) -> bytes:
                    return await stream.read()

                async def lines(self) -> AsyncIterator[str]:
                    async for line in stream.lines():
                        received.append(json.loads(line)["object"])
                        yield line

            yield Noted()

    async def aclose(self) -> None:
        await self.inner.aclose()


class _OneMember(Members):
    """A ring whose one live member is `a` (the assigner's reads of objects are
    what these tests look at, not the Leases')."""

    async def read(self) -> frozenset[str]:
        return frozenset({"a"})

    def until_next_expiry(self) -> float | None:
        return None


async def _create(client: rt.Client, name: str) -> None:
    widget = await client.create(
        Widget(
            metadata=ObjectMeta(name=name, namespace=NS),
            spec=WidgetSpec(message="the spec"),
        )
    )
    child = ConfigMap(
        metadata=ObjectMeta(name=f"{name}-child", namespace=NS),
        data={"the": "data"},
    )
    rt.owner.set_controller_reference(widget, child)
    await client.create(child)


async def _assigned(client: rt.Client) -> dict[str, str | None]:
    return {
        w.metadata.name or "": (w.metadata.labels or {}).get(SHARD)
        for w in await client.uncached.list(Widget, NS)
    }


async def _assign(whole: bool) -> _Recording:
    server = MemoryApiServer(served_kinds())
    recording = _Recording(server.transport(), whole=whole)
    client = rt.Client(RestClient(server.transport()))
    for i in range(3):
        await _create(client, f"before-{i}")
    options = rt.ShardingOptions(ring=RING, sweep_period=30.0)
    assigner = Assigner(
        RestClient(recording),
        _OneMember(client.uncached, options, NS),
        options,
        primaries=[resource_type(Widget)],
        children=[resource_type(ConfigMap)],
        namespaces=[NS],
        page_size=2,
    )
    running = asyncio.create_task(assigner.run())
    try:

        async def all_assigned(count: int) -> bool:
            held = await _assigned(client)
            return len(held) == count and set(held.values()) == {"a"}

        await until(lambda: all_assigned(3))
        await _create(client, "after")  # seen by the watch of unassigned objects
        await until(lambda: all_assigned(4))
        await until(lambda: _passes(assigner, 2))  # a second full pass lists again
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
    return recording


async def _passes(assigner: Assigner, count: int) -> bool:
    return assigner.passes >= count


def test_the_assigners_lists_and_watch_ask_for_metadata_only() -> None:
    async def main(loop: VirtualTimeLoop) -> _Recording:
        return await _assign(whole=False)

    recording = run_virtual(main)
    reads = [(verb, accept) for verb, _, accept in recording.accepts if verb != "PATCH"]
    assert {verb for verb, _ in reads} == {"GET", "WATCH"}
    assert all(
        accept == (METADATA_ACCEPT if verb == "WATCH" else METADATA_LIST_ACCEPT)
        for verb, accept in reads
    )
    kinds = {obj.get("kind") for obj in recording.received}
    assert kinds == {"PartialObjectMetadata"}
    assert not [
        obj
        for obj in recording.received
        if set(obj) - {"kind", "apiVersion", "metadata"}
    ]
    names = {obj["metadata"].get("name") for obj in recording.received}
    assert {"before-0", "after", "before-0-child"} <= names


def test_a_server_that_sends_whole_objects_is_assigned_from_them() -> None:
    async def main(loop: VirtualTimeLoop) -> _Recording:
        return await _assign(whole=True)

    recording = run_virtual(main)
    assert {obj.get("kind") for obj in recording.received} >= {"Widget"}


def test_a_full_pass_over_kinds_without_objects_completes() -> None:
    """kube-apiserver's empty `PartialObjectMetadataList` has `items: null`."""

    async def main(loop: VirtualTimeLoop) -> None:
        server = MemoryApiServer(served_kinds())
        options = rt.ShardingOptions(ring=RING, sweep_period=30.0)
        assigner = Assigner(
            RestClient(server.transport()),
            _OneMember(rt.Client(RestClient(server.transport())).uncached, options, NS),
            options,
            primaries=[resource_type(Widget)],
            children=[resource_type(ConfigMap)],
            namespaces=[NS],
        )
        running = asyncio.create_task(assigner.run())
        try:
            await until(lambda: _passes(assigner, 1))
        finally:
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)

    run_virtual(main)
