"""Waiting for a coroutine no longer than a deadline, without losing a cancellation.

`asyncio.wait_for` on Python 3.10 and 3.11 returns the result, and swallows a
cancellation of the caller, when the awaited coroutine finishes in the same
step as the cancellation arrives. A Lease renewal loop that is cancelled at
that moment would go on renewing a Lease its process has given up.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["within"]

T = TypeVar("T")


async def within(coroutine: Coroutine[Any, Any, T], seconds: float | None) -> T:
    """`await coroutine`, cancelled and `asyncio.TimeoutError` after `seconds`
    (at once when not positive; never when None); a cancellation of the caller
    always stands."""
    task = asyncio.ensure_future(coroutine)
    try:
        done, _ = await asyncio.wait(
            {task}, timeout=None if seconds is None else max(seconds, 0.0)
        )
    finally:
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
    if not done:
        raise asyncio.TimeoutError(f"no answer within {seconds}s")
    return task.result()
