"""Waiting for an outcome in tests that run real processes: poll until it holds.

Tests assert outcomes and their order, never speed. `GUARD` only stops a
test that would otherwise hang: it is far above what any step takes on a
machine whose cores are all busy, and running out of it fails the test
naming what was awaited.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

__all__ = ["GUARD", "until", "until_async"]

GUARD = 180.0
"""Seconds before a wait that never ends is reported as a failure."""

T = TypeVar("T")


def until(check: Callable[[], T | None], awaited: str, *, every: float = 0.2) -> T:
    """The first truthy result of `check()`, polled every `every` seconds."""
    deadline = time.monotonic() + GUARD
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting for {awaited} after {GUARD:.0f} s")
        time.sleep(every)


async def until_async(
    check: Callable[[], Awaitable[T | None]], awaited: str, *, every: float = 0.2
) -> T:
    """`until` for async checks, sleeping on the event loop."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + GUARD
    while True:
        result = await check()
        if result:
            return result
        if loop.time() > deadline:
            raise AssertionError(f"still waiting for {awaited} after {GUARD:.0f} s")
        await asyncio.sleep(every)
