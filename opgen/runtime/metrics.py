"""Prometheus metrics, with controller-runtime's names, on a per-manager registry.

No global state: each `Metrics` owns a `CollectorRegistry`; the manager serves
it on its metrics endpoint. Names and labels follow controller-runtime and
client-go so existing dashboards and alerts work unchanged; the opgen-only
ones (`opgen_watch_staleness_seconds`, `opgen_event_loop_lag_seconds`) cover
what user-asks #5 and #22 ask for, and `opgen_cache_undecodable_objects` /
`opgen_reconcile_decode_errors_total` count stored objects that no longer fit
the operator's models. `opgen_shard_*` describe a sharded ring (`sharding`).

The counters and histograms (`CounterFamily`, `HistogramFamily`; the runtime updates
them on every reconcile, queue item, request, watch and admission request) keep plain numbers (a
count; per-bucket counts and a sum) and become Prometheus samples only when
scraped. prometheus_client's own `Counter.inc` and `Histogram.observe` take a
lock and make three to seven Python calls each, for a thread-safety the runtime
does not need: it updates them on its event loop, and a scrape only reads. They
expose the same names, label names, types and values as prometheus_client's types
(tests/runtime/test_metrics_families.py compares the two).
"""

from __future__ import annotations

import bisect
import functools
import time
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

import prometheus_client.metrics
from prometheus_client import (
    CollectorRegistry,
    Gauge,
    generate_latest,
)
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

__all__ = [
    "CounterFamily",
    "CounterSeries",
    "HistogramFamily",
    "HistogramSeries",
    "Metrics",
]

_RECONCILE_BUCKETS = (
    0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
    1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
)  # fmt: skip
_QUEUE_BUCKETS = tuple(10.0**e for e in range(-8, 4))
"""10 ns to 1000 s, as client-go's work queue and controller-runtime's webhooks."""

_bucket_label: Callable[[float], str] = floatToGoString
"""A bucket's `le` as prometheus_client writes it (`+Inf`, `1e-08`)."""


@functools.lru_cache(maxsize=64)
def _bucket_labels(bounds: tuple[float, ...]) -> tuple[str, ...]:
    """The `le` of each bound, written once per set of bounds: every client
    and manager makes its own `Metrics`, a test suite hundreds of them."""
    return tuple(_bucket_label(bound) for bound in bounds)


def _created_series() -> bool:
    """Whether scrapes carry `_created` samples, as prometheus_client's own types
    decide it (`PROMETHEUS_DISABLE_CREATED_SERIES`, `disable_created_metrics()`)."""
    return bool(getattr(prometheus_client.metrics, "_use_created", True))


class CounterSeries:
    """One labelled series of a `CounterFamily`: a plain count."""

    __slots__ = ("created", "value")

    def __init__(self) -> None:
        self.value = 0.0
        self.created = time.time()

    def inc(self, amount: float = 1) -> None:
        if amount < 0:
            raise ValueError("a counter is only ever incremented")
        self.value += amount


class HistogramSeries:
    """One labelled series of a `HistogramFamily`: a count per bucket and the sum."""

    __slots__ = ("bounds", "counts", "created", "sum")

    def __init__(self, bounds: Sequence[float]) -> None:
        self.bounds = bounds
        self.counts = [0] * len(bounds)
        self.sum = 0.0
        self.created = time.time()

    def observe(self, amount: float) -> None:
        # the first bucket whose upper bound is at least `amount` (`le` is inclusive)
        self.counts[bisect.bisect_left(self.bounds, amount)] += 1
        self.sum += amount


SeriesT = TypeVar("SeriesT")


class _Family(Collector, Generic[SeriesT]):
    """A metric family of labelled series, registered as its own collector.

    A subclass names its Prometheus type (`kind`), the suffix its exported samples
    add to the family's name (`sample_suffix`, taken off a name given with it, as
    prometheus_client does), and how a new series is made."""

    kind = ""
    sample_suffix = ""

    def __init__(
        self,
        name: str,
        documentation: str,
        labelnames: Sequence[str],
        *,
        registry: CollectorRegistry,
    ) -> None:
        self.name = (
            name.removesuffix(self.sample_suffix) if self.sample_suffix else name
        )
        self.documentation = documentation
        self.labelnames = tuple(labelnames)
        self._series: dict[tuple[str, ...], SeriesT] = {}
        if not self.labelnames:
            self.labels()  # an unlabelled family has its one series from the start
        registry.register(self)

    def _new_series(self) -> SeriesT:
        raise NotImplementedError

    def labels(self, *values: object) -> SeriesT:
        """The series of these label values (made on first use, as prometheus_client's)."""
        key = self._labelled(values)
        series = self._series.get(key)
        if series is None:
            series = self._series[key] = self._new_series()
        return series

    def _metric(self) -> Metric:
        return Metric(self.name, self.documentation, self.kind)

    def describe(self) -> list[Metric]:
        return [self._metric()]

    def _labelled(self, values: tuple[object, ...]) -> tuple[str, ...]:
        if len(values) != len(self.labelnames):
            raise ValueError(
                f"{self.name}: {len(self.labelnames)} label values expected, "
                f"got {len(values)}"
            )
        return tuple(str(value) for value in values)


