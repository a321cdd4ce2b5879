"""Hot loops: an object reconciled again and again without asking to be is noticed
(no API server: a virtual clock, and the controller's outcome handling called
directly with a reconciler that always succeeds)."""

from __future__ import annotations

import logging

import pytest

from opgen import runtime as rt
from opgen.runtime.hotloop import HotLoops
from opgen.runtime.metrics import Metrics
from opgen.runtime.workqueue import WorkQueue
from tests.webhook.kinds_v1 import Pet


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_of_reconciles_of_one_object_is_a_hot_loop() -> None:
    clock = Clock()
    loops = HotLoops(threshold=5, window=10.0, quiet=60.0, clock=clock)
    for _ in range(4):
        assert loops.reconciled("ns/a") is None
        clock.now += 1.0
    assert loops.reconciled("ns/a") == 5
    assert loops.warning_due() and not loops.warning_due()
    clock.now += 60.0
    assert loops.warning_due()


def test_reconciles_spread_over_time_or_objects_are_not() -> None:
    clock = Clock()
    loops = HotLoops(threshold=5, window=10.0, clock=clock)
    for _ in range(50):
        assert loops.reconciled("ns/slow") is None
        clock.now += 3.0  # a resync, a child's status: never 5 within 10 s
    for i in range(50):
        assert loops.reconciled(f"ns/{i}") is None


def test_what_it_remembers_is_bounded_by_the_window() -> None:
    clock = Clock()
    loops = HotLoops(threshold=5, window=10.0, clock=clock)
    for i in range(1000):
        loops.reconciled(f"ns/{i}")
    clock.now = 11.0
    loops.reconciled("ns/new")
    assert loops.remembered() == 1


class Always:
    """A reconciler that succeeds at once, as one that converged does."""

    async def reconcile(self, request: rt.Request) -> rt.Result:
        return rt.Result()


async def test_the_controller_warns_once_and_counts(
    caplog: pytest.LogCaptureFixture,
) -> None:
    metrics = Metrics()
    controller = rt.Controller("pets", for_=rt.For(Pet), reconciler=Always())
    controller.queue = WorkQueue("pets", metrics=metrics, controller="pets")
    controller._use_metrics(metrics)
    request = rt.Request(namespace="ns", name="rex")
    with caplog.at_level(logging.WARNING, logger="opgen.runtime.controller"):
        for _ in range(2 * controller.hot_loops.threshold):
            await controller._process(request)
    warnings = [r.getMessage() for r in caplog.records if "requeued" in r.getMessage()]
    assert len(warnings) == 1 and "ns/rex was reconciled 20 times" in warnings[0]
    counted = metrics.registry.get_sample_value(
        "opgen_controller_hot_loops_total", {"controller": "pets"}
    )
    assert counted == 2
