"""The controller loop against the API server: sources, outcomes, concurrency, metrics.

No assertion here depends on how fast the machine is: outcomes are read from
the queue (what it was asked to schedule, whether anything is left in it) and
from the reconciler's own record, once the informer has delivered the events
that matter. Exact timings are proven on virtual time (test_workqueue).
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import logging
import time
from collections.abc import Awaitable, Callable

import aiohttp
import pytest

from opgen import runtime as rt
from opgen.api import ObjectMeta
from opgen.api.k8s import ConfigMap
from opgen.runtime.workqueue import WorkQueue
from opgen.testing import Environment
from tests.runtime.helpers import eventually, manager_for, running, sample
from tests.runtime.kinds import Widget, WidgetStatus, widget

pytestmark = pytest.mark.envtest

Step = Callable[[rt.Request, int], Awaitable[rt.Result | None]]
"""A reconcile's own work: given the request and how many reconciles of its name
began (this one counted), a result, or None for the default one."""

REQUEUE_AFTER = 0.5
FLAKY_FAILURES = 8


class Recorder:
    """A reconciler that records calls and delegates to a step function."""

    def __init__(self, step: Step | None = None) -> None:
        self.calls: list[tuple[float, rt.Request]] = []
        self.finished: list[rt.Request] = []
        self.active: collections.Counter[rt.Request] = collections.Counter()
        self.max_active = 0
        self.overlap = False
        self.step = step

    def count(self, name: str) -> int:
        return sum(1 for _, r in self.calls if r.name == name)

    def finished_count(self, name: str) -> int:
        """Reconciles of `name` that returned or raised (the queue has been told)."""
        return sum(1 for r in self.finished if r.name == name)

    def times(self, name: str) -> list[float]:
        return [t for t, r in self.calls if r.name == name]

    async def reconcile(self, request: rt.Request) -> rt.Result:
        self.calls.append((time.monotonic(), request))
        if self.active[request]:
            self.overlap = True
        self.active[request] += 1
        self.max_active = max(self.max_active, sum(self.active.values()))
        try:
            if self.step is not None:
                result = await self.step(request, self.count(request.name))
                if result is not None:
                    return result
            return rt.Result()
        finally:
            self.active[request] -= 1
            self.finished.append(request)


def idle(queue: WorkQueue[rt.Request] | None) -> bool:
    """Nothing queued, scheduled for later, or being processed: without a new event
    nothing will be reconciled again."""
    assert queue is not None
    return len(queue) == 0 and queue.waiting() == 0 and not queue.processing()


def scheduled(queue: WorkQueue[rt.Request] | None) -> list[tuple[rt.Request, float]]:
    """From now on, every (request, delay) the controller asks the queue to wait for."""
    assert queue is not None
    asked: list[tuple[rt.Request, float]] = []
    add_after = queue.add_after

    def recording(item: rt.Request, delay: float) -> None:
        asked.append((item, delay))
        add_after(item, delay)

    queue.add_after = recording  # type: ignore[method-assign]
    return asked


async def stored(manager: rt.Manager, namespace: str, name: str, version: str) -> None:
    """Wait until the informer holds this resourceVersion of the Widget: its event
    has then gone through the controller's predicates and handlers."""
    store = manager.cache.informer_for(Widget).store

    def holds() -> bool:
        entry = store.get((namespace, name))
        return entry is not None and entry.resource_version == version

    await eventually(holds)


