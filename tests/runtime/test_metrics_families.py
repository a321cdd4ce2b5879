"""The runtime's plain-count metric families scrape as prometheus_client's own types.

`CounterFamily` and `HistogramFamily` (opgen.runtime.metrics) replace
prometheus_client's `Counter` and `Histogram` on the runtime's hot paths. A scrape
must not tell them apart: the same families, names, label names, types, help texts
and values, in the same order. Only the `_created` samples differ, being the times
the series were made. Each test runs the same observations against both and
compares what `/metrics` would serve.
"""

from __future__ import annotations

import asyncio
import re
from contextlib import AbstractAsyncContextManager

import prometheus_client
import pytest
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from opgen import runtime as rt
from opgen.runtime import errors, metrics, seams
from opgen.runtime.decoding import DecodeError
from opgen.runtime.metrics import CounterFamily, HistogramFamily, Metrics
from opgen.runtime.resources import resource_type
from opgen.runtime.rest import RestClient
from opgen.runtime.seams import Answer
from opgen.runtime.workqueue import WorkQueue
from tests.runtime.kinds import Widget
from tests.runtime.virtual_time import VirtualTimeLoop, run_virtual

BUCKETS = (0.005, 0.01, 0.5, 1.0, 10.0)
OBSERVED = (-1.0, 0.0, 0.005, 0.0050001, 0.01, 0.3, 0.5, 1.0, 7.0, 10.0, 11.0, 1e9)
"""Below, on and just above bounds, and past the last one (the `+Inf` bucket)."""

CREATED = re.compile(r"^(\w+_created(?:\{[^}]*\})?) \S+$", re.MULTILINE)


def _scraped(registry: CollectorRegistry) -> str:
    """The registry's exposition, with each `_created` sample's time left out."""
    return CREATED.sub(r"\1 <time>", generate_latest(registry).decode())


def _observe_all(
    counter: Counter | CounterFamily, histogram: Histogram | HistogramFamily
) -> None:
    counter.labels("a", 200).inc()
    counter.labels("a", 200).inc(2.5)
    counter.labels("b", "<error>").inc(0)
    for value in OBSERVED:
        histogram.labels("x").observe(value)
    histogram.labels("y").observe(0.02)
    histogram.labels("empty")


def _both() -> tuple[CollectorRegistry, CollectorRegistry]:
    before, after = CollectorRegistry(), CollectorRegistry()
    labels = ["name", "code"]
    _observe_all(
        Counter("t_requests_total", "Requests.", labels, registry=before),
        Histogram("t_seconds", "Time.", ["name"], buckets=BUCKETS, registry=before),
    )
    _observe_all(
        CounterFamily("t_requests_total", "Requests.", labels, registry=after),
        HistogramFamily(
            "t_seconds", "Time.", ["name"], buckets=BUCKETS, registry=after
        ),
    )
    return before, after


def test_counter_and_histogram_scrape_as_prometheus_clients() -> None:
    before, after = _both()
    assert _scraped(after) == _scraped(before)
    text = _scraped(after)
    assert 't_requests_total{code="200",name="a"} 3.5' in text
    assert 't_seconds_bucket{le="0.005",name="x"} 3.0' in text  # -1, 0 and 0.005
    assert 't_seconds_bucket{le="+Inf",name="x"} 12.0' in text
    assert 't_seconds_count{name="empty"} 0.0' in text
    for registry in (before, after):
        assert registry.get_sample_value("t_seconds_sum", {"name": "y"}) == 0.02


def test_an_unlabelled_counter_scrapes_as_prometheus_clients() -> None:
    before, after = CollectorRegistry(), CollectorRegistry()
    counters = (
        Counter("t_panics_total", "Panics.", registry=before),
        CounterFamily("t_panics_total", "Panics.", [], registry=after),
    )
    assert _scraped(after) == _scraped(before)  # 0 before the first `inc`
    assert "t_panics_total 0.0" in _scraped(after)
    for counter in counters:
        counter.inc()
        counter.inc(2)
    assert _scraped(after) == _scraped(before)
    assert after.get_sample_value("t_panics_total") == 3
    with pytest.raises(ValueError):  # a labelled family has no series of its own
        CounterFamily("t_total", "T.", ["a"], registry=after).inc()


def test_created_series_follow_prometheus_clients_switch() -> None:
    # prometheus_client leaves its two switches unannotated
    prometheus_client.disable_created_metrics()  # type: ignore[no-untyped-call]
    try:
        before, after = _both()
        assert "_created" not in _scraped(before)
        assert _scraped(after) == _scraped(before)
    finally:
        prometheus_client.enable_created_metrics()  # type: ignore[no-untyped-call]
    assert "t_requests_created" in _scraped(after)


def test_misuse_is_refused_as_prometheus_client_refuses_it() -> None:
    registry = CollectorRegistry()
    counter = CounterFamily("t_total", "T.", ["a"], registry=registry)
    with pytest.raises(ValueError):
        counter.labels("x").inc(-1)
    with pytest.raises(ValueError):
        counter.labels("x", "y")
    with pytest.raises(ValueError):
        HistogramFamily("t_h", "T.", ["a"], buckets=(1.0, 0.5), registry=registry)
    with pytest.raises(ValueError):  # the same names twice on one registry
        CounterFamily("t_total", "T.", ["a"], registry=registry)


# -- a reconcile sequence, through the controller, its queue and the REST client --

WIDGETS = resource_type(Widget)


