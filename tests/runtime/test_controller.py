"""The controller loop against the API server: sources, outcomes, concurrency, metrics."""

from __future__ import annotations

import asyncio
import collections
import itertools
import logging
import time

import httpx2
import pytest
from lightkube.models.meta_v1 import ObjectMeta
from lightkube.resources.core_v1 import ConfigMap

from opgen import runtime as rt
from opgen.testing import Environment
from tests.runtime.helpers import eventually, manager_for, running
from tests.runtime.kinds import Widget, WidgetStatus, widget

pytestmark = pytest.mark.envtest

REQUEUE_AFTER = 0.5
REQUEUE_SLACK = 0.4
FLAKY_FAILURES = 8


class Recorder:
    """A reconciler that records calls and delegates to a step function."""

    def __init__(self, step=None) -> None:  # type: ignore[no-untyped-def]
        self.calls: list[tuple[float, rt.Request]] = []
        self.active: collections.Counter[rt.Request] = collections.Counter()
        self.max_active = 0
        self.overlap = False
        self.step = step

    def count(self, name: str) -> int:
        return sum(1 for _, r in self.calls if r.name == name)

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

    manager.add_controller(
        rt.Controller(
            "widget",
            for_=rt.For(Widget),
            watches=[rt.Watches(ConfigMap, by_label)],
            reconciler=recorder,
            options=rt.ControllerOptions(resync_period=None),
        )
    )
    async with running(manager):
        await manager.client.create(widget("timed", namespace))
        await eventually(lambda: recorder.count("timed") >= 4)
        gaps = [
            b - a
            for a, b in zip(
                recorder.times("timed"), recorder.times("timed")[1:], strict=False
            )
        ]
        # Never earlier than asked. And not much later: the exact timing is proven on
        # virtual time (test_workqueue); here REQUEUE_SLACK only absorbs a loaded
        # machine's scheduling delay, and is still below 2 x REQUEUE_AFTER, so a
        # requeue that waited twice (or a 1 s timer tick) would fail.
        assert all(
            REQUEUE_AFTER <= gap < REQUEUE_AFTER + REQUEUE_SLACK for gap in gaps[:3]
        ), gaps
        await asyncio.sleep(REQUEUE_AFTER + REQUEUE_SLACK)
        assert (
            recorder.count("timed") == 4
        ), "no requeue once the reconciler stops asking"

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
        await eventually(lambda: recorder2.count("timed") >= 3, timeout=5)


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
        await manager.client.create(widget("flaky", namespace))
        await eventually(lambda: recorder.count("flaky") == FLAKY_FAILURES + 1)
        times = recorder.times("flaky")
        gaps = [b - a for a, b in itertools.pairwise(times)]
        # Retries wait 5, 10, 20, ... 640 ms: each gap is at least its backoff, so
        # the backoff grows (the last retry waited 128 times the first's).
        for i, gap in enumerate(gaps):
            assert gap >= 0.005 * 2**i * 0.9, gaps
        assert controller.queue is not None
        request = rt.Request(namespace, "flaky")
        await eventually(lambda: controller.queue.num_requeues(request) == 0)  # type: ignore[union-attr]

        # Reset: after a success the next failure is retried after 5 ms again, not
        # after the grown 2**FLAKY_FAILURES x 5 ms (1.28 s); 0.6 s tells them apart
        # with room for a loaded machine.
        failing["flaky"] = FLAKY_FAILURES + 3
        await manager.client.patch(
            widget("flaky", namespace), {"spec": {"message": "again"}}
        )
        await eventually(lambda: recorder.count("flaky") >= FLAKY_FAILURES + 4)
        times = recorder.times("flaky")
        first_retry = times[FLAKY_FAILURES + 2] - times[FLAKY_FAILURES + 1]
        assert first_retry < 0.6, f"backoff restarted from 5 ms: {first_retry}"

        caplog.clear()
        with caplog.at_level(logging.DEBUG, logger="opgen.runtime.controller"):
            await manager.client.create(widget("terminal", namespace))
            await manager.client.create(widget("conflicted", namespace))
            await eventually(lambda: recorder.count("conflicted") == 2)
            await asyncio.sleep(0.5)
        assert recorder.count("terminal") == 1, "terminal errors are not retried"
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

    async def step(request: rt.Request, n: int) -> None:
        if request.name == "busy":
            await asyncio.sleep(0.6)
        else:
            await gate.wait()

    recorder = Recorder(step)
    manager.add_controller(
        rt.Controller(
            "widget",
            for_=rt.For(Widget),
            reconciler=recorder,
            options=rt.ControllerOptions(max_concurrent_reconciles=3),
        )
    )
    async with running(manager):
        await asyncio.gather(
            *(manager.client.create(widget(f"w{i}", namespace)) for i in range(9))
        )
        await eventually(lambda: recorder.max_active >= 3)
        await asyncio.sleep(0.3)  # nine are queued: a fourth worker would start now
        assert recorder.max_active == 3
        gate.set()
        await eventually(lambda: all(recorder.count(f"w{i}") >= 1 for i in range(9)))
        assert recorder.max_active == 3

        await manager.client.create(widget("busy", namespace))
        await eventually(lambda: recorder.count("busy") == 1)
        await asyncio.gather(  # five changes while "busy" is being reconciled
            *(
                manager.client.patch(
                    widget("busy", namespace), {"spec": {"message": str(i)}}
                )
                for i in range(5)
            )
        )
        await eventually(lambda: recorder.count("busy") >= 2)
        await asyncio.sleep(1.5)
        assert not recorder.overlap, "one key was reconciled twice at once"
        assert 2 <= recorder.count("busy") <= 3, "queued changes were collapsed"


async def test_status_writes_do_not_loop(envtest: Environment, namespace: str) -> None:
    manager = manager_for(envtest, namespace)

    async def step(request: rt.Request, n: int) -> None:
        obj = await manager.client.get(Widget, request.name, request.namespace)
        obj.status = WidgetStatus(
            replicas=n, observed_generation=obj.metadata.generation
        )
        await manager.client.patch_status(obj)  # a different status every time

    recorder = Recorder(step)
    manager.add_controller(
        rt.Controller("widget", for_=rt.For(Widget), reconciler=recorder)
    )
    async with running(manager):
        await manager.client.create(widget("s", namespace))
        await eventually(lambda: recorder.count("s") == 1)
        await asyncio.sleep(1.0)
        assert recorder.count("s") == 1
        await manager.client.patch(
            widget("s", namespace), {"spec": {"message": "spec change"}}
        )
        await eventually(lambda: recorder.count("s") == 2)
        await asyncio.sleep(0.5)
        assert recorder.count("s") == 2


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
    async with httpx2.AsyncClient() as http:
        health = f"http://127.0.0.1:{manager.health_server.port}"
        assert (await http.get(f"{health}/healthz")).status_code == 200
        ready = await http.get(f"{health}/readyz")
        assert ready.status_code == 200 and "[+]informers ok" in ready.text
        await manager.client.create(widget("slow", namespace))
        await eventually(lambda: recorder.count("slow") == 1)
        metrics = (
            await http.get(f"http://127.0.0.1:{manager.metrics_server.port}/metrics")
        ).text
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
    await asyncio.sleep(0.5)
    assert not task.done(), "the manager waits for the in-flight reconcile"
    gate.set()
    await asyncio.wait_for(task, 20)
    assert finished == [
        "slow"
    ], "the in-flight reconcile finished before the manager stopped"
    await manager.rest.aclose()