async def test_owns_enqueues_the_owner_when_a_child_changes(
    envtest: Environment, namespace: str
) -> None:
    manager = manager_for(envtest, namespace)
    client = manager.client

    async def step(request: rt.Request, n: int) -> None:
        owner = await client.get(Widget, request.name, request.namespace)
        desired = {"message": owner.spec.message}
        try:
            cm = await client.get(ConfigMap, f"{request.name}-cm", request.namespace)
        except rt.NotFound:
            cm = ConfigMap(
                metadata=ObjectMeta(
                    name=f"{request.name}-cm", namespace=request.namespace
                ),
                data=desired,
            )
            rt.owner.set_controller_reference(owner, cm)
            await client.create(cm)
            return
        if cm.data != desired:
            cm.data = desired
            await client.update(cm)

    recorder = Recorder(step)
    manager.add_controller(
        rt.Controller(
            "widget",
            for_=rt.For(Widget),
            owns=[rt.Owns(ConfigMap)],
            reconciler=recorder,
        )
    )
    async with running(manager):
        await client.create(widget("w", namespace, message="hello"))
        await eventually(
            lambda: recorder.count("w") >= 2
        )  # create, then the ConfigMap's ADDED event
        settled = recorder.count("w")
        await client.patch(
            ConfigMap(metadata=ObjectMeta(name="w-cm", namespace=namespace)),
            {"data": {"message": "tampered"}},
        )
        await eventually(lambda: recorder.count("w") > settled)
        await eventually(lambda: _cm_message(manager, namespace) == "hello")


def _cm_message(manager: rt.Manager, namespace: str) -> str | None:
    informer = manager.cache.informer_for(ConfigMap)
    entry = informer.store.get((namespace, "w-cm"))
    return None if entry is None else (entry.to_dict().get("data") or {}).get("message")


async def test_watches_map_function_and_requeue_after_and_resync(
    envtest: Environment, namespace: str
) -> None:
    manager = manager_for(envtest, namespace)

    async def step(request: rt.Request, n: int) -> rt.Result | None:
        if request.name == "timed" and n <= 3:
            return rt.Result(requeue_after=REQUEUE_AFTER)
        return None

    recorder = Recorder(step)

    def by_label(cm: ConfigMap) -> list[rt.Request]:
        target = (cm.metadata.labels or {}).get("target") if cm.metadata else None
        return (
            [rt.Request(cm.metadata.namespace, target)]
            if target and cm.metadata
            else []
        )

    controller = rt.Controller(
        "widget",
        for_=rt.For(Widget),
        watches=[rt.Watches(ConfigMap, by_label)],
        reconciler=recorder,
        options=rt.ControllerOptions(resync_period=None),
    )
    manager.add_controller(controller)
    async with running(manager):
        asked = scheduled(controller.queue)
        await manager.client.create(widget("timed", namespace))
        await eventually(lambda: recorder.finished_count("timed") == 4)
        timed = rt.Request(namespace, "timed")
        # Each Result(requeue_after=) asked the queue for exactly that delay...
        assert asked == [(timed, REQUEUE_AFTER)] * 3
        assert (
            sample(
                manager.metrics,
                "controller_runtime_reconcile_total",
                controller="widget",
                result="requeue_after",
            )
            == 3
        )
        # ...and the queue never delivered early (that it delivers on time is
        # proven on virtual time, test_workqueue).
        times = recorder.times("timed")
        assert all(b - a >= REQUEUE_AFTER for a, b in itertools.pairwise(times)), times
        assert idle(controller.queue), "no requeue once the reconciler stops asking"

        await manager.client.create(
            ConfigMap(
                metadata=ObjectMeta(
                    name="pointer", namespace=namespace, labels={"target": "mapped"}
                )
            )
        )
        await eventually(lambda: recorder.count("mapped") == 1)

    resync = manager_for(envtest, namespace)
    recorder2 = Recorder()
    resync.add_controller(
        rt.Controller(
            "resync",
            for_=rt.For(Widget),
            reconciler=recorder2,
            options=rt.ControllerOptions(resync_period=0.3),
        )
    )
    async with running(resync):
        await eventually(lambda: recorder2.count("timed") >= 3, timeout=30)


