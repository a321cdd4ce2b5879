"""The controller's per-reconcile gauges, without an API server: read when scraped."""

from __future__ import annotations

import asyncio

from opgen import runtime as rt
from opgen.runtime.metrics import Metrics
from opgen.runtime.workqueue import WorkQueue
from tests.webhook.kinds_v1 import Pet


class Held:
    """Holds each reconcile until released, reading the active-workers gauge meanwhile."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        self.release = asyncio.Event()
        self.seen: list[float | None] = []

    async def reconcile(self, request: rt.Request) -> rt.Result:
        self.seen.append(_active(self.metrics))
        await self.release.wait()
        return rt.Result()


def _active(metrics: Metrics) -> float | None:
    return metrics.registry.get_sample_value(
        "controller_runtime_active_workers", {"controller": "pets"}
    )


async def test_active_workers_and_depth_are_read_when_scraped() -> None:
    """The active-workers gauge counts reconciles in flight and the depth gauge the
    queued items, both read from the controller and the queue when scraped."""
    metrics = Metrics()
    held = Held(metrics)
    controller = rt.Controller("pets", for_=rt.For(Pet), reconciler=held)
    controller.queue = WorkQueue("pets", metrics=metrics, controller="pets")
    controller._use_metrics(metrics)
    depth = {"name": "pets", "controller": "pets"}
    assert _active(metrics) == 0
    controller.queue.add(rt.Request("ns", "a"))
    controller.queue.add(rt.Request("ns", "b"))
    assert metrics.registry.get_sample_value("workqueue_depth", depth) == 2
    first = await controller.queue.get()
    assert metrics.registry.get_sample_value("workqueue_depth", depth) == 1
    running = [asyncio.create_task(controller._process(first))]
    running.append(asyncio.create_task(controller._process(rt.Request("ns", "c"))))
    while len(held.seen) < 2:
        await asyncio.sleep(0)
    assert held.seen == [1, 2] and _active(metrics) == 2
    held.release.set()
    await asyncio.gather(*running)
    assert _active(metrics) == 0
