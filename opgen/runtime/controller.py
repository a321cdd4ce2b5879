"""A controller: watched kinds → work queue → N workers calling `reconcile`.

Sources, each with predicates:

- `For(Kind)`: events on the primary kind enqueue the object's own key
  (default predicate: `predicates.default_for`);
- `Owns(ChildKind)`: events on a child enqueue its controller owner, when that
  owner is of the primary kind (both owners when an update changes it);
- `Watches(Kind, map_fn)`: `map_fn(obj)` returns the requests to enqueue.

The queue never hands one key to two workers, and at most
`max_concurrent_reconciles` run at once. Outcomes are mapped to queue
operations, metrics and logs in `_process` (see `reconcile` for the contract):
what is not a bug in the reconciler — a stored object that does not fit its
model (`DecodeError`), an API server that does not answer (`TransportError`)
or answers 429/5xx — is logged as one line, without a traceback.

Sources read only an event's metadata, except `Watches`, whose `map_fn` gets
the object: an object that does not fit its model is not mapped (logged once
per stored version), and never stops the events of the others.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from opgen.runtime import errors, predicates
from opgen.runtime.cache import Cache
from opgen.runtime.decoding import DecodeError, Undecodable
from opgen.runtime.events import EventRecorder
from opgen.runtime.hotloop import HotLoops
from opgen.runtime.informer import Event, Informer
from opgen.runtime.metrics import CounterSeries, Metrics
from opgen.runtime.ratelimit import RateLimiter, default_controller_rate_limiter
from opgen.runtime.reconcile import Reconciler, Request, Result, TerminalError
from opgen.runtime.resources import ResourceType, resource_type
from opgen.runtime.store import Entry
from opgen.runtime.workqueue import ShutDown, WorkQueue

__all__ = ["Controller", "ControllerOptions", "For", "Gate", "Owns", "Watches"]

log = logging.getLogger("opgen.runtime.controller")

MapFunc = Callable[[Any], Iterable[Request]]


@dataclass(frozen=True)
class For:
    """The primary kind: its events enqueue the object itself."""

    kind: type
    predicates: Sequence[predicates.Predicate] = (predicates.default_for,)


@dataclass(frozen=True)
class Owns:
    """A child kind: its events enqueue the child's controller owner."""

    kind: type
    predicates: Sequence[predicates.Predicate] = ()


@dataclass(frozen=True)
class Watches:
    """Any kind: `map_fn(obj)` says which requests its events enqueue."""

    kind: type
    map_fn: MapFunc
    predicates: Sequence[predicates.Predicate] = ()


class Gate(Protocol):
    """Decides, before a worker reconciles a request, whether it does (sharding's
    `ShardHolder`: only the objects of the slots this replica holds), and is told
    when an admitted reconcile ended (so a slot is let go only after its reconciles
    in flight)."""

    def attach(self, informer: Informer, enqueue: Callable[[Request], None]) -> None:
        """Called once with the primary kind's informer and the queue's `add`."""
        ...

    async def admit(self, request: Request) -> bool:
        """True: reconcile `request`; False: drop it. Runs while the worker holds
        the key, so never alongside a reconcile of the same object."""
        ...

    def done(self, request: Request) -> None:
        """The reconcile `admit` let through has ended (however it ended)."""
        ...


@dataclass(frozen=True)
class ControllerOptions:
    """How a controller runs; every field's default is stated."""

    max_concurrent_reconciles: int = 1
    """Workers; one key is never reconciled twice at once whatever this is. Default 1."""
    resync_period: float | None = 10 * 3600.0
    """Every primary object is reconciled again this often (±10 %); None disables. Default 10 h."""
    rate_limiter: Callable[[], RateLimiter] = default_controller_rate_limiter
    """Makes the retry rate limiter. Default: 5 ms→1000 s per item, 10 qps/burst 100 overall."""
    need_leader_election: bool = True
    """Run only on the elected leader (when the manager elects one). Default True."""