class CounterFamily(_Family[CounterSeries]):
    """prometheus_client's labelled `Counter`, as far as the runtime uses it
    (`labels(...).inc()`), exported as the same samples: `<name>_total` and, unless
    disabled, `<name>_created` per series."""

    kind = "counter"
    sample_suffix = "_total"

    def _new_series(self) -> CounterSeries:
        return CounterSeries()

    def inc(self, amount: float = 1) -> None:
        """An unlabelled counter's `inc`, as prometheus_client's `Counter.inc`."""
        self.labels().inc(amount)

    def collect(self) -> list[Metric]:
        metric = self._metric()
        created = _created_series()
        total, made = self.name + "_total", self.name + "_created"
        for values, series in list(self._series.items()):
            labels = dict(zip(self.labelnames, values, strict=True))
            metric.add_sample(total, labels, series.value)
            if created:
                metric.add_sample(made, labels, series.created)
        return [metric]


class HistogramFamily(_Family[HistogramSeries]):
    """prometheus_client's labelled `Histogram`, as far as the runtime uses it
    (`labels(...).observe(x)`), exported as the same samples: cumulative
    `<name>_bucket` per bound and `+Inf`, `<name>_count`, `<name>_sum` and, unless
    disabled, `<name>_created` per series."""

    kind = "histogram"

    def __init__(
        self,
        name: str,
        documentation: str,
        labelnames: Sequence[str],
        *,
        buckets: Sequence[float],
        registry: CollectorRegistry,
    ) -> None:
        bounds = [float(bound) for bound in buckets]
        if bounds != sorted(bounds):
            raise ValueError(f"{name}: buckets not in order")
        if not bounds or bounds[-1] != float("inf"):
            bounds.append(float("inf"))
        self.bounds = tuple(bounds)
        self._les = _bucket_labels(self.bounds)
        super().__init__(name, documentation, labelnames, registry=registry)

    def _new_series(self) -> HistogramSeries:
        return HistogramSeries(self.bounds)

    def collect(self) -> list[Metric]:
        metric = self._metric()
        created = _created_series()
        name = self.name
        for values, series in list(self._series.items()):
            labels = dict(zip(self.labelnames, values, strict=True))
            cumulative = 0.0
            for le, count in zip(self._les, list(series.counts), strict=True):
                cumulative += count
                metric.add_sample(name + "_bucket", {**labels, "le": le}, cumulative)
            metric.add_sample(name + "_count", labels, cumulative)
            if self.bounds[0] >= 0:
                metric.add_sample(name + "_sum", labels, series.sum)
            if created:
                metric.add_sample(name + "_created", labels, series.created)
        return [metric]


