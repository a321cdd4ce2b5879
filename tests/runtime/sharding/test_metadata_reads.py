"""The assigner reads metadata only: its lists, its watch and the answers to its
label writes ask for `PartialObjectMetadata`, so no object's spec, status or data
reaches the leader; against a server that sends the objects whole it labels all the
same. It writes each slot label once, only on objects of the ring."""

from __future__ import annotations

import asyncio
from typing import Any

from opgen import runtime as rt
from opgen.api import ObjectMeta
from opgen.api.k8s import ConfigMap
from opgen.runtime.rest import METADATA_ACCEPT, METADATA_LIST_ACCEPT
from opgen.runtime.sharding.assigner import WRITES_IN_FLIGHT
from opgen.runtime.sharding.protocol import slot_of
from tests.runtime.kinds import Widget, WidgetSpec
from tests.runtime.sharding.inprocess import (
    NS,
    OPTIONS,
    SLOT,
    RecordingTransport,
    create_widget,
    memory_assigner,
    memory_server,
    until,
)
from tests.runtime.virtual_time import VirtualTimeLoop, run_virtual


async def _create(client: rt.Client, name: str) -> None:
    widget = await create_widget(client, name, message="the spec")
    child = ConfigMap(
        metadata=ObjectMeta(name=f"{name}-child", namespace=NS),
        data={"the": "data"},
    )
    rt.owner.set_controller_reference(widget, child)
    await client.create(child)


async def _labelled(client: rt.Client) -> dict[str, str | None]:
    found: dict[str, str | None] = {
        w.metadata.name or "": (w.metadata.labels or {}).get(SLOT)
        for w in await client.uncached.list(Widget, NS)
    }
    for c in await client.uncached.list(ConfigMap, NS):
        found[c.metadata.name or ""] = (c.metadata.labels or {}).get(SLOT)
    return found


async def _assign(whole: bool) -> RecordingTransport:
    server, client = memory_server()
    recording = RecordingTransport(server, whole=whole)
    for i in range(3):
        await _create(client, f"before-{i}")
    assigner = memory_assigner(recording, client, page_size=2)
    running = asyncio.create_task(assigner.run())
    try:

        async def all_labelled(count: int) -> bool:
            held = await _labelled(client)
            return len(held) == count and None not in held.values()

        await until(lambda: all_labelled(6))
        await _create(client, "after")  # seen by the watch of unlabelled objects
        await until(lambda: all_labelled(8))
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
    return recording


def test_the_assigners_lists_watch_and_label_writes_ask_for_metadata_only() -> None:
    async def main(loop: VirtualTimeLoop) -> RecordingTransport:
        return await _assign(whole=False)

    recording = run_virtual(main)
    requests = [(verb, accept) for verb, _, accept in recording.accepts]
    assert {verb for verb, _ in requests} == {"GET", "WATCH", "PATCH"}
    assert all(
        accept == (METADATA_LIST_ACCEPT if verb == "GET" else METADATA_ACCEPT)
        for verb, accept in requests
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


def test_a_server_that_sends_whole_objects_is_labelled_from_them() -> None:
    async def main(loop: VirtualTimeLoop) -> RecordingTransport:
        return await _assign(whole=True)

    recording = run_virtual(main)
    assert {obj.get("kind") for obj in recording.received} >= {"Widget"}


def test_a_child_takes_its_owners_slot_and_foreign_objects_get_none() -> None:
    """A child's slot is its owner's, worked out from its owner reference alone;
    a ConfigMap no Widget controls is no part of the ring; each label is written
    once; the previous protocol's shard label goes in the same write."""

    async def main(loop: VirtualTimeLoop) -> None:
        server, client = memory_server()
        recording = RecordingTransport(server)
        old = {"shard.sharding.opgen.dev/widgets": "gone"}
        widget = await client.create(
            Widget(
                metadata=ObjectMeta(name="w", namespace=NS, labels=old),
                spec=WidgetSpec(),
            )
        )
        child = ConfigMap(metadata=ObjectMeta(name="w-child", namespace=NS))
        rt.owner.set_controller_reference(widget, child)
        await client.create(child)
        await client.create(ConfigMap(metadata=ObjectMeta(name="mine", namespace=NS)))
        running = asyncio.create_task(memory_assigner(recording, client).run())
        try:

            async def labelled() -> bool:
                found = await _labelled(client)
                return found["w"] is not None and found["w-child"] is not None

            await until(labelled)
            await asyncio.sleep(5.0)
        finally:
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)
        found = await _labelled(client)
        assert (
            found["w"]
            == found["w-child"]
            == str(slot_of({"uid": widget.metadata.uid}, OPTIONS))
        )
        assert found["mine"] is None
        stored = await client.uncached.get(Widget, "w", NS)
        assert stored.metadata.labels == {SLOT: found["w"]}
        patches = [path for verb, path, _ in recording.accepts if verb == "PATCH"]
        assert sorted(patches) == sorted(
            [
                f"/api/v1/namespaces/{NS}/configmaps/w-child",
                f"/apis/test.opgen.dev/v1/namespaces/{NS}/widgets/w",
            ]
        )

    run_virtual(main)


def test_a_burst_of_objects_is_labelled_by_a_few_writers_not_a_task_each() -> None:
    """However many objects wait, the assigner's label writes run in at most
    `WRITES_IN_FLIGHT` tasks: a task per waiting object would grow asyncio's set of
    tasks (which keeps its size) and the heap by the size of the burst."""

    async def main(loop: VirtualTimeLoop) -> None:
        server, client = memory_server()
        for i in range(60):
            await create_widget(client, f"w{i}")
        assigner = memory_assigner(RecordingTransport(server), client)
        tasks: list[int] = []
        label = assigner._label

        async def counted(*args: Any) -> bool:
            tasks.append(len(asyncio.all_tasks()))
            return await label(*args)

        assigner._label = counted  # type: ignore[method-assign,assignment]
        before = len(asyncio.all_tasks())
        running = asyncio.create_task(assigner.run())
        try:

            async def all_labelled() -> bool:
                held = await _labelled(client)
                return None not in held.values()

            await until(all_labelled)
        finally:
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)
        assert len(tasks) == 60
        # the writers and the assigner's own dozen (itself, its loop of member
        # reads, its loop ending bursts, its informers' runs, reflectors, watches
        # and watchdogs), not a task per object
        assert max(tasks) - before <= WRITES_IN_FLIGHT + 13 < 60

    run_virtual(main)