async def test_backoff_grows_then_resets_and_terminal_errors_stop(
    envtest: Environment, namespace: str, caplog: pytest.LogCaptureFixture
) -> None:
    manager = manager_for(envtest, namespace)
    failing = {"flaky": FLAKY_FAILURES}

    async def step(request: rt.Request, n: int) -> None:
        if request.name == "terminal":
            raise rt.TerminalError("spec can never work")
        if request.name == "conflicted" and n == 1:
            raise rt.Conflict(409, "the object has been modified", reason="Conflict")
        if request.name == "flaky" and n <= failing["flaky"]:
            raise RuntimeError(f"attempt {n} fails")

    recorder = Recorder(step)
    controller = rt.Controller("widget", for_=rt.For(Widget), reconciler=recorder)
    manager.add_controller(controller)
    async with running(manager):
        asked = scheduled(controller.queue)
        flaky = rt.Request(namespace, "flaky")
        await manager.client.create(widget("flaky", namespace))
        await eventually(lambda: recorder.finished_count("flaky") == FLAKY_FAILURES + 1)
        # Retries wait 5, 10, 20, ... 640 ms: the backoff doubles per failure...
        backoff = [0.005 * 2**i for i in range(FLAKY_FAILURES)]
        assert [delay for r, delay in asked if r == flaky] == pytest.approx(backoff)
        # ...and the queue kept each retry back at least that long.
        gaps = [b - a for a, b in itertools.pairwise(recorder.times("flaky"))]
        for gap, delay in zip(gaps, backoff, strict=True):
            assert gap >= delay * 0.9, gaps
        assert controller.queue is not None
        assert controller.queue.num_requeues(flaky) == 0, "success resets the backoff"

        # Reset: after a success the next failure is retried after 5 ms again, not
        # after the grown 2**FLAKY_FAILURES x 5 ms.
        asked.clear()
        failing["flaky"] = FLAKY_FAILURES + 3
        await manager.client.patch(
            widget("flaky", namespace), {"spec": {"message": "again"}}
        )
        await eventually(lambda: recorder.finished_count("flaky") == FLAKY_FAILURES + 4)
        assert [delay for r, delay in asked if r == flaky] == pytest.approx(
            [0.005, 0.01]
        )

        caplog.clear()
        with caplog.at_level(logging.DEBUG, logger="opgen.runtime.controller"):
            await manager.client.create(widget("terminal", namespace))
            await manager.client.create(widget("conflicted", namespace))
            await eventually(
                lambda: recorder.finished_count("conflicted") == 2
                and recorder.finished_count("terminal") == 1
            )
        assert idle(controller.queue), "terminal errors are not retried"
        assert recorder.count("terminal") == 1
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert [r.getMessage() for r in errors] == [
            f"reconcile {namespace}/terminal failed permanently: spec can never work"
        ]
        text = manager.metrics.exposition().decode()
        assert (
            'controller_runtime_terminal_reconcile_errors_total{controller="widget"} 1.0'
            in text
        )
        assert (
            'controller_runtime_reconcile_total{controller="widget",result="requeue"} 1.0'
            in text
        )
        assert (
            f'controller_runtime_reconcile_errors_total{{controller="widget"}} '
            f"{FLAKY_FAILURES + 2 + 1}.0" in text
        )  # flaky: FLAKY_FAILURES, then 2; terminal: 1


async def test_concurrency_limit_and_one_key_at_a_time(
    envtest: Environment, namespace: str
) -> None:
    manager = manager_for(envtest, namespace)
    gate = asyncio.Event()  # holds the w* reconciles until the test has looked
    busy_gate = asyncio.Event()  # holds the first reconcile of "busy"

    async def step(request: rt.Request, n: int) -> None:
        if request.name != "busy":
            await gate.wait()
        elif n == 1:
            await busy_gate.wait()

    recorder = Recorder(step)
    controller = rt.Controller(
        "widget",
        for_=rt.For(Widget),
        reconciler=recorder,
        options=rt.ControllerOptions(max_concurrent_reconciles=3),
    )
    manager.add_controller(controller)
    async with running(manager):
        queue = controller.queue
        assert queue is not None
        await asyncio.gather(
            *(manager.client.create(widget(f"w{i}", namespace)) for i in range(9))
        )
        # All nine arrive: three are taken by the workers (held by the gate) and six
        # wait in the queue. Arrived but not yet taken (9 + 0) is a moment on the way.
        await eventually(lambda: (len(queue.processing()), len(queue)) == (3, 6))
        assert recorder.max_active == 3
        gate.set()
        await eventually(
            lambda: all(recorder.finished_count(f"w{i}") == 1 for i in range(9))
        )
        assert recorder.max_active == 3

        busy = await manager.client.create(widget("busy", namespace))
        await eventually(lambda: recorder.count("busy") == 1)
        for i in range(5):  # five changes while "busy" is being reconciled
            await manager.client.patch(busy, {"spec": {"message": str(i)}})
        assert busy.metadata.resource_version
        await stored(manager, namespace, "busy", busy.metadata.resource_version)
        busy_gate.set()  # the informer has queued all five: let the first one finish
        await eventually(lambda: recorder.finished_count("busy") == 2)
        assert idle(queue)
        assert not recorder.overlap, "one key was reconciled twice at once"
        assert recorder.count("busy") == 2, "queued changes were collapsed into one"


