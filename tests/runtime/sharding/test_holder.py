"""The gate before each reconcile: only objects of the slots a replica holds, and
nothing once its member Lease is lost; its reconciles in flight counted per slot,
so a slot is let go only after them; objects of a slot gained are enqueued."""

from __future__ import annotations

import asyncio

from opgen import runtime as rt
from opgen.runtime.reconcile import Request
from opgen.runtime.sharding.holder import HeldSlots, ShardHolder
from opgen.runtime.store import Store, entry_from_dict
from tests.runtime.sharding.inprocess import RING, SLOT
from tests.runtime.virtual_time import VirtualTimeLoop, run_virtual


class HeldWidgets:
    """The part of an informer the gate reads: its store."""

    def __init__(self) -> None:
        self.store = Store()
        for name, slot in (("w", "3"), ("v", "4"), ("x", "nope")):
            meta = {"name": name, "namespace": "ns", "labels": {SLOT: slot}}
            self.store.upsert(entry_from_dict({"metadata": meta}))


def gate(held: HeldSlots, member: dict[str, bool]) -> tuple[ShardHolder, list[str]]:
    holder = ShardHolder(
        held, rt.ShardingOptions(ring=RING), is_member=lambda: member["is"]
    )
    enqueued: list[str] = []
    holder.attach(HeldWidgets(), lambda r: enqueued.append(r.name))  # type: ignore[arg-type]
    return holder, enqueued


def test_only_objects_of_held_slots_are_admitted_and_only_while_a_member() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        member = {"is": True}
        held = HeldSlots()
        holder, _ = gate(held, member)
        assert not await holder.admit(Request("ns", "w"))
        held.hold(frozenset({3}))
        assert await holder.admit(Request("ns", "w"))
        holder.done(Request("ns", "w"))
        assert not await holder.admit(Request("ns", "v"))
        assert not await holder.admit(Request("ns", "x"))
        assert not await holder.admit(Request("ns", "gone"))
        member["is"] = False
        assert not await holder.admit(Request("ns", "w"))

    run_virtual(main)


def test_a_slot_is_idle_only_once_its_reconciles_in_flight_ended() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        held = HeldSlots()
        holder, _ = gate(held, {"is": True})
        held.hold(frozenset({3, 4}))
        assert await holder.admit(Request("ns", "w"))
        assert await holder.admit(Request("ns", "v"))
        held.hold(frozenset({4}))  # 3 taken away: nothing new starts
        assert not await holder.admit(Request("ns", "w"))
        idle = asyncio.create_task(held.idle(frozenset({3})))
        await asyncio.sleep(1.0)
        assert not idle.done()
        holder.done(Request("ns", "v"))  # another slot's end does not count
        await asyncio.sleep(1.0)
        assert not idle.done()
        holder.done(Request("ns", "w"))
        await asyncio.wait_for(idle, 1.0)

    run_virtual(main)


def test_the_objects_of_a_slot_gained_are_enqueued() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        held = HeldSlots()
        _, enqueued = gate(held, {"is": True})
        held.hold(frozenset({4}))
        assert enqueued == ["v"]
        held.hold(frozenset({3, 4}))
        assert enqueued == ["v", "w"]

    run_virtual(main)
