"""Lease leader election on a real API server: one leader reconciles; a successor
takes over after a crash or a release. The timings' exact bounds are proven on
virtual time (test_leader_timing); here only what holds however slow the machine is."""

from __future__ import annotations

import asyncio
import secrets
import time

import pytest

from opgen import runtime as rt
from opgen.testing import Environment
from tests.runtime.helpers import LeaseTimings, eventually, manager_for
from tests.runtime.kinds import Widget, widget

pytestmark = pytest.mark.envtest

LEASE_DURATION = 3.0
LEASE: LeaseTimings = {
    "lease_duration": LEASE_DURATION,
    "renew_deadline": 2.0,
    "retry_period": 0.25,
}
NEVER_EXPIRES: LeaseTimings = {**LEASE, "lease_duration": 3600.0}
"""Longer than any test: a follower that takes over did not wait for expiry."""


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


def _successes(manager: rt.Manager) -> list[tuple[float, float]]:
    """When each successful acquire-or-renew of the manager started and ended."""
    elector = manager.elector
    assert elector is not None
    held: list[tuple[float, float]] = []
    attempt = elector.try_acquire_or_renew

    async def recording() -> bool:
        started = time.monotonic()
        holds = await attempt()
        if holds:
            held.append((started, time.monotonic()))
        return holds

    elector.try_acquire_or_renew = recording  # type: ignore[method-assign]
    return held


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
                # Released, the Lease is free at once: the follower must not need
                # it to expire.
                **(NEVER_EXPIRES if release else LEASE),
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
    held = [_successes(m) for m in managers]  # recorded from the first attempt on
    tasks = [
        asyncio.create_task(m.run(install_signal_handlers=False)) for m in managers
    ]
    try:
        await eventually(lambda: any(m.elected.is_set() for m in managers), timeout=20)
        leader = next(m for m in managers if m.elected.is_set())
        follower = next(m for m in managers if m is not leader)
        renewed, acquired = held[managers.index(leader)], held[managers.index(follower)]
        await managers[0].client.create(widget("one", namespace))
        await eventually(lambda: len(who.by) >= 1)
        assert set(who.by) == {_identity(leader)}, "only the leader reconciles"
        assert not follower.elected.is_set()
        assert follower.controllers[0].queue is None, "its controller never started"

        async def follower_cached() -> bool:
            try:
                await follower.client.get(Widget, "one", namespace)
            except rt.NotFound:  # its informer may not have seen the create yet
                return False
            return True

        await eventually(follower_cached, message="followers cache too")

        leader.stop()  # graceful: releases the Lease; killed: release disabled, like a crash
        await asyncio.wait_for(tasks[managers.index(leader)], 20)
        await eventually(lambda: follower.elected.is_set(), timeout=20)
        if not graceful:
            # The follower respects the Lease: it cannot have seen the leader's last
            # renewal before that renewal began, and it waits a lease duration from
            # when it saw it: its winning attempt ends that much later at least.
            assert renewed and acquired
            last_renewal_began, took_over = renewed[-1][0], acquired[0][1]
            assert took_over - last_renewal_began >= LEASE_DURATION
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
        from opgen.api.k8s import Lease

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
