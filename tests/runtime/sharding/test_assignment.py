"""The assigner with replicas on the memory server and on virtual time: a member
that stops renewing stops before its slots move, and its slots then move in one
step; a new assigner carries on from the assignment in the slots Lease."""

from __future__ import annotations

import asyncio

import pytest

from opgen import runtime as rt
from opgen.runtime.sharding.follower import read_assignment
from opgen.testing.memory import Fault, MemoryApiServer
from tests.runtime.kinds import widget
from tests.runtime.sharding.inprocess import (
    LEASE_DURATION,
    NS,
    RING,
    Replica,
    children,
    held,
    slot,
    start,
    until,
    widgets,
)
from tests.runtime.sharding.ledger import overlaps
from tests.runtime.virtual_time import VirtualTimeLoop, run_virtual
from tests.testing.memory.crds import served_kinds


async def _reconciled_all(replica: Replica, names: set[str]) -> bool:
    return names <= {
        n for what, n, _ in replica.reconciler.ledger.lines if what == "end"
    }


async def _split(a: Replica, b: Replica) -> bool:
    return len(held(a)) == len(held(b)) == 8


def _slot_lease_writes(replica: Replica, since: int) -> list[str]:
    return [
        path
        for method, path in replica.transport.writes[since:]
        if "/leases/widgets.slots" in path or path.endswith("/leases")
    ]


def test_a_member_that_cannot_renew_stops_before_its_slots_move_at_once() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        server = MemoryApiServer(served_kinds())
        a = await start(server, "a", loop)
        b = await start(server, "b", loop)
        client = a.manager.client
        await until(lambda: _split(a, b))
        for i in range(20):
            await client.create(widget(f"w{i}", NS))

        async def all_children_made() -> bool:
            return len(await children(client)) == 20

        await until(all_children_made)
        of_b = {n for n, w in (await widgets(client)).items() if slot(w) in held(b)}
        assert of_b
        await until(lambda: _reconciled_all(b, of_b))
        b_slots = held(b)
        renewals = Fault(500, method="PUT", path=r"leases/widgets-b(\?|$)", times=None)
        server.faults.add(renewals)
        cut_off = loop.time()
        writes = len(a.transport.writes)
        with pytest.raises(rt.ShardMembershipLost):
            await asyncio.wait_for(b.task, 1000.0)  # virtual seconds
        b_stopped = loop.time()
        # b renews every 0.5 s and gives up 2 s (its renew deadline) after the last success
        assert cut_off + 1.5 <= b_stopped <= cut_off + 2.5

        moved_at: list[float] = []

        async def all_with_a() -> bool:
            if len(held(a)) == 16:
                moved_at.append(loop.time())
                return True
            return False

        await until(all_with_a, step=0.05)
        # the assigner waits out b's Lease, from its last renewal, as seen on its clock
        assert moved_at[0] >= cut_off + LEASE_DURATION - 0.5
        assert moved_at[0] > b_stopped
        await until(lambda: _reconciled_all(a, of_b))
        # one assignment write moved every slot of b's
        assert len(_slot_lease_writes(a, writes)) == 1
        registry = a.manager.metrics.registry
        assert registry.get_sample_value(
            "opgen_shard_slot_moves_total", {"ring": RING, "reason": "orphaned"}
        ) == len(b_slots)
        created = [
            path
            for method, path in a.transport.writes[writes:]
            if method == "POST" and "/configmaps" in path
        ]
        assert created == [], "a found every child of b's widgets in its cache"
        until_now = loop.time()
        found = [*a.reconciler.ledger.intervals(until=until_now),
                 *b.reconciler.ledger.intervals(until=until_now)]  # fmt: skip
        assert overlaps(found) == []
        a.manager.stop()
        await a.task

    run_virtual(main)


def test_a_new_assigner_carries_on_from_the_slots_lease() -> None:
    """When the assigner's replica leaves, the next one elected reads the
    assignment the last one wrote and takes the leaver's slots in one more step."""

    async def main(loop: VirtualTimeLoop) -> None:
        server = MemoryApiServer(served_kinds())
        a = await start(server, "a", loop)
        elector = a.manager.elector
        assert elector is not None

        async def a_leads() -> bool:
            return elector.is_leader

        await until(a_leads)
        b = await start(server, "b", loop)
        await until(lambda: _split(a, b))
        before, _ = await read_assignment(a.manager.client.uncached, a.manager.sharding.options, NS)  # type: ignore[union-attr]
        writes = len(b.transport.writes)
        a.manager.stop()
        await a.task

        async def b_holds_all() -> bool:
            return len(held(b)) == 16

        await until(b_holds_all)
        after, _ = await read_assignment(b.manager.client.uncached, b.manager.sharding.options, NS)  # type: ignore[union-attr]
        assert after.generation == before.generation + 1
        assert len(_slot_lease_writes(b, writes)) >= 1
        b.manager.stop()
        await b.task

    run_virtual(main)
