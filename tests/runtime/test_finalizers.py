"""The finalizer flow against the API server."""

from __future__ import annotations

import itertools
import time

import pytest

from opgen import runtime as rt
from opgen.testing import Environment
from tests.runtime.helpers import eventually, manager_for, running
from tests.runtime.kinds import Widget, widget

pytestmark = pytest.mark.envtest

FINALIZER = "test.opgen.dev/cleanup"


class FinalizingReconciler:
    def __init__(self, client: rt.Client) -> None:
        self.client = client
        self.cleanups: list[tuple[str, float]] = []

    async def reconcile(self, request: rt.Request) -> rt.Result:
        try:
            obj = await self.client.get(Widget, request.name, request.namespace)
        except rt.NotFound:
            return rt.Result()
        if rt.finalizers.is_deleting(obj):
            if rt.finalizers.has(obj, FINALIZER):
                self.cleanups.append((request.name, time.monotonic()))
                if obj.spec.fail == "cleanup":
                    raise RuntimeError("external resource could not be released")
                await rt.finalizers.remove(self.client, obj, FINALIZER)
            return rt.Result()
        await rt.finalizers.ensure(self.client, obj, FINALIZER)
        return rt.Result()


async def test_delete_runs_cleanup_then_removes_the_finalizer(
    envtest: Environment, namespace: str
) -> None:
    manager = manager_for(envtest, namespace)
    reconciler = FinalizingReconciler(manager.client)
    manager.add_controller(
        rt.Controller("widget", for_=rt.For(Widget), reconciler=reconciler)
    )
    async with running(manager):
        client = manager.client
        await client.create(widget("ok", namespace))
        await eventually(lambda: _finalizers(manager, namespace, "ok") == [FINALIZER])
        await client.delete(widget("ok", namespace))
        await eventually(
            lambda: manager.cache.informer_for(Widget).store.get((namespace, "ok"))
            is None
        )
        with pytest.raises(rt.NotFound):
            await client.uncached.get(Widget, "ok", namespace)
        assert [name for name, _ in reconciler.cleanups] == ["ok"]


async def test_failing_cleanup_retries_with_backoff_and_the_object_stays(
    envtest: Environment, namespace: str
) -> None:
    manager = manager_for(envtest, namespace)
    reconciler = FinalizingReconciler(manager.client)
    manager.add_controller(
        rt.Controller("widget", for_=rt.For(Widget), reconciler=reconciler)
    )
    async with running(manager):
        client = manager.client
        await client.create(widget("stuck", namespace, fail="cleanup"))
        await eventually(
            lambda: _finalizers(manager, namespace, "stuck") == [FINALIZER]
        )
        await client.delete(widget("stuck", namespace))
        await eventually(lambda: len(reconciler.cleanups) >= 6)
        times = [t for _, t in reconciler.cleanups]
        gaps = [b - a for a, b in itertools.pairwise(times)]
        # retries back off: 5, 10, 20, 40, 80 ms at least (lower bounds only: a
        # loaded machine may add to any gap, never take away)
        for i, gap in enumerate(gaps):
            assert gap >= 0.005 * 2**i * 0.9, f"retries back off: {gaps}"
        still = await client.uncached.get(Widget, "stuck", namespace)
        assert still.metadata.deletion_timestamp is not None
        assert still.metadata.finalizers == [FINALIZER]

        # the external problem is fixed: the next retry cleans up and the object goes
        await client.patch(widget("stuck", namespace), {"spec": {"fail": None}})
        await eventually(
            lambda: manager.cache.informer_for(Widget).store.get((namespace, "stuck"))
            is None
        )


async def test_no_finalizer_is_added_once_deletion_started(
    envtest: Environment, namespace: str
) -> None:
    manager = manager_for(envtest, namespace)
    client = rt.Client(manager.rest)
    obj = widget("leaving", namespace)
    obj.metadata.finalizers = ["someone.else/keep"]
    await client.create(obj)
    await client.delete(widget("leaving", namespace))
    deleting = await client.get(Widget, "leaving", namespace)
    writes = manager.rest.writes
    assert await rt.finalizers.ensure(client, deleting, FINALIZER) is False
    assert manager.rest.writes == writes
    assert await rt.finalizers.remove(client, deleting, "someone.else/keep") is True
    with pytest.raises(rt.NotFound):
        await client.get(Widget, "leaving", namespace)
    await manager.rest.aclose()


async def test_finalizer_patch_conflicts_instead_of_overwriting(
    envtest: Environment, namespace: str
) -> None:
    manager = manager_for(envtest, namespace)
    client = rt.Client(manager.rest)
    await client.create(widget("raced", namespace))
    stale = await client.get(Widget, "raced", namespace)
    await client.patch(
        widget("raced", namespace), {"metadata": {"finalizers": ["other/one"]}}
    )
    with pytest.raises(rt.Conflict):
        await rt.finalizers.ensure(client, stale, FINALIZER)
    fresh = await client.get(Widget, "raced", namespace)
    assert await rt.finalizers.ensure(client, fresh, FINALIZER) is True
    assert fresh.metadata.finalizers == ["other/one", FINALIZER]
    await rt.finalizers.remove(client, fresh, "other/one")
    await rt.finalizers.remove(client, fresh, FINALIZER)
    await manager.rest.aclose()


def _finalizers(manager: rt.Manager, namespace: str, name: str) -> list[str] | None:
    entry = manager.cache.informer_for(Widget).store.get((namespace, name))
    return None if entry is None else list(entry.finalizers)
