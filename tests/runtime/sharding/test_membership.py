"""Ring membership: when the assigner takes a member for gone (a Lease seen for the
first time by its own renew time, then on the assigner's clock); a member that
cannot renew gives up after its renew deadline (virtual time); a member's Lease
carries its claims; a process never takes over a Lease another one still holds."""

from __future__ import annotations

import asyncio
import datetime
import time
from typing import Any

import pytest

from opgen import runtime as rt
from opgen.runtime.errors import TransportError
from opgen.runtime.sharding.assignment import Holder, MemberState
from opgen.runtime.sharding.membership import HeldElsewhere, MemberLease, Members
from tests.runtime.virtual_time import VirtualTimeLoop, run_virtual

OPTIONS = rt.ShardingOptions(
    ring="widgets", lease_duration=15.0, renew_deadline=10.0, retry_period=2.0
)


WALL = 1_700_000_000.0


def stamp(seconds: float) -> str:
    """A renewTime, `seconds` after WALL."""
    moment = datetime.datetime.fromtimestamp(WALL + seconds, datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def lease(
    name: str,
    holder: str | None,
    renew: str = "t0",
    annotations: dict[str, str] | None = None,
) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "annotations": annotations or {}},
        "spec": {
            "holderIdentity": holder,
            "leaseDurationSeconds": 15,
            "renewTime": renew,
        },
    }


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def members(clock: Clock, wall: float = WALL) -> Members:
    return Members(
        None, OPTIONS, "default", clock=clock, wall=lambda: wall  # type: ignore[arg-type]
    )


def live(view: Members, leases: list[dict[str, Any]]) -> set[str]:
    return set(view.observe(leases))


def test_a_member_is_live_until_its_lease_has_not_changed_for_its_duration() -> None:
    clock = Clock()
    view = members(clock)
    assert live(view, [lease("widgets-a", "a")]) == {"a"}
    clock.now = 14.9
    assert live(view, [lease("widgets-a", "a")]) == {"a"}
    clock.now = 15.0
    assert live(view, [lease("widgets-a", "a")]) == frozenset()


def test_a_renewal_keeps_a_member_live_for_another_duration() -> None:
    clock = Clock()
    view = members(clock)
    live(view, [lease("widgets-a", "a", "t0")])
    clock.now = 10.0
    assert live(view, [lease("widgets-a", "a", "t1")]) == {"a"}
    clock.now = 24.9
    assert live(view, [lease("widgets-a", "a", "t1")]) == {"a"}
    clock.now = 25.0
    assert live(view, [lease("widgets-a", "a", "t1")]) == frozenset()


def test_a_lease_first_seen_is_judged_by_its_own_renew_time() -> None:
    """A newly elected assigner does not trust a dead member's Lease for a whole
    duration from when it first sees it."""
    clock = Clock()
    clock.now = 1000.0
    view = members(clock, wall=WALL + 20.0)
    assert live(view, [lease("widgets-a", "a", stamp(0.0))]) == set()
    assert live(view, [lease("widgets-b", "b", stamp(10.0))]) == {"b"}
    clock.now = 1004.9  # renewed 10 s before it was first seen: 5 s left
    assert live(view, [lease("widgets-b", "b", stamp(10.0))]) == {"b"}
    clock.now = 1005.0
    assert live(view, [lease("widgets-b", "b", stamp(10.0))]) == set()


def test_after_the_first_sight_a_renewal_counts_on_the_assigners_clock() -> None:
    """Whatever the other machine's clock wrote: a renewTime ahead of this wall
    clock counts from when it was seen, and later ones from when they changed."""
    clock = Clock()
    view = members(clock, wall=WALL)
    assert live(view, [lease("widgets-a", "a", stamp(600.0))]) == {"a"}
    clock.now = 14.9
    assert live(view, [lease("widgets-a", "a", stamp(600.0))]) == {"a"}
    clock.now = 15.0
    assert live(view, [lease("widgets-a", "a", stamp(600.0))]) == set()


def test_the_assigner_reads_each_members_process_claims_and_generation() -> None:
    view = members(Clock())
    found = view.observe(
        [
            lease(
                "widgets-a",
                "a",
                annotations={
                    "sharding.opgen.dev/incarnation": "p1",
                    "sharding.opgen.dev/slots": "0-2,5",
                    "sharding.opgen.dev/generation": "7",
                },
            )
        ]
    )
    assert found == {"a": MemberState(Holder("a", "p1"), frozenset({0, 1, 2, 5}), 7)}


