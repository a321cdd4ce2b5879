"""The assigner's rule, a member that loses its Lease, and children put back with
their owner; replicas on the memory server and on virtual time."""

from __future__ import annotations

import asyncio

import pytest

from opgen import runtime as rt
from opgen.runtime.sharding.assigner import place
from opgen.testing.memory import Fault, MemoryApiServer
from tests.runtime.kinds import widget
from tests.runtime.sharding.inprocess import (
    DRAIN,
    LEASE_DURATION,
    NS,
    RING,
    SHARD,
    Replica,
    children,
    labels,
    start,
    until,
    widgets,
)
from tests.runtime.sharding.ledger import overlaps
from tests.runtime.virtual_time import VirtualTimeLoop, run_virtual
from tests.testing.memory.crds import served_kinds

OPTIONS = rt.ShardingOptions(ring=RING)
LIVE = frozenset({"a", "b"})


@pytest.mark.parametrize(
    ("held", "desired", "written", "reason"),
    [
        ({}, "a", {SHARD: "a", DRAIN: None}, "new"),
        ({SHARD: "c"}, "a", {SHARD: "a", DRAIN: None}, "orphaned"),
        ({SHARD: "c", DRAIN: "true"}, "a", {SHARD: "a", DRAIN: None}, "orphaned"),
        ({SHARD: "b"}, "a", {DRAIN: "true"}, "drain"),
        ({SHARD: "b", DRAIN: "true"}, "a", None, "held"),
        ({SHARD: "a"}, "a", None, "held"),
        ({SHARD: "a"}, None, None, "held"),
    ],
)
def test_the_rule_moves_a_live_members_object_only_through_a_drain(
    held: dict[str, str],
    desired: str | None,
    written: dict[str, str | None] | None,
    reason: str,
) -> None:
    placement = place(held, desired, LIVE, OPTIONS)
    assert (placement.labels, placement.reason) == (written, reason)


def test_a_member_that_cannot_renew_stops_before_its_objects_move() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        server = MemoryApiServer(served_kinds())
        a = await start(server, "a", loop)
        b = await start(server, "b", loop)
        client = a.manager.client
        for i in range(20):
            await client.create(widget(f"w{i}", NS))

        async def both_hold_some() -> bool:
            held = [labels(w).get(SHARD) for w in (await widgets(client)).values()]
            return set(held) == {"a", "b"}

        await until(both_hold_some)
        await until(lambda: _each_reconciled(a, b))
        of_b = {
            n for n, w in (await widgets(client)).items() if labels(w)[SHARD] == "b"
        }
        renewals = Fault(500, method="PUT", path=r"leases/widgets-b(\?|$)", times=None)
        server.faults.add(renewals)
        cut_off = loop.time()
        with pytest.raises(rt.ShardMembershipLost):
            await asyncio.wait_for(b.task, 1000.0)  # virtual seconds
        b_stopped = loop.time()
        # b renews every 0.5 s and gives up 2 s (its renew deadline) after the last success
        assert cut_off + 1.5 <= b_stopped <= cut_off + 2.5

        moved_at: list[float] = []

        async def all_with_a() -> bool:
            held = await widgets(client)
            kids = await children(client)
            done = all(labels(w).get(SHARD) == "a" for w in held.values()) and all(
                labels(kids[f"{n}-child"]).get(SHARD) == "a" for n in held
            )
            if done:
                moved_at.append(loop.time())
            return done

        await until(all_with_a, step=0.05)
        # the assigner waits out b's Lease, from its last renewal, as seen on its clock
        assert moved_at[0] >= cut_off + LEASE_DURATION - 0.5
        assert moved_at[0] > b_stopped
        assert renewals.answered > 0
        until_now = loop.time()
        found = [*a.reconciler.ledger.intervals(until=until_now),
                 *b.reconciler.ledger.intervals(until=until_now)]  # fmt: skip
        assert overlaps(found) == []
        assert of_b <= {n for _, n, _ in a.reconciler.ledger.lines if n in of_b}
        assert a.manager.metrics.registry.get_sample_value(
            "opgen_shard_assignments_total", {"ring": RING, "reason": "orphaned"}
        ) == len(of_b)
        a.manager.stop()
        await a.task

    run_virtual(main)


def test_a_stray_child_is_put_back_with_its_owner_on_the_next_full_pass() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        server = MemoryApiServer(served_kinds())
        a = await start(server, "a", loop, sweep_period=10.0)
        client = a.manager.client
        await client.create(widget("w", NS))

        async def child_made() -> bool:
            kid = (await children(client)).get("w-child")
            return kid is not None and labels(kid).get(SHARD) == "a"

        await until(child_made)
        child = (await children(client))["w-child"]
        await client.patch(child, {"metadata": {"labels": {SHARD: "nobody"}}})
        strayed = loop.time()
        await until(child_made)
        assert loop.time() - strayed <= 10.0 + 1.0
        a.manager.stop()
        await a.task

    run_virtual(main)


async def _each_reconciled(*replicas: object) -> bool:

    return all(
        isinstance(r, Replica)
        and any(w == "end" for w, _, _ in r.reconciler.ledger.lines)
        for r in replicas
    )


def test_a_dead_members_children_move_before_their_owners() -> None:
    """Even children made since the last full pass: the new holder finds each
    child in its cache when it first reconciles the owner, and creates none."""

    async def main(loop: VirtualTimeLoop) -> None:
        server = MemoryApiServer(served_kinds())
        a = await start(server, "a", loop, sweep_period=1000.0)
        b = await start(server, "b", loop, sweep_period=1000.0)
        client = a.manager.client

        async def ring_of_two() -> bool:
            registry = a.manager.metrics.registry
            members = registry.get_sample_value(
                "opgen_shard_ring_members", {"ring": RING}
            )
            return members == 2 and all(r.manager.elected.is_set() for r in (a, b))

        await until(ring_of_two)  # the last full pass, before any child exists
        for i in range(20):
            await client.create(widget(f"w{i}", NS))

        async def all_children_made() -> bool:
            return len(await children(client)) == 20

        await until(all_children_made)
        of_b = {
            n for n, w in (await widgets(client)).items() if labels(w)[SHARD] == "b"
        }
        assert of_b
        server.faults.add(
            Fault(500, method="PUT", path=r"leases/widgets-b(\?|$)", times=None)
        )
        with pytest.raises(rt.ShardMembershipLost):
            await asyncio.wait_for(b.task, 1000.0)  # virtual seconds
        writes_at_loss = len(a.transport.writes)

        async def all_with_a() -> bool:
            held = await widgets(client)
            kids = await children(client)
            return all(labels(w).get(SHARD) == "a" for w in held.values()) and all(
                labels(k).get(SHARD) == "a" for k in kids.values()
            )

        await until(all_with_a)
        await until(lambda: _each_reconciled_all(a, of_b))
        creates = [
            path
            for method, path in a.transport.writes[writes_at_loss:]
            if method == "POST" and "/configmaps" in path
        ]
        assert creates == []
        a.manager.stop()
        await a.task

    run_virtual(main)


async def _each_reconciled_all(replica: Replica, names: set[str]) -> bool:
    return names <= {
        n for what, n, _ in replica.reconciler.ledger.lines if what == "end"
    }