class Controller:
    """Runs a reconciler for one primary kind."""

    def __init__(
        self,
        name: str,
        *,
        for_: For,
        reconciler: Reconciler,
        owns: Sequence[Owns] = (),
        watches: Sequence[Watches] = (),
        options: ControllerOptions | None = None,
    ) -> None:
        if not name:
            raise ValueError("a controller needs a name")
        self.name = name
        self.for_ = for_
        self.owns = tuple(owns)
        self.watches = tuple(watches)
        self.reconciler = reconciler
        self.options = options or ControllerOptions()
        if self.options.max_concurrent_reconciles < 1:
            raise ValueError("max_concurrent_reconciles must be at least 1")
        self.primary: ResourceType[Any] = resource_type(for_.kind)
        self.queue: WorkQueue[Request] | None = None
        self._workers: list[asyncio.Task[None]] = []
        self._metrics: Metrics | None = None
        self._events: EventRecorder | None = None
        self._m_total: dict[str, CounterSeries] = {}
        self._active = 0
        """Reconciles in flight (the active-workers gauge reads it when scraped)."""
        self.hot_loops = HotLoops()
        self.gate: Gate | None = None
        """Set by the manager when its reconciles are sharded."""

    @property
    def need_leader_election(self) -> bool:
        return self.options.need_leader_election

    def kinds(self) -> list[type]:
        """Every kind this controller watches (the manager starts their informers)."""
        return [
            self.for_.kind,
            *(o.kind for o in self.owns),
            *(w.kind for w in self.watches),
        ]

    # -- event sources -----------------------------------------------------

    def _request_for(self, entry: Entry) -> Request:
        return Request(entry.namespace or None, entry.name)

    def _owner_request(self, entry: Entry) -> Request | None:
        owner = entry.controller_owner()
        if owner is None or owner.get("kind") != self.primary.kind:
            return None
        group = str(owner.get("apiVersion", "")).rpartition("/")[0]
        if group != self.primary.group:
            return None
        namespace = entry.namespace or None if self.primary.namespaced else None
        return Request(namespace, str(owner.get("name")))

    def _enqueue(self, request: Request | None) -> None:
        if request is not None and self.queue is not None:
            self.queue.add(request)

    def _for_handler(self, event: Event) -> None:
        # `predicates.all_pass`, inline: a handler runs for every watch event
        for passes in self.for_.predicates:
            if not passes(event):
                return
        queue = self.queue
        if queue is not None:
            new = event.new
            queue.add(Request(new.namespace or None, new.name))

    def _owns_handler(self, source: Owns) -> Callable[[Event], None]:
        def handle(event: Event) -> None:
            for passes in source.predicates:
                if not passes(event):
                    return
            new = self._owner_request(event.new)
            self._enqueue(new)
            if event.old is not None:
                old = self._owner_request(event.old)
                if old != new:
                    self._enqueue(old)

        return handle

    def _watches_handler(
        self, source: Watches, informer: Informer
    ) -> Callable[[Event], None]:
        def handle(event: Event) -> None:
            if not predicates.all_pass(source.predicates, event):
                return
            try:
                obj = informer.fresh(event.new)
            except DecodeError as error:
                self._not_mapped(event.new.decoded, error)
                return
            for request in source.map_fn(obj):
                self._enqueue(request)

        return handle

    def _not_mapped(self, prepared: object, error: DecodeError) -> None:
        if isinstance(prepared, Undecodable):
            if prepared.reported:
                return
            prepared.reported = True
        log.warning(
            "controller %s: Watches(%s) cannot call map_fn: %s",
            self.name,
            error.kind,
            error,
            extra={"controller": self.name},
        )

    # -- running -----------------------------------------------------------

    def _use_metrics(self, metrics: Metrics) -> None:
        self._metrics = metrics
        # the children every reconcile touches, looked up once (as the work queue does)
        self._m_time = metrics.reconcile_time.labels(self.name)
        metrics.active_workers.labels(self.name).set_function(lambda: self._active)
        self._m_total.clear()

    async def run(
        self, cache: Cache, metrics: Metrics, events: EventRecorder | None = None
    ) -> None:
        """Wire the sources, wait for the caches, then run workers until cancelled or
        drained; `events` records the Events of reconcile outcomes (the manager's)."""
        self._use_metrics(metrics)
        self._events = events
        self.queue = WorkQueue(
            self.name,
            rate_limiter=self.options.rate_limiter(),
            metrics=metrics,
            controller=self.name,
        )
        metrics.max_concurrent.labels(self.name).set(
            self.options.max_concurrent_reconciles
        )
        for_informer = cache.informer_for(self.for_.kind)
        for_informer.add_handler(self._for_handler)
        if self.gate is not None:
            self.gate.attach(for_informer, self._enqueue)
        for owned in self.owns:
            cache.informer_for(owned.kind).add_handler(self._owns_handler(owned))
        for watched in self.watches:
            informer = cache.informer_for(watched.kind)
            informer.add_handler(self._watches_handler(watched, informer))
        await cache.wait_for_sync()
        log.info(
            "starting %d workers",
            self.options.max_concurrent_reconciles,
            extra={"controller": self.name},
        )
        self._workers = [
            asyncio.create_task(self._worker(), name=f"{self.name} worker {i}")
            for i in range(self.options.max_concurrent_reconciles)
        ]
        resync = asyncio.create_task(self._resync(cache))
        try:
            await asyncio.gather(*self._workers)
        finally:
            resync.cancel()
            for worker in self._workers:
                worker.cancel()
            await asyncio.gather(resync, *self._workers, return_exceptions=True)

    async def drain(self) -> None:
        """Stop taking work; in-flight reconciles finish, then `run` returns."""
        if self.queue is not None:
            self.queue.shut_down()

    async def _resync(self, cache: Cache) -> None:
        period = self.options.resync_period
        if not period:
            return
        informer = cache.informer_for(self.for_.kind)
        while True:
            await asyncio.sleep(period * random.uniform(0.9, 1.1))
            for entry in informer.store:
                self._enqueue(self._request_for(entry))

    async def _worker(self) -> None:
        assert self.queue is not None
        while True:
            try:
                request = await self.queue.get()
            except ShutDown:
                return
            try:
                if self.gate is None:  # not sharded: no admission to wait for
                    await self._process(request)
                elif await self._admitted(request):
                    try:
                        await self._process(request)
                    finally:
                        if self.gate is not None:
                            self.gate.done(request)
            finally:
                self.queue.done(request)

    async def _admitted(self, request: Request) -> bool:
        if self.gate is None:
            return True
        try:
            return await self.gate.admit(request)
        except Exception as exc:
            assert self.queue is not None
            self.queue.add_rate_limited(request)
            log.warning("%s: %s; retrying with backoff", request, exc,
                        extra={"controller": self.name, "request": str(request)})  # fmt: skip
            return False

    async def _process(self, request: Request) -> None:
        queue, metrics = self.queue, self._metrics
        assert queue is not None and metrics is not None
        self._active += 1
        clock = queue.clock  # the queue's: one time for its durations and these
        started = clock()
        outcome: str
        try:
            result = await self.reconciler.reconcile(request)
        except TerminalError as exc:
            outcome = "error"
            queue.forget(request)
            metrics.reconcile_errors.labels(self.name).inc()
            metrics.terminal_errors.labels(self.name).inc()
            log.error("reconcile %s failed permanently: %s", request, exc,
                      extra=self._log_extra(request))  # fmt: skip
        except DecodeError as exc:
            outcome = "error"
            queue.forget(request)
            metrics.reconcile_errors.labels(self.name).inc()
            metrics.terminal_errors.labels(self.name).inc()
            metrics.decode_errors.labels(self.name, exc.kind).inc()
            log.error(
                "reconcile %s: %s; not retried until the object changes",
                request,
                exc,
                extra=self._log_extra(request),
            )
            await self._record_undecodable(exc)
        except errors.Conflict as exc:
            outcome = "requeue"
            queue.add_rate_limited(request)
            if log.isEnabledFor(logging.DEBUG):
                log.debug(
                    "reconcile %s hit a conflict, retrying: %s",
                    request,
                    exc,
                    extra=self._log_extra(request),
                )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            outcome = "error"
            queue.add_rate_limited(request)
            metrics.reconcile_errors.labels(self.name).inc()
            if _unavailable(exc):
                log.warning(
                    "reconcile %s failed: %s; retrying with backoff",
                    request,
                    exc,
                    extra=self._log_extra(request),
                )
            else:
                log.exception(
                    "reconcile %s failed; retrying with backoff",
                    request,
                    extra=self._log_extra(request),
                )
        else:
            queue.forget(request)
            delay = (
                result.delay
                if isinstance(result, Result) and result.requeue_after is not None
                else None
            )
            if delay is not None and delay > 0:
                outcome = "requeue_after"
                queue.add_after(request, delay)
            else:
                outcome = "success"
                count = self.hot_loops.reconciled(request)
                if count is not None:
                    self._notice_hot_loop(request, count, metrics)
        finally:
            self._active -= 1
            self._m_time.observe(clock() - started)
        total = self._m_total.get(outcome)
        if total is None:
            total = self._m_total[outcome] = metrics.reconcile_total.labels(
                self.name, outcome
            )
        total.inc()

    def _log_extra(self, request: Request) -> dict[str, str]:
        """A log record's fields naming the controller and the request; built only
        for a record that is logged, not on every reconcile."""
        return {"controller": self.name, "request": str(request)}

    def _notice_hot_loop(self, request: Request, count: int, metrics: Metrics) -> None:
        metrics.hot_loops.labels(self.name).inc()
        if self.hot_loops.warning_due():
            log.warning(
                "%s was reconciled %d times in %.0fs without asking to be requeued: "
                "does the reconciler write something on every pass (an owned object, "
                "the status)? Each write brings the next reconcile",
                request,
                count,
                self.hot_loops.window,
                extra={"controller": self.name, "request": str(request)},
            )

    async def _record_undecodable(self, error: DecodeError) -> None:
        if self._events is None:
            return
        try:
            regarding = error.partial(error.model)
        except Exception:  # even its metadata does not decode: nothing to refer to
            log.debug("no Event for %s", error.object_name, exc_info=True)
            return
        await self._events.event(
            regarding,
            type="Warning",
            reason="DecodeFailed",
            action="Reconcile",
            note=f"{'; '.join(str(p) for p in error.problems)}. "
            "It does not fit the operator's model and is not reconciled until it changes.",
        )


def _unavailable(error: Exception) -> bool:
    """No answer, or an answer saying the API server cannot serve now (429, 5xx)."""
    if isinstance(error, errors.TransportError):
        return True
    return isinstance(error, errors.ApiError) and (
        error.code == 429 or error.code >= 500
    )
