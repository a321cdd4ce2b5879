"""After convergence, reconciling every object again costs zero writes."""

from __future__ import annotations

import pytest

from opgen import runtime as rt
from opgen.testing import Environment
from tests.runtime.helpers import eventually, manager_for, running
from tests.runtime.kinds import Widget, widget
from tests.runtime.sample import WidgetReconciler

pytestmark = pytest.mark.envtest

COUNT = 100


def _converged(manager: rt.Manager, namespace: str) -> bool:
    store = manager.cache.informer_for(Widget).store
    if len(store) < COUNT:
        return False
    for entry in store:
        status = entry.to_dict().get("status") or {}
        conditions = status.get("conditions") or []
        if status.get("observedGeneration") != entry.generation or not conditions:
            return False
    return True


def _drained(controller: rt.Controller) -> bool:
    """Nothing waits in the controller's queue, and nothing is being reconciled."""
    queue = controller.queue
    assert queue is not None
    return len(queue) == 0 and not queue.processing()


async def test_rereconciling_100_converged_objects_writes_nothing(
    envtest: Environment, namespace: str
) -> None:
    manager = manager_for(envtest, namespace)
    reconciler = WidgetReconciler(manager.client)
    reconciler.setup(manager, max_concurrent_reconciles=4)
    async with running(manager):
        for i in range(COUNT):
            await manager.client.create(widget(f"w{i:03}", namespace, message=f"m{i}"))
        await eventually(lambda: _converged(manager, namespace), timeout=60)
        controller = manager.controllers[0]
        assert controller.queue is not None
        await eventually(lambda: _drained(controller), timeout=30)

        writes_before = manager.rest.writes
        counts_before = dict(manager.rest.counts)
        reconciles_before = reconciler.reconciles
        for i in range(COUNT):
            controller.queue.add(rt.Request(namespace, f"w{i:03}"))
        await eventually(
            lambda: reconciler.reconciles >= reconciles_before + COUNT, timeout=30
        )
        await eventually(lambda: _drained(controller), timeout=30)

        assert manager.rest.writes == writes_before, (
            counts_before,
            dict(manager.rest.counts),
        )
        assert manager.rest.counts.get("get", 0) == counts_before.get(
            "get", 0
        ), "reads came from the cache"
        config = await manager.client.uncached.get(Widget, "w007", namespace)
        assert config.status is not None and rt.conditions.is_true(
            config.status.conditions, "Ready"
        )
