"""Lease leader election: one leader reconciles; a successor takes over after a crash or a release."""

from __future__ import annotations

import asyncio
import secrets
import time

import pytest

from opgen import runtime as rt
from opgen.testing import Environment
from tests.runtime.helpers import eventually, manager_for
from tests.runtime.kinds import Widget, widget

pytestmark = pytest.mark.envtest

LEASE_DURATION = 3.0
RETRY_PERIOD = 0.25
LEASE = {
    "lease_duration": LEASE_DURATION,
    "renew_deadline": 2.0,
    "retry_period": RETRY_PERIOD,
}
# A follower last saw the leader's record change at most about two retry periods
# (one renewal, one jittered poll) before the leader stopped.
SEEN_BEFORE_STOP = 2 * RETRY_PERIOD * 1.2


class Who:
    def __init__(self) -> None:
        self.by: list[str] = []

    def reconciler(self, ident: str) -> rt.FuncReconciler:
        async def reconcile(request: rt.Request) -> rt.Result:
            self.by.append(ident)
            return rt.Result()

        return rt.FuncReconciler(reconcile)


def _identity(manager: rt.Manager) -> str:
    assert manager.elector is not None
    return manager.elector.identity


def _pair(
    envtest: Environment, namespace: str, who: Who, lease: str, release: bool
) -> list[rt.Manager]:
    managers = []
    for ident in ("a", "b"):
        manager = manager_for(
            envtest,
            namespace,
            leader_election=rt.LeaderElectionConfig(
                name=lease,
                namespace=namespace,
                identity=ident,
                release_on_stop=release,
                **LEASE,
            ),
        )
        manager.add_controller(
            rt.Controller(
                "widget", for_=rt.For(Widget), reconciler=who.reconciler(ident)
            )
        )
        managers.append(manager)
    return managers


@pytest.mark.parametrize("graceful", [False, True], ids=["killed", "released"])
async def test_one_leader_reconciles_and_the_other_takes_over(
    envtest: Environment, namespace: str, graceful: bool
) -> None:
    who = Who()
    managers = _pair(
        envtest, namespace, who, f"lease-{secrets.token_hex(3)}", release=graceful
    )
    tasks = [
        asyncio.create_task(m.run(install_signal_handlers=False)) for m in managers
    ]
    try:
        await eventually(lambda: any(m.elected.is_set() for m in managers), timeout=20)
        leader = next(m for m in managers if m.elected.is_set())
        follower = next(m for m in managers if m is not leader)
        await managers[0].client.create(widget("one", namespace))
        await eventually(lambda: len(who.by) >= 1)
        await asyncio.sleep(0.5)
        assert set(who.by) == {_identity(leader)}, "only the leader reconciles"
        assert not follower.elected.is_set()
        assert (
            await follower.client.get(Widget, "one", namespace)
        ).metadata.name == "one", "followers cache too"

        stopped_at = time.monotonic()
        leader.stop()  # graceful: releases the Lease; killed: release disabled, like a crash
        await asyncio.wait_for(tasks[managers.index(leader)], 20)
        await eventually(lambda: follower.elected.is_set(), timeout=10)
        took = time.monotonic() - stopped_at
        expiry = LEASE_DURATION - SEEN_BEFORE_STOP  # the earliest a crash allows
        if graceful:
            # Released: taken at the follower's next poll (~0.3 s), well before
            # the Lease could have expired; the bound leaves a loaded machine 1 s.
            assert took < expiry, took
        else:
            # Killed: the follower respects the Lease (never before it expired) and
            # takes over within about one lease duration (not two).
            assert expiry <= took < 2 * LEASE_DURATION, took
        await follower.client.create(widget("two", namespace))
        await eventually(lambda: _identity(follower) in who.by)
    finally:
        for m in managers:
            m.stop()
        await asyncio.gather(*tasks, return_exceptions=True)
        for m in managers:
            await m.rest.aclose()


async def test_leader_steps_down_when_renewal_fails(
    envtest: Environment, namespace: str
) -> None:
    lease = f"lease-{secrets.token_hex(3)}"
    manager = manager_for(
        envtest,
        namespace,
        leader_election=rt.LeaderElectionConfig(
            name=lease, namespace=namespace, identity="victim", **LEASE
        ),
    )
    manager.add_controller(
        rt.Controller("widget", for_=rt.For(Widget), reconciler=Who().reconciler("v"))
    )
    task = asyncio.create_task(manager.run(install_signal_handlers=False))
    try:
        await asyncio.wait_for(manager.elected.wait(), 20)
        from lightkube.resources.coordination_v1 import Lease

        # Someone else takes the Lease (e.g. after a network partition): renewals now fail.
        await manager.client.patch(
            await manager.client.uncached.get(Lease, lease, namespace),
            {"spec": {"holderIdentity": "thief", "leaseDurationSeconds": 3600}},
        )
        with pytest.raises(rt.LeaderElectionLost):
            await asyncio.wait_for(task, 10)
        assert not manager.elected.is_set()
    finally:
        manager.stop()
        await asyncio.gather(task, return_exceptions=True)
        await manager.rest.aclose()
