"""Work queue semantics: dedup, processing set, delays, rate-limited retries (no API server).

Timing runs on virtual time (`virtual_time.run_virtual`, the queue reading the
loop's clock), so delays are asserted exactly and a loaded machine changes nothing.
"""

from __future__ import annotations

import asyncio

import pytest

from opgen.runtime import ratelimit
from opgen.runtime.workqueue import ShutDown, WorkQueue
from tests.runtime.virtual_time import VirtualTimeLoop, run_virtual


async def test_an_item_queued_many_times_while_waiting_is_processed_once() -> None:
    queue: WorkQueue[str] = WorkQueue("q")
    for _ in range(5):
        queue.add("a")
    queue.add("b")
    assert len(queue) == 2
    assert await queue.get() == "a"
    assert await queue.get() == "b"
    assert len(queue) == 0


async def test_an_item_requeued_while_processing_is_processed_again_after_done() -> (
    None
):
    queue: WorkQueue[str] = WorkQueue("q")
    queue.add("a")
    item = await queue.get()
    queue.add("a")
    queue.add("a")
    assert len(queue) == 0, "not handed to a second worker while processing"
    queue.done(item)
    assert len(queue) == 1
    assert await queue.get() == "a"
    queue.done("a")
    assert len(queue) == 0


def test_workers_never_share_a_key() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        queue: WorkQueue[int] = WorkQueue("q", clock=loop.time)
        active: set[int] = set()
        overlap = []
        handled = []

        async def worker() -> None:
            while True:
                try:
                    item = await queue.get()
                except ShutDown:
                    return
                if item in active:
                    overlap.append(item)
                active.add(item)
                await asyncio.sleep(0.005)
                handled.append(item)
                active.discard(item)
                queue.done(item)

        workers = [asyncio.create_task(worker()) for _ in range(4)]
        for round_ in range(20):
            for key in range(3):
                queue.add(key)
            await asyncio.sleep(0.001 * (round_ % 3))
        await asyncio.sleep(0.2)
        queue.shut_down()
        await asyncio.gather(*workers)
        assert not overlap
        assert set(handled) == {0, 1, 2}

    run_virtual(main)


def test_add_after_delays_exactly_and_keeps_the_earliest_time() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        queue: WorkQueue[str] = WorkQueue("q", clock=loop.time)
        queue.add_after("late", 0.3)
        queue.add_after("x", 0.2)
        queue.add_after("x", 0.05)  # earlier wins
        queue.add_after("x", 0.25)  # later is ignored
        assert len(queue) == 0 and queue.waiting() == 2
        assert await queue.get() == "x"
        assert loop.time() == pytest.approx(0.05)
        assert await queue.get() == "late"
        assert loop.time() == pytest.approx(0.3)
        queue.add_after("now", 0)
        assert len(queue) == 1, "no delay: queued at once"

    run_virtual(main)


def test_rate_limited_retries_back_off_and_forget_resets() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        queue: WorkQueue[str] = WorkQueue(
            "q",
            rate_limiter=ratelimit.ItemExponentialBackoff(0.01, 1.0),
            clock=loop.time,
        )
        delays = []
        queue.add("a")
        for _ in range(4):
            item = await queue.get()
            failed_at = loop.time()
            queue.add_rate_limited(item)
            queue.done(item)
            await queue.get()
            delays.append(loop.time() - failed_at)
            queue.done(item)
            queue.add(item)
        assert delays == pytest.approx([0.01, 0.02, 0.04, 0.08])
        assert queue.num_requeues("a") == 4
        queue.forget("a")
        assert queue.num_requeues("a") == 0
        await queue.get()
        queue.add_rate_limited("a")
        queue.done("a")
        started = loop.time()
        await queue.get()
        assert loop.time() - started == pytest.approx(0.01), "backoff starts over"

    run_virtual(main)


def test_shut_down_wakes_waiting_workers() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        queue: WorkQueue[str] = WorkQueue("q", clock=loop.time)
        waiter = asyncio.create_task(queue.get())
        await asyncio.sleep(0.01)
        queue.add_after("scheduled", 5.0)
        queue.shut_down()
        with pytest.raises(ShutDown):
            await waiter
        queue.add("ignored")
        assert len(queue) == 0 and queue.waiting() == 0

    run_virtual(main)


async def test_metrics_track_depth_adds_and_retries() -> None:
    from opgen.runtime.metrics import Metrics

    metrics = Metrics()
    queue: WorkQueue[str] = WorkQueue("q", metrics=metrics, controller="c")
    queue.add("a")
    queue.add("b")
    queue.add_rate_limited("c")
    await queue.get()
    text = metrics.exposition().decode()
    assert 'workqueue_depth{controller="c",name="q"} 1.0' in text
    assert 'workqueue_adds_total{controller="c",name="q"} 2.0' in text
    assert 'workqueue_retries_total{controller="c",name="q"} 1.0' in text
    assert "workqueue_longest_running_processor_seconds" in text
