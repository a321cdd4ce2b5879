"""A replica that loses its Lease cancels its reconciles in flight at once, rather
than giving them the graceful shutdown's time: another replica may take their
objects once the Lease expires. Replicas in one process on the memory server and on
virtual time; each reconcile is held in flight at a gate the test opens only after
the loss, so a reconcile still running then would go on to write its child."""

from __future__ import annotations

import asyncio

import pytest

from opgen import runtime as rt
from opgen.testing.memory import Fault, MemoryApiServer
from tests.runtime.kinds import widget
from tests.runtime.sharding.inprocess import (
    NS,
    Replica,
    children,
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


def _object_writes(replica: Replica, since: int) -> list[tuple[str, str]]:
    """The replica's writes of anything but Leases, from its `since`-th write on."""
    return [w for w in replica.transport.writes[since:] if "/leases/" not in w[1]]


def test_a_member_that_loses_its_lease_cancels_its_reconcile_in_flight() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        server = MemoryApiServer(served_kinds())
        a = await start(server, "a", loop)

        async def a_assigns() -> bool:
            assert a.manager.elector is not None
            return a.manager.elector.is_leader

        await until(a_assigns)  # so b, which loses its Lease, runs no assigner
        b = await start(server, "b", loop)
        client = a.manager.client

        async def split() -> bool:  # so that nothing a holds moves to b later
            return len(held(a)) == len(held(b)) == 8

        await until(split)
        gate = asyncio.Event()
        name = ""
        for i in range(64):  # until one is in b's slots, where it stays in flight
            b.reconciler.gates[f"w{i}"] = gate
            created = await client.create(widget(f"w{i}", NS))

            async def labelled(i: int = i) -> bool:
                return slot((await widgets(client))[f"w{i}"]) is not None

            await until(labelled)
            if slot((await widgets(client))[f"w{i}"]) in held(b):
                name = created.metadata.name or ""
                break
        assert name, "none of 64 widgets in b's slots"
        await until(lambda: in_flight(b, name))

        server.faults.add(
            Fault(500, method="PUT", path=r"leases/widgets-b(\?|$)", times=None)
        )
        member = b.manager.sharding
        assert member is not None

        async def lost() -> bool:
            return not member.member.is_member

        await until(lost, step=0.01)
        assert not await in_flight(b, name), "cancelled when the Lease was lost"
        writes_at_loss = len(b.transport.writes)
        gate.set()  # a reconcile still running would now create the child
        with pytest.raises(rt.ShardMembershipLost):
            await asyncio.wait_for(b.task, 1000.0)  # virtual seconds
        assert _object_writes(b, writes_at_loss) == []

        async def taken_over() -> bool:
            child = (await children(client)).get(f"{name}-child")
            return child is not None and await reconciled(a, name)

        await until(taken_over)
        until_now = loop.time()
        found = [*a.reconciler.ledger.intervals(until=until_now),
                 *b.reconciler.ledger.intervals(until=until_now)]  # fmt: skip
        assert overlaps(found) == []
        a.manager.stop()
        await a.task

    run_virtual(main)


def test_a_leader_that_loses_its_lease_cancels_its_reconcile_in_flight() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        server = MemoryApiServer(served_kinds())
        a = await start(server, "a", loop)
        elector = a.manager.elector
        assert elector is not None

        async def leads() -> bool:
            return elector.is_leader

        await until(leads)
        gate = a.reconciler.gates["w"] = asyncio.Event()
        await a.manager.client.create(widget("w", NS))
        await until(lambda: in_flight(a, "w"))
        server.faults.add(
            Fault(500, method="PUT", path=r"leases/widgets-assigner(\?|$)", times=None)
        )

        async def lost() -> bool:
            return not elector.is_leader

        await until(lost, step=0.01)
        assert not await in_flight(a, "w"), "cancelled when the Lease was lost"
        writes_at_loss = len(a.transport.writes)
        gate.set()
        with pytest.raises(rt.LeaderElectionLost):
            await asyncio.wait_for(a.task, 1000.0)  # virtual seconds
        assert _object_writes(a, writes_at_loss) == []
        code, found = server.handle("GET", f"/api/v1/namespaces/{NS}/configmaps")
        assert code == 200 and found is not None
        assert [c["metadata"]["name"] for c in found["items"]] == []

    run_virtual(main)
