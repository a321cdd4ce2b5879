"""The drain handover and owner-follow, with replicas in one process on the memory
server and on virtual time: no wall clock, the Lease timings happen exactly."""

from __future__ import annotations

import asyncio

from opgen import runtime as rt
from opgen.runtime.sharding.ring import HashRing
from opgen.testing.memory import MemoryApiServer
from tests.runtime.kinds import widget
from tests.runtime.sharding.inprocess import (
    DRAIN,
    NS,
    RING,
    SHARD,
    children,
    in_flight,
    labels,
    reconciled,
    start,
    until,
    widgets,
)
from tests.runtime.sharding.ledger import overlaps
from tests.runtime.virtual_time import VirtualTimeLoop, run_virtual
from tests.testing.memory.crds import served_kinds


def test_an_object_moves_only_after_its_holder_finished_and_its_child_follows() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        server = MemoryApiServer(served_kinds())
        a = await start(server, "a", loop)
        client = a.manager.client
        for i in range(24):
            await client.create(widget(f"w{i}", NS))

        async def all_held_by_a_with_children() -> bool:
            held = await widgets(client)
            kids = await children(client)
            return all(labels(w).get(SHARD) == "a" for w in held.values()) and all(
                f"{n}-child" in kids and labels(kids[f"{n}-child"]).get(SHARD) == "a"
                for n in held
            )

        await until(all_held_by_a_with_children)

        # a widget that the ring {a, b} gives to b, kept in flight on a
        two = HashRing(["a", "b"], rt.ShardingOptions(ring=RING).virtual_nodes)
        held = await widgets(client)
        moving = sorted(
            n for n, w in held.items() if two.owner(w.metadata.uid or "") == "b"
        )
        staying = sorted(set(held) - set(moving))
        assert moving and staying
        name = moving[0]
        gate = a.reconciler.gates[name] = asyncio.Event()
        await client.patch(held[name], {"spec": {"message": "again"}})
        await until(lambda: in_flight(a, name))

        b = await start(server, "b", loop)

        async def drain_asked() -> bool:
            return DRAIN in labels((await widgets(client))[name])

        await until(drain_asked)
        await asyncio.sleep(30.0)  # long after every other move
        now = (await widgets(client))[name]
        assert labels(now).get(SHARD) == "a", "moved while its reconcile was in flight"
        assert all(n != name for _, n, _ in b.reconciler.ledger.lines)

        gate.set()

        async def settled() -> bool:
            held = await widgets(client)
            kids = await children(client)
            return all(
                labels(w).get(SHARD) == two.owner(w.metadata.uid or "")
                and DRAIN not in labels(w)
                and labels(kids[f"{n}-child"]).get(SHARD) == labels(w).get(SHARD)
                for n, w in held.items()
            )

        await until(settled)
        await until(lambda: reconciled(b, name))
        a_end = max(
            t for what, n, t in a.reconciler.ledger.lines if n == name and what == "end"
        )
        b_start = min(t for what, n, t in b.reconciler.ledger.lines if n == name)
        assert a_end <= b_start
        until_now = loop.time()
        found = [*a.reconciler.ledger.intervals(until=until_now),
                 *b.reconciler.ledger.intervals(until=until_now)]  # fmt: skip
        assert overlaps(found) == []
        assert {n for _, n, _ in b.reconciler.ledger.lines} <= set(moving)
        assert len(await children(client)) == 24

        for replica in (b, a):
            replica.manager.stop()
            await replica.task

    run_virtual(main)
