"""Rate limiters: a token bucket, per-item exponential backoff, and their maximum.

The token bucket protects the API server (client-side QPS/burst) and bounds the
work queue's overall retry rate; the per-item backoff spaces out retries of one
failing key (5 ms doubling to 1000 s, reset by `forget`). `default_controller_
rate_limiter()` is controller-runtime's: the max of both.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Hashable
from typing import Protocol

__all__ = [
    "ItemExponentialBackoff",
    "MaxOf",
    "RateLimiter",
    "TokenBucket",
    "TokenBucketLimiter",
    "default_controller_rate_limiter",
]


class TokenBucket:
    """`rate` tokens per second, at most `burst` saved up; reservations may go into debt."""

    def __init__(
        self, rate: float, burst: int, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("a token bucket needs rate > 0 and burst >= 1")
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._tokens = float(burst)
        self._last = clock()

    def reserve(self) -> float:
        """Take one token now; returns how many seconds to wait before using it."""
        now = self._clock()
        self._tokens = min(
            float(self.burst), self._tokens + (now - self._last) * self.rate
        )
        self._last = now
        self._tokens -= 1.0
        return 0.0 if self._tokens >= 0 else -self._tokens / self.rate

    def try_take(self) -> bool:
        """Take one token if one is available now; never goes into debt."""
        now = self._clock()
        self._tokens = min(
            float(self.burst), self._tokens + (now - self._last) * self.rate
        )
        self._last = now
        if self._tokens < 1.0:
            return False
        self._tokens -= 1.0
        return True

    def is_full(self) -> bool:
        """Whether the bucket has refilled to `burst`: it then acts as a new one would."""
        refilled = self._tokens + (self._clock() - self._last) * self.rate
        return refilled >= self.burst

    async def acquire(self) -> None:
        """Wait until a token is available."""
        delay = self.reserve()
        if delay > 0:
            await asyncio.sleep(delay)


class RateLimiter(Protocol):
    """Decides how long an item waits before its next retry."""

    def when(self, item: Hashable) -> float: ...

    def forget(self, item: Hashable) -> None: ...

    def num_requeues(self, item: Hashable) -> int: ...


class ItemExponentialBackoff:
    """base * 2**failures seconds, capped; `forget` resets an item."""

    def __init__(self, base: float = 0.005, cap: float = 1000.0) -> None:
        self.base = base
        self.cap = cap
        self._failures: dict[Hashable, int] = {}

    def when(self, item: Hashable) -> float:
        failures = self._failures.get(item, 0)
        self._failures[item] = failures + 1
        if failures > 64:  # 2**64 * base overflows nothing but is far past any cap
            return self.cap
        return float(min(self.base * (2.0**failures), self.cap))

    def forget(self, item: Hashable) -> None:
        self._failures.pop(item, None)

    def num_requeues(self, item: Hashable) -> int:
        return self._failures.get(item, 0)


class TokenBucketLimiter:
    """An overall limit shared by every item (default 10 retries/s, burst 100)."""

    def __init__(
        self,
        rate: float = 10.0,
        burst: int = 100,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.bucket = TokenBucket(rate, burst, clock=clock)

    def when(self, item: Hashable) -> float:
        return self.bucket.reserve()

    def forget(self, item: Hashable) -> None:
        return None

    def num_requeues(self, item: Hashable) -> int:
        return 0


class MaxOf:
    """The longest delay any of the limiters asks for."""

    def __init__(self, *limiters: RateLimiter) -> None:
        self.limiters = limiters

    def when(self, item: Hashable) -> float:
        return float(max(limiter.when(item) for limiter in self.limiters))

    def forget(self, item: Hashable) -> None:
        for limiter in self.limiters:
            limiter.forget(item)

    def num_requeues(self, item: Hashable) -> int:
        return max(limiter.num_requeues(item) for limiter in self.limiters)


def default_controller_rate_limiter(
    *, clock: Callable[[], float] = time.monotonic
) -> RateLimiter:
    """Per-item 5 ms → 1000 s exponential backoff, and 10 qps / burst 100 overall."""
    return MaxOf(
        ItemExponentialBackoff(0.005, 1000.0),
        TokenBucketLimiter(10.0, 100, clock=clock),
    )
