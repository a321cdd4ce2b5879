"""Backoff and token bucket arithmetic, with a fake clock."""

from __future__ import annotations

from opgen.runtime import ratelimit


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_item_backoff_doubles_from_5ms_to_1000s_and_resets() -> None:
    backoff = ratelimit.ItemExponentialBackoff()
    delays = [backoff.when("a") for _ in range(20)]
    assert delays[:4] == [0.005, 0.01, 0.02, 0.04]
    assert delays[-1] == 1000.0 and max(delays) == 1000.0
    assert backoff.when("b") == 0.005, "per item"
    backoff.forget("a")
    assert backoff.num_requeues("a") == 0 and backoff.when("a") == 0.005


def test_token_bucket_allows_burst_then_rate() -> None:
    clock = Clock()
    bucket = ratelimit.TokenBucket(10.0, 3, clock=clock)
    assert [bucket.reserve() for _ in range(3)] == [0.0, 0.0, 0.0]
    assert abs(bucket.reserve() - 0.1) < 1e-9
    assert abs(bucket.reserve() - 0.2) < 1e-9
    clock.now = 10.0
    assert bucket.reserve() == 0.0, "refilled (up to burst)"


def test_try_take_never_goes_into_debt() -> None:
    clock = Clock()
    bucket = ratelimit.TokenBucket(1.0, 2, clock=clock)
    assert bucket.try_take() and bucket.try_take()
    assert not bucket.try_take()
    clock.now = 1.0
    assert bucket.try_take()


def test_default_controller_limiter_is_the_max_of_both() -> None:
    limiter = ratelimit.default_controller_rate_limiter()
    assert limiter.when("x") == 0.005
    assert limiter.when("x") == 0.01
    delays = [
        limiter.when(i) for i in range(150)
    ]  # 150 distinct items: the bucket (burst 100) kicks in
    assert max(delays) > 1.0
    limiter.forget("x")
    assert limiter.num_requeues("x") == 0