def test_a_released_or_deleted_lease_is_no_member_at_once() -> None:
    clock = Clock()
    view = members(clock)
    assert live(view, [lease("widgets-a", "a"), lease("widgets-b", "b")]) == {
        "a",
        "b",
    }
    assert live(view, [lease("widgets-a", None), lease("widgets-b", "b")]) == {"b"}
    assert live(view, [lease("widgets-b", "b")]) == {"b"}


def test_the_assigner_knows_when_the_first_live_lease_expires() -> None:
    """So it reads the members again just then, not up to a retry period later."""
    clock = Clock()
    view = members(clock)
    assert view.until_next_expiry() is None
    live(view, [lease("widgets-a", "a", "t0")])
    clock.now = 6.0
    view.observe([lease("widgets-a", "a", "t0"), lease("widgets-b", "b", "t0")])
    clock.now = 10.0
    assert view.until_next_expiry() == pytest.approx(5.0)  # a's, seen at 0
    clock.now = 15.0
    view.observe([lease("widgets-a", "a", "t0"), lease("widgets-b", "b", "t0")])
    assert view.until_next_expiry() == pytest.approx(6.0)  # a is gone; b's, seen at 6


class FlakyServer:
    """A Reader and Writer of one Lease that stop answering once `broken`."""

    def __init__(self) -> None:
        self.broken = False
        self.hung = False
        self.lease: object | None = None
        self.renewals = 0

    @property
    def default_namespace(self) -> str:
        return "default"

    async def get(self, kind: type, name: str, namespace: str | None = None) -> Any:
        if self.hung:
            await asyncio.Event().wait()
        if self.broken:
            raise TransportError(
                "GET", "/lease", "connect", "the API server does not answer"
            )
        if self.lease is None:
            raise rt.NotFound(404, "not found", reason="NotFound")
        return self.lease

    async def create(self, obj: Any, *, refresh: bool = True) -> Any:
        self.lease = obj
        self.renewals += 1
        return obj

    async def update(self, obj: Any, *, refresh: bool = True) -> Any:
        return await self.create(obj)


def test_a_member_that_cannot_renew_gives_up_at_its_renew_deadline() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        server = FlakyServer()
        member = MemberLease(
            server,  # type: ignore[arg-type]
            server,  # type: ignore[arg-type]
            OPTIONS,
            shard="a",
            namespace="default",
            clock=loop.time,
        )
        await member.join()
        assert member.is_member and server.renewals == 1
        renewing = asyncio.create_task(member.keep_renewing())
        await asyncio.sleep(5.0)  # renewed at 2 and 4
        assert server.renewals == 3
        server.broken = True
        await renewing
        # the last renewal was at 4; attempts at 6, 8, 10, 12 fail; 14 - 4 >= 10
        assert loop.time() == pytest.approx(14.0)
        assert not member.is_member

    run_virtual(main)


def test_a_member_whose_renewal_hangs_gives_up_at_its_renew_deadline() -> None:
    """Not a whole renew deadline after its last attempt began: by then the
    assigner could have taken its Lease for expired."""

    async def main(loop: VirtualTimeLoop) -> None:
        server = FlakyServer()
        member = MemberLease(
            server,  # type: ignore[arg-type]
            server,  # type: ignore[arg-type]
            OPTIONS,
            shard="a",
            namespace="default",
            clock=loop.time,
        )
        await member.join()
        renewing = asyncio.create_task(member.keep_renewing())
        await asyncio.sleep(5.0)  # renewed at 2 and 4
        server.hung = True
        await renewing
        # the renewal begun at 6 never answers; the deadline is 4 + 10
        assert loop.time() == pytest.approx(14.0)
        assert not member.is_member

    run_virtual(main)


def test_a_member_publishes_its_claims_and_a_new_process_waits_for_the_old() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        server = FlakyServer()
        first = MemberLease(
            server, server, OPTIONS, shard="a", namespace="default"  # type: ignore[arg-type]
        )
        await first.join()
        await first.publish(frozenset({1, 2, 3}), 4)
        assert server.lease is not None
        annotations = server.lease.metadata.annotations or {}  # type: ignore[attr-defined]
        assert annotations["sharding.opgen.dev/slots"] == "1-3"
        assert annotations["sharding.opgen.dev/generation"] == "4"
        assert annotations["sharding.opgen.dev/incarnation"] == first.incarnation
        second = MemberLease(
            server, server, OPTIONS, shard="a", namespace="default"  # type: ignore[arg-type]
        )
        with pytest.raises(HeldElsewhere):
            await second.renew()
        assert not second.is_member
        later = MemberLease(
            server, server, OPTIONS, shard="a", namespace="default",  # type: ignore[arg-type]
            wall=lambda: time.time() + OPTIONS.lease_duration + 1,
        )  # fmt: skip
        await later.renew()  # the first one's Lease has expired by then
        assert later.is_member

    run_virtual(main)