class Metrics:
    """Every collector the runtime updates, registered on one registry."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = (
            registry if registry is not None else CollectorRegistry(auto_describe=True)
        )
        r = self.registry
        self.reconcile_total = CounterFamily(
            "controller_runtime_reconcile_total",
            "Total number of reconciliations per controller",
            ["controller", "result"],
            registry=r,
        )
        self.reconcile_errors = CounterFamily(
            "controller_runtime_reconcile_errors_total",
            "Total number of reconciliation errors per controller",
            ["controller"],
            registry=r,
        )
        self.terminal_errors = CounterFamily(
            "controller_runtime_terminal_reconcile_errors_total",
            "Total number of terminal reconciliation errors per controller",
            ["controller"],
            registry=r,
        )
        self.reconcile_time = HistogramFamily(
            "controller_runtime_reconcile_time_seconds",
            "Length of time per reconciliation per controller",
            ["controller"],
            buckets=_RECONCILE_BUCKETS,
            registry=r,
        )
        self.hot_loops = CounterFamily(
            "opgen_controller_hot_loops_total",
            "Objects reconciled again and again without asking to be (opgen.runtime.hotloop)",
            ["controller"],
            registry=r,
        )
        self.max_concurrent = Gauge(
            "controller_runtime_max_concurrent_reconciles",
            "Maximum number of concurrent reconciles per controller",
            ["controller"],
            registry=r,
        )
        self.active_workers = Gauge(
            "controller_runtime_active_workers",
            "Number of currently used workers per controller",
            ["controller"],
            registry=r,
        )
        queue_labels = ["name", "controller"]
        self.queue_depth = Gauge(
            "workqueue_depth", "Current depth of workqueue", queue_labels, registry=r
        )
        self.queue_adds = CounterFamily(
            "workqueue_adds_total",
            "Total number of adds handled by workqueue",
            queue_labels,
            registry=r,
        )
        self.queue_retries = CounterFamily(
            "workqueue_retries_total",
            "Total number of retries handled by workqueue",
            queue_labels,
            registry=r,
        )
        self.queue_latency = HistogramFamily(
            "workqueue_queue_duration_seconds",
            "How long in seconds an item stays in workqueue before being requested",
            queue_labels,
            buckets=_QUEUE_BUCKETS,
            registry=r,
        )
        self.work_duration = HistogramFamily(
            "workqueue_work_duration_seconds",
            "How long in seconds processing an item from workqueue takes",
            queue_labels,
            buckets=_QUEUE_BUCKETS,
            registry=r,
        )
        self.unfinished_work = Gauge(
            "workqueue_unfinished_work_seconds",
            "How many seconds of work has been done that is in progress and hasn't been observed by "
            "work_duration",
            queue_labels,
            registry=r,
        )
        self.longest_running = Gauge(
            "workqueue_longest_running_processor_seconds",
            "How many seconds has the longest running processor for workqueue been running",
            queue_labels,
            registry=r,
        )
        self.rest_requests = CounterFamily(
            "rest_client_requests_total",
            "Number of HTTP requests, partitioned by status code, method, and host "
            '(code "<error>": no answer)',
            ["code", "method", "host"],
            registry=r,
        )
        self.watch_staleness = Gauge(
            "opgen_watch_staleness_seconds",
            "Seconds since the informer's watch last received an event or bookmark",
            ["kind"],
            registry=r,
        )
        self.watch_restarts = CounterFamily(
            "opgen_watch_restarts_total",
            "Watches restarted, by reason (gone, error, idle)",
            ["kind", "reason"],
            registry=r,
        )
        self.undecodable = Gauge(
            "opgen_cache_undecodable_objects",
            "Objects in the cache that do not fit their kind's Python model",
            ["kind"],
            registry=r,
        )
        self.decode_errors = CounterFamily(
            "opgen_reconcile_decode_errors_total",
            "Reconciles that ended because an object they read does not fit its Python model",
            ["controller", "kind"],
            registry=r,
        )
        self.loop_lag = Gauge(
            "opgen_event_loop_lag_seconds",
            "How late the event loop ran a timer at the last check (blocking code in reconcilers)",
            registry=r,
        )
        self.leader = Gauge(
            "leader_election_master_status",
            "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, "
            "1 indicates master. 'name' is the string used to identify the lease.",
            ["name"],
            registry=r,
        )
        self.shard_objects = Gauge(
            "opgen_shard_objects",
            "Objects of a sharded kind this replica holds (its shard of the ring)",
            ["ring", "shard", "kind"],
            registry=r,
        )
        self.shard_slots = Gauge(
            "opgen_shard_slots",
            "Slots of the ring this replica holds (reconciles the objects of)",
            ["ring", "shard"],
            registry=r,
        )
        self.shard_members = Gauge(
            "opgen_shard_ring_members",
            "Live members of the ring, as the assigner sees them (on the assigner)",
            ["ring"],
            registry=r,
        )
        self.shard_assigned = Gauge(
            "opgen_shard_assigned_slots",
            "Slots the assignment gives each member (on the assigner)",
            ["ring", "shard"],
            registry=r,
        )
        self.shard_reassignments = CounterFamily(
            "opgen_shard_slot_moves_total",
            "Slots the assigner gave a member, by reason: new (no holder before), "
            "released (let go by a live member first), orphaned (its holder was gone)",
            ["ring", "reason"],
            registry=r,
        )
        self.shard_labelled = CounterFamily(
            "opgen_shard_slot_labels_total",
            "Objects the assigner wrote a slot label on (once in an object's life)",
            ["ring"],
            registry=r,
        )
        self.shard_drain_time = HistogramFamily(
            "opgen_shard_drain_duration_seconds",
            "Seconds from a member seeing a slot taken away to its Lease no longer "
            "claiming it (its reconciles of the slot's objects ended)",
            ["ring"],
            buckets=_RECONCILE_BUCKETS,
            registry=r,
        )

        webhook = ["webhook"]
        self.webhook_latency = HistogramFamily(
            "controller_runtime_webhook_latency_seconds",
            "Histogram of the latency of processing admission requests",
            webhook,
            buckets=_QUEUE_BUCKETS,
            registry=r,
        )
        self.webhook_requests = CounterFamily(
            "controller_runtime_webhook_requests_total",
            "Total number of admission requests by HTTP status code.",
            ["webhook", "code"],
            registry=r,
        )
        self.webhook_in_flight = Gauge(
            "controller_runtime_webhook_requests_in_flight",
            "Current number of admission requests being served.",
            webhook,
            registry=r,
        )
        self.webhook_panics = CounterFamily(
            "controller_runtime_webhook_panics_total",
            "Total number of webhook panics (in opgen: a handler that raised)",
            [],
            registry=r,
        )
        self.conversion_panics = CounterFamily(
            "controller_runtime_conversion_webhook_panics_total",
            "Total number of conversion webhook panics (in opgen: a converter that raised)",
            [],
            registry=r,
        )

    def exposition(self) -> bytes:
        """The registry in Prometheus text format."""
        return generate_latest(self.registry)
