"""What the assigner holds of the objects waiting for their slot label, and how it
follows them without a store: an object waiting costs its key and slot alone; a
relist (after a 410 Gone) forgets the objects labelled or deleted meanwhile and
queues the new ones; an object deleted and created again under its name while it
waits is labelled once, with the slot of its new UID."""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
from typing import Any

from opgen import runtime as rt
from opgen.runtime.sharding.protocol import slot_of
from opgen.testing.memory import MemoryApiServer
from opgen.testing.memory.faults import Fault
from opgen.testing.memory.transport import MemoryTransport
from tests.runtime.kinds import Widget
from tests.runtime.sharding.inprocess import (
    NS,
    OPTIONS,
    SLOT,
    create_widget,
    memory_assigner,
    memory_server,
    until,
)
from tests.runtime.virtual_time import VirtualTimeLoop, run_virtual

WIDGETS = f"/apis/test.opgen.dev/v1/namespaces/{NS}/widgets/"


class _HeldLabels(MemoryTransport):
    """The assigner's transport: its label writes wait at `gate`; `patches` lists
    the paths of those that went through, in order, `lists` counts its lists."""

    def __init__(self, server: MemoryApiServer) -> None:
        super().__init__(server)
        self.gate = asyncio.Event()
        self.patches: list[str] = []
        self.lists = 0

    async def send(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        content_type: str | None = None,
        accept: str | None = None,
    ) -> Any:
        if method == "PATCH":
            await self.gate.wait()
            self.patches.append(path.partition("?")[0])
        elif method == "GET" and path.partition("?")[0] == WIDGETS.rstrip("/"):
            self.lists += 1
        return await super().send(
            method, path, body=body, content_type=content_type, accept=accept
        )


async def _slots(client: rt.Client) -> dict[str, str | None]:
    return {
        w.metadata.name or "": (w.metadata.labels or {}).get(SLOT)
        for w in await client.uncached.list(Widget, NS)
    }


def _held_by_the_assigner(snapshot: tracemalloc.Snapshot) -> int:
    """Bytes still allocated by the assigner's code or the informer's."""
    where = [
        tracemalloc.Filter(True, "*/opgen/runtime/sharding/*", all_frames=True),
        tracemalloc.Filter(True, "*/opgen/runtime/informer.py", all_frames=True),
        tracemalloc.Filter(True, "*/opgen/runtime/store.py", all_frames=True),
    ]
    return sum(t.size for t in snapshot.filter_traces(where).traces)


def test_an_object_waiting_for_its_label_costs_its_key_and_slot_alone() -> None:
    """A bulk creation makes thousands of objects wait at once (the label writes
    get a small share of a busy API server), and what they hold, allocated among
    the replica's own cache entries, stays in its heap once they are labelled:
    each holds one string of its namespace and name, and a slot and its place in
    the queue outside Python's small-object heap (a store's entry, its JSON and
    its indexes held about 1 KiB; a key tuple and a queue tuple, about 210
    bytes). Measured as what the assigner holds with 1,000 objects waiting less
    what it holds with none."""
    waiting = 1000

    async def held(loop: VirtualTimeLoop, count: int) -> int:
        server, client = memory_server()
        for i in range(count):
            await create_widget(client, f"w{i:04d}")
        transport = _HeldLabels(server)  # nothing gets its label
        gc.collect()
        tracemalloc.start(8)
        running = asyncio.create_task(memory_assigner(transport, client).run())
        try:
            await asyncio.sleep(10.0)
            gc.collect()
            return _held_by_the_assigner(tracemalloc.take_snapshot())
        finally:
            tracemalloc.stop()
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)
            assert transport.patches == []

    none = run_virtual(lambda loop: held(loop, 0))
    some = run_virtual(lambda loop: held(loop, waiting))
    per_object = (some - none) / waiting
    print(f"held per waiting object: {per_object:.0f} bytes")
    assert 0 < per_object <= 150, per_object


def test_a_relist_forgets_what_left_and_queues_what_came() -> None:
    """While the watch is down and its history compacted (so it lists again, after
    a 410 Gone), one waiting object is deleted, another labelled by someone else
    and a new one created: the assigner writes the labels of the new one and of
    those still waiting, once each, and no other."""

    async def main(loop: VirtualTimeLoop) -> None:
        server, client = memory_server()
        widgets = {
            name: await create_widget(client, name) for name in ("a", "b", "c", "d")
        }
        transport = _HeldLabels(server)
        running = asyncio.create_task(memory_assigner(transport, client).run())
        try:
            await asyncio.sleep(5.0)  # a and b at the gate, c and d queued
            assert transport.lists == 1
            server.faults.add(Fault(500, method="WATCH", path="widgets", times=None))
            server.store.close_watches()
            await asyncio.sleep(0.1)
            await client.delete(widgets["c"])
            d = await client.uncached.get(Widget, "d", NS)
            d.metadata.labels = {SLOT: str(slot_of({"uid": d.metadata.uid}, OPTIONS))}
            await client.update(d)
            await create_widget(client, "e")
            server.compact()
            server.faults.clear()

            async def listed_again() -> bool:
                return transport.lists == 2

            await until(listed_again)
            transport.gate.set()

            async def labelled() -> bool:
                return None not in (await _slots(client)).values()

            await until(labelled)
            await asyncio.sleep(5.0)
        finally:
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)
        assert sorted(transport.patches) == [WIDGETS + name for name in "abe"]

    run_virtual(main)


def test_an_object_created_again_while_it_waits_gets_its_new_uids_slot() -> None:
    async def main(loop: VirtualTimeLoop) -> tuple[str | None, str]:
        server, client = memory_server()
        first = {name: await create_widget(client, name) for name in ("a", "b", "w")}
        transport = _HeldLabels(server)
        running = asyncio.create_task(memory_assigner(transport, client).run())
        try:
            await asyncio.sleep(5.0)  # a and b at the gate, w queued
            old = slot_of({"uid": first["w"].metadata.uid}, OPTIONS)
            again = first["w"]
            while slot_of({"uid": again.metadata.uid}, OPTIONS) == old:
                await client.delete(again)
                await asyncio.sleep(0.5)
                again = await create_widget(client, "w")
            await asyncio.sleep(5.0)
            transport.gate.set()

            async def labelled() -> bool:
                return None not in (await _slots(client)).values()

            await until(labelled)
            await asyncio.sleep(5.0)
        finally:
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)
        assert transport.patches.count(WIDGETS + "w") == 1
        found = (await _slots(client))["w"]
        return found, str(slot_of({"uid": again.metadata.uid}, OPTIONS))

    found, expected = run_virtual(main)
    assert found == expected
