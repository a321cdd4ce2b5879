"""The work queue: deduplicating, delaying and rate-limited, as client-go's.

- `add(item)`: an item already waiting is not queued twice (the *dirty* set);
  an item being processed is queued again only once it is `done` (the
  *processing* set), so no two workers ever hold the same item.
- `add_after(item, delay)`: a heap of (ready time, item); an item waiting
  twice keeps the earlier time.
- `add_rate_limited(item)`: delay chosen by the rate limiter (per-item
  exponential backoff and an overall token bucket); `forget(item)` resets it.

Time comes from `clock` (default `time.monotonic`, the event loop's clock too),
so tests can run the queue on virtual time.

Metrics: `workqueue_depth`, `workqueue_adds_total`, `workqueue_retries_total`,
`workqueue_queue_duration_seconds`, `workqueue_work_duration_seconds`,
`workqueue_unfinished_work_seconds`, `workqueue_longest_running_processor_seconds`.
"""

from __future__ import annotations

import asyncio
import collections
import heapq
import itertools
import time
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from opgen.runtime import ratelimit
from opgen.runtime.metrics import Metrics

__all__ = ["ShutDown", "WorkQueue"]

K = TypeVar("K", bound=Hashable)


class ShutDown(Exception):
    """The queue was shut down; workers should exit."""


class WorkQueue(Generic[K]):
    """A rate-limited, delaying, deduplicating FIFO for asyncio workers."""

    def __init__(
        self,
        name: str = "",
        *,
        rate_limiter: ratelimit.RateLimiter | None = None,
        metrics: Metrics | None = None,
        controller: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self.clock = clock
        self.rate_limiter = rate_limiter or ratelimit.default_controller_rate_limiter(
            clock=clock
        )
        self._queue: collections.deque[K] = collections.deque()
        self._dirty: dict[K, float] = {}
        """Items to process, with the time each entered the queue (kept in one dict
        so that a queue operation hashes its item as few times as it can)."""
        self._processing: dict[K, float] = {}
        self._retried: set[K] = set()
        """Items the rate limiter has delayed since they were last forgotten."""
        self._waiting: dict[K, float] = {}
        self._heap: list[tuple[float, int, K]] = []
        self._seq = itertools.count()
        self._timer: asyncio.TimerHandle | None = None
        self._timer_when = 0.0
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        self._shutting_down = False
        metrics = metrics if metrics is not None else Metrics()
        labels = (name, controller or name)
        # read when scraped, not set on every add and get
        metrics.queue_depth.labels(*labels).set_function(self.__len__)
        self._m_adds = metrics.queue_adds.labels(*labels)
        self._m_retries = metrics.queue_retries.labels(*labels)
        self._m_latency = metrics.queue_latency.labels(*labels)
        self._m_work = metrics.work_duration.labels(*labels)
        metrics.unfinished_work.labels(*labels).set_function(self.unfinished_work)
        metrics.longest_running.labels(*labels).set_function(self.longest_running)

    def __len__(self) -> int:
        return len(self._queue)

    @property
    def shutting_down(self) -> bool:
        return self._shutting_down

    def processing(self) -> frozenset[K]:
        return frozenset(self._processing)

    def waiting(self) -> int:
        """Items scheduled for later."""
        return len(self._waiting)

    def add(self, item: K) -> None:
        """Queue `item` now, unless it is already queued."""
        dirty = self._dirty
        if self._shutting_down or item in dirty:
            return
        self._m_adds.inc()
        dirty[item] = self.clock()  # reset when `done` queues it
        if item in self._processing:
            return
        self._queue.append(item)
        self._notify()

    def _notify(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

    def add_after(self, item: K, delay: float) -> None:
        """Queue `item` after `delay` seconds (now if delay <= 0)."""
        if self._shutting_down:
            return
        if delay <= 0:
            self.add(item)
            return
        ready = self.clock() + delay
        current = self._waiting.get(item)
        if current is not None and current <= ready:
            return
        self._waiting[item] = ready
        heapq.heappush(self._heap, (ready, next(self._seq), item))
        self._arm()

    def _arm(self) -> None:
        if not self._heap:
            return
        when = self._heap[0][0]
        if self._timer is not None:
            if self._timer_when <= when:
                return
            self._timer.cancel()
        self._timer_when = when
        self._timer = asyncio.get_running_loop().call_later(
            max(0.0, when - self.clock()), self._fire
        )

    def _fire(self) -> None:
        self._timer = None
        now = self.clock()
        while self._heap and self._heap[0][0] <= now:
            ready, _, item = heapq.heappop(self._heap)
            if self._waiting.get(item) == ready:
                del self._waiting[item]
                self.add(item)
        self._arm()

    def add_rate_limited(self, item: K) -> None:
        """Queue `item` after the rate limiter's delay (a retry)."""
        self._m_retries.inc()
        self._retried.add(item)
        self.add_after(item, self.rate_limiter.when(item))

    def forget(self, item: K) -> None:
        """Reset `item`'s backoff (it succeeded, or will not be retried): what the
        rate limiter keeps for it since this queue last delayed it."""
        retried = self._retried
        if item in retried:  # the limiters hold nothing for an item never delayed
            retried.discard(item)
            self.rate_limiter.forget(item)

    def num_requeues(self, item: K) -> int:
        return self.rate_limiter.num_requeues(item)

    async def get(self) -> K:
        """Wait for the next item; raises `ShutDown` once the queue is shut down and empty."""
        while not self._queue:
            if self._shutting_down:
                raise ShutDown()
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter.done() and not waiter.cancelled():
                    self._notify()  # pass the wake-up this worker will not use on
                raise
        item = self._queue.popleft()
        now = self.clock()
        self._m_latency.observe(now - self._dirty.pop(item, now))
        self._processing[item] = now
        return item

    def done(self, item: K) -> None:
        """Mark `item` processed; if it was added meanwhile, it is queued again now."""
        started = self._processing.pop(item, None)
        if started is not None:
            self._m_work.observe(self.clock() - started)
        if item in self._dirty and not self._shutting_down:
            self._dirty[item] = self.clock()
            self._queue.append(item)
            self._notify()

    def unfinished_work(self) -> float:
        now = self.clock()
        return sum(now - t for t in self._processing.values())

    def longest_running(self) -> float:
        if not self._processing:
            return 0.0
        return self.clock() - min(self._processing.values())

    def shut_down(self) -> None:
        """Stop accepting items and wake every waiting worker; queued items are dropped."""
        self._shutting_down = True
        self._queue.clear()
        self._dirty.clear()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._heap.clear()
        self._waiting.clear()
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
