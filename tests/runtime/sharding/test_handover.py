"""A live handover of slots, with replicas in one process on the memory server and
on virtual time: no wall clock, the Lease timings happen exactly."""

from __future__ import annotations

import asyncio

from opgen.testing.memory import MemoryApiServer
from tests.runtime.kinds import widget
from tests.runtime.sharding.inprocess import (
    NS,
    Replica,
    children,
    claims,
    held,
    in_flight,
    reconciled,
    slot,
    start,
    until,
    widgets,
)
from tests.runtime.sharding.ledger import overlaps
from tests.runtime.virtual_time import VirtualTimeLoop, run_virtual
from tests.testing.memory.crds import served_kinds


async def _watch_claims(replicas: list[Replica], clashes: list[frozenset[int]]) -> None:
    """Every 10 ms: no slot claimed, nor admitted, by two replicas at once."""
    while True:
        for i, first in enumerate(replicas):
            for second in replicas[i + 1 :]:
                both = (claims(first) & claims(second)) | (held(first) & held(second))
                if both:
                    clashes.append(both)
        await asyncio.sleep(0.01)


def test_a_slot_moves_only_after_its_holder_finished_and_let_it_go() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        server = MemoryApiServer(served_kinds())
        a = await start(server, "a", loop)
        client = a.manager.client
        for i in range(24):
            await client.create(widget(f"w{i}", NS))

        async def all_reconciled_with_children() -> bool:
            kids = await children(client)
            every = await widgets(client)
            return len(held(a)) == 16 and all(
                f"{n}-child" in kids and slot(kids[f"{n}-child"]) == slot(w)
                for n, w in every.items()
            )

        await until(all_reconciled_with_children)
        # a keeps its lowest half of the slots when b joins; hold one of the
        # other half's widgets in flight on a
        moving = set(sorted(held(a))[8:])
        every = await widgets(client)
        name = next(n for n, w in sorted(every.items()) if slot(w) in moving)
        moved = slot(every[name])
        assert moved is not None
        gate = a.reconciler.gates[name] = asyncio.Event()
        await client.patch(every[name], {"spec": {"message": "again"}})
        await until(lambda: in_flight(a, name))

        b = await start(server, "b", loop)
        clashes: list[frozenset[int]] = []
        watching = asyncio.create_task(_watch_claims([a, b], clashes))

        async def taken_from_a() -> bool:
            return moved not in held(a)

        await until(taken_from_a, step=0.01)
        await asyncio.sleep(30.0)  # long after every other move
        assert moved in claims(a), "let go while its reconcile was in flight"
        assert moved not in claims(b) | held(b)
        assert all(n != name for _, n, _ in b.reconciler.ledger.lines)
        assert moving - {moved} <= held(b)

        gate.set()

        async def b_took_it() -> bool:
            return moved in held(b) and await reconciled(b, name)

        await until(b_took_it, step=0.01)
        assert moved not in claims(a)
        a_end = max(
            t for what, n, t in a.reconciler.ledger.lines if n == name and what == "end"
        )
        b_start = min(t for what, n, t in b.reconciler.ledger.lines if n == name)
        assert a_end <= b_start
        until_now = loop.time()
        found = [*a.reconciler.ledger.intervals(until=until_now),
                 *b.reconciler.ledger.intervals(until=until_now)]  # fmt: skip
        assert overlaps(found) == []
        every = await widgets(client)
        assert {n for _, n, _ in b.reconciler.ledger.lines} <= {
            n for n, w in every.items() if slot(w) in moving
        }
        assert len(await children(client)) == 24
        created = [
            p for m, p in b.transport.writes if m == "POST" and "configmaps" in p
        ]
        assert created == [], "b found every child in its cache"
        assert clashes == []
        watching.cancel()
        for replica in (b, a):
            replica.manager.stop()
            await replica.task

    run_virtual(main)