async def test_status_writes_do_not_loop(envtest: Environment, namespace: str) -> None:
    manager = manager_for(envtest, namespace)
    written: list[str] = []  # resourceVersions of the status writes

    async def step(request: rt.Request, n: int) -> None:
        obj = await manager.client.get(Widget, request.name, request.namespace)
        obj.status = WidgetStatus(
            replicas=n, observed_generation=obj.metadata.generation
        )
        await manager.client.patch_status(obj)  # a different status every time
        assert obj.metadata.resource_version
        written.append(obj.metadata.resource_version)

    recorder = Recorder(step)
    controller = rt.Controller("widget", for_=rt.For(Widget), reconciler=recorder)
    manager.add_controller(controller)
    async with running(manager):
        created = await manager.client.create(widget("s", namespace))
        await eventually(lambda: recorder.finished_count("s") == 1)
        # The status write's own event has come back and was filtered out:
        await stored(manager, namespace, "s", written[-1])
        assert idle(controller.queue) and recorder.count("s") == 1
        await manager.client.patch(created, {"spec": {"message": "spec change"}})
        await eventually(lambda: recorder.finished_count("s") == 2)
        await stored(manager, namespace, "s", written[-1])
        assert idle(controller.queue) and recorder.count("s") == 2


async def test_probes_metrics_and_sigterm_drain(
    envtest: Environment, namespace: str
) -> None:
    import os
    import signal

    manager = manager_for(envtest, namespace)
    finished: list[str] = []
    gate = asyncio.Event()  # the reconcile is in flight until the test opens it

    async def step(request: rt.Request, n: int) -> None:
        await gate.wait()
        await asyncio.sleep(0.1)
        finished.append(request.name)

    recorder = Recorder(step)
    manager.add_controller(
        rt.Controller("widget", for_=rt.For(Widget), reconciler=recorder)
    )
    task = asyncio.create_task(manager.run())
    await asyncio.wait_for(manager.elected.wait(), 30)
    assert manager.health_server is not None and manager.metrics_server is not None
    async with aiohttp.ClientSession() as http:
        health = f"http://127.0.0.1:{manager.health_server.port}"
        async with http.get(f"{health}/healthz") as healthz:
            assert healthz.status == 200
        async with http.get(f"{health}/readyz") as ready:
            assert ready.status == 200 and "[+]informers ok" in await ready.text()
        await manager.client.create(widget("slow", namespace))
        await eventually(lambda: recorder.count("slow") == 1)
        async with http.get(
            f"http://127.0.0.1:{manager.metrics_server.port}/metrics"
        ) as scrape:
            metrics = await scrape.text()
    for name in (
        "controller_runtime_reconcile_total",
        "controller_runtime_reconcile_errors_total",
        "controller_runtime_reconcile_time_seconds",
        "workqueue_depth",
        "workqueue_adds_total",
        "workqueue_retries_total",
        "workqueue_longest_running_processor_seconds",
        "opgen_watch_staleness_seconds",
        "opgen_event_loop_lag_seconds",
        "rest_client_requests_total",
    ):
        assert name in metrics, name
    os.kill(os.getpid(), signal.SIGTERM)  # "slow" is in flight, held by the gate
    queue = manager.controllers[0].queue
    assert queue is not None
    await eventually(lambda: queue.shutting_down)  # the manager is draining...
    assert not task.done(), "...and waits for the in-flight reconcile"
    gate.set()
    await asyncio.wait_for(task, 20)
    assert finished == [
        "slow"
    ], "the in-flight reconcile finished before the manager stopped"
    await manager.rest.aclose()
