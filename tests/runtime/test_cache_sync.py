"""Waiting for the informers' first lists: a timeout says so, a cancellation stays quiet.

No API server: the informers are never started, so they never sync; time is
virtual (`virtual_time`), so the timeout is exact.
"""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest

from opgen.api.k8s import ConfigMap, Secret
from opgen.runtime.cache import Cache
from opgen.runtime.metrics import Metrics
from tests.runtime.virtual_time import VirtualTimeLoop, run_virtual


class NoServer:
    """Enough of a `RestClient` to build informers that are never started."""

    def __init__(self) -> None:
        self.metrics = Metrics()


def _cache() -> Cache:
    cache = Cache(NoServer())  # type: ignore[arg-type]
    cache.informer_for(ConfigMap)
    cache.informer_for(Secret)
    return cache


def test_wait_for_sync_times_out_at_the_deadline() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        assert await _cache().wait_for_sync(2.5) is False
        assert loop.time() == pytest.approx(2.5), "one deadline for all informers"

    run_virtual(main)


def test_a_cancelled_wait_for_sync_leaves_nothing_unretrieved() -> None:
    errors: list[dict[str, Any]] = []

    async def main(loop: VirtualTimeLoop) -> None:
        loop.set_exception_handler(lambda _, context: errors.append(context))
        waiting = asyncio.create_task(_cache().wait_for_sync(120))
        await asyncio.sleep(1)
        waiting.cancel()  # what a SIGTERM during the initial lists does
        with pytest.raises(asyncio.CancelledError):
            await waiting
        gc.collect()  # "exception was never retrieved" is reported on collection
        await asyncio.sleep(0)

    run_virtual(main)
    assert errors == []