class ScriptedTransport:
    """Answers a create with 201, or with what the reconciler asked for."""

    host = "scripted"
    namespace = "ns"

    def __init__(self) -> None:
        self.next: Answer | Exception | None = None

    async def send(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        content_type: str | None = None,
        accept: str | None = None,
    ) -> Answer:
        answer, self.next = self.next, None
        if isinstance(answer, Exception):
            raise answer
        return answer or Answer(201, body or b"{}")

    def stream(
        self,
        method: str,
        path: str,
        *,
        read_timeout: float | None,
        accept: str | None = None,
    ) -> AbstractAsyncContextManager[seams.Stream]:
        raise AssertionError("no watch in this test")

    async def aclose(self) -> None:
        pass

    def sibling(self) -> seams.Transport:
        raise AssertionError("no sibling in this test")


CONFLICT = Answer(409, b'{"kind":"Status","code":409,"reason":"Conflict"}')


class Scripted:
    """Each request's reconciles, in order: a step takes virtual time, writes once
    and ends as the script says; a request with no steps left takes the "ok" step."""

    def __init__(self, rest: RestClient, transport: ScriptedTransport) -> None:
        self.rest, self.transport = rest, transport
        self.steps: dict[str, list[str]] = {
            "plain": ["ok"],
            "later": ["after", "ok"],
            "flaky": ["conflict", "unreachable", "error", "ok"],
            "broken": ["terminal"],
            "misfit": ["undecodable"],
        }

    async def reconcile(self, request: rt.Request) -> rt.Result:
        steps = self.steps[request.name]
        step = steps.pop(0) if steps else "ok"
        await asyncio.sleep({"ok": 0.27, "after": 0.02}.get(step, 1.6))
        if step == "conflict":
            self.transport.next = CONFLICT
        elif step == "unreachable":
            self.transport.next = errors.TransportError(
                "POST", "https://scripted", "connect", "refused"
            )
        body = b'{"metadata":{"name":"%s"}}' % request.name.encode()
        await self.rest.request("create", WIDGETS, namespace="ns", body=body)
        if step == "after":
            return rt.Result(requeue_after=5)
        if step == "error":
            raise RuntimeError("the reconciler failed")
        if step == "terminal":
            raise rt.TerminalError("never again")
        if step == "undecodable":
            raise DecodeError(WIDGETS, body, ())
        return rt.Result()


async def _reconcile_sequence(loop: VirtualTimeLoop, into: Metrics) -> None:
    transport = ScriptedTransport()
    rest = RestClient(transport, metrics=into)
    reconciler = Scripted(rest, transport)
    controller = rt.Controller("widgets", for_=rt.For(Widget), reconciler=reconciler)
    controller.queue = WorkQueue(
        "widgets", metrics=into, controller="widgets", clock=loop.time
    )
    controller._use_metrics(into)
    workers = [asyncio.create_task(controller._worker()) for _ in range(2)]
    for name in reconciler.steps:
        controller.queue.add(rt.Request("ns", name))
    await asyncio.sleep(60)  # virtual: every retry and requeue is done by then
    assert not any(reconciler.steps.values())
    controller.queue.shut_down()
    await asyncio.gather(*workers)


def _metrics_counting_with(counter: type, histogram: type) -> Metrics:
    """A `Metrics()` whose hot-path families are of these types."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(metrics, "CounterFamily", counter)
        patch.setattr(metrics, "HistogramFamily", histogram)
        return Metrics()


def test_a_reconcile_sequence_scrapes_as_with_prometheus_clients_types() -> None:
    before = _metrics_counting_with(Counter, Histogram)  # as the runtime counted before
    after = Metrics()
    assert isinstance(before.reconcile_total, Counter)
    assert isinstance(after.reconcile_total, CounterFamily)
    run_virtual(lambda loop: _reconcile_sequence(loop, before))
    run_virtual(lambda loop: _reconcile_sequence(loop, after))

    assert _scraped(after.registry) == _scraped(before.registry)
    families = {
        family.name: family
        for family in text_string_to_metric_families(after.exposition().decode())
    }
    assert families["controller_runtime_reconcile_time_seconds"].type == "histogram"
    assert families["rest_client_requests"].type == "counter"
    sample = after.registry.get_sample_value
    widgets = {"controller": "widgets"}
    queue = {"name": "widgets", "controller": "widgets"}
    results = {
        result: sample(
            "controller_runtime_reconcile_total", {**widgets, "result": result}
        )
        for result in ("success", "requeue_after", "requeue", "error")
    }
    assert results == {"success": 3, "requeue_after": 1, "requeue": 1, "error": 4}
    assert sample("controller_runtime_reconcile_errors_total", widgets) == 4
    assert sample("controller_runtime_terminal_reconcile_errors_total", widgets) == 2
    decode_errors = {**widgets, "kind": "Widget"}
    assert sample("opgen_reconcile_decode_errors_total", decode_errors) == 1
    assert sample("workqueue_adds_total", queue) == 9
    assert sample("workqueue_retries_total", queue) == 3
    reconcile_time = "controller_runtime_reconcile_time_seconds"
    assert sample(f"{reconcile_time}_bucket", {**widgets, "le": "0.3"}) == 4
    assert sample(f"{reconcile_time}_count", widgets) == 9
    requests = {"method": "POST", "host": "scripted"}
    assert sample("rest_client_requests_total", {**requests, "code": "201"}) == 7
    assert sample("rest_client_requests_total", {**requests, "code": "409"}) == 1
    assert sample("rest_client_requests_total", {**requests, "code": "<error>"}) == 1
