"""Noticing a hot loop: one object reconciled again and again without asking to be.

A reconciler that writes something on every pass (an owned StatefulSet
updated with a field the API server then defaults back, a status holding the
current time) brings its own next reconcile: the write is an event, the
event a reconcile. Nothing fails, so nothing is logged, and the operator
burns the API server. A converged object is reconciled only when something
changes, so `HotLoops` counts each object's successful reconciles that did
not ask to be requeued; `threshold` of them within `window` seconds is a
hot loop. The controller then logs one warning naming the object (at most
one per `quiet` seconds per controller) and counts it in
`opgen_controller_hot_loops_total{controller}`.

What it remembers is bounded by the objects reconciled within the last
`window` seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable

__all__ = ["HotLoops"]


class HotLoops:
    """Per object, the times of its recent successful reconciles."""

    def __init__(
        self,
        *,
        threshold: int = 20,
        window: float = 10.0,
        quiet: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.threshold = threshold
        self.window = window
        self.quiet = quiet
        self._clock = clock
        self._seen: dict[Hashable, list[float]] = {}
        self._next_sweep = clock() + window
        self._next_warning = float("-inf")

    def reconciled(self, key: Hashable) -> int | None:
        """Record a successful reconcile of `key` that asked for no requeue; the
        number of them within the window when that makes a hot loop, else None."""
        now = self._clock()
        if now >= self._next_sweep:
            self._forget_before(now - self.window)
            self._next_sweep = now + self.window
        times = self._seen.get(key)
        if times is None:
            # a list, not a deque: an empty deque holds a block of 64 slots (about
            # 760 bytes for each object reconciled), these at most `threshold` times
            times = self._seen[key] = []
        times.append(now)
        if times[0] < now - self.window:
            times[:] = [moment for moment in times if moment >= now - self.window]
        if len(times) < self.threshold:
            return None
        count = len(times)
        times.clear()  # the next report needs as many again
        return count

    def warning_due(self) -> bool:
        """Whether a warning may be logged now (one per `quiet` seconds)."""
        now = self._clock()
        if now < self._next_warning:
            return False
        self._next_warning = now + self.quiet
        return True

    def remembered(self) -> int:
        """How many objects' reconciles are remembered."""
        return len(self._seen)

    def _forget_before(self, moment: float) -> None:
        self._seen = {
            key: times
            for key, times in self._seen.items()
            if times and times[-1] >= moment
        }
