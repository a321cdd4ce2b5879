"""`timeouts.within`: a deadline on a coroutine that never loses a cancellation."""

from __future__ import annotations

import asyncio

import pytest

from opgen.runtime.timeouts import within
from tests.runtime.virtual_time import VirtualTimeLoop, run_virtual


def test_a_cancellation_stands_when_the_awaited_finishes_in_the_same_step() -> None:
    """asyncio.wait_for on Python 3.10 and 3.11 returns 1 here instead."""

    async def main(loop: VirtualTimeLoop) -> None:
        async def quick() -> int:
            return 1

        caller = asyncio.create_task(within(quick(), 10.0))
        await asyncio.sleep(0)  # the caller waits; `quick` is about to run
        caller.cancel()
        await asyncio.gather(caller, return_exceptions=True)
        assert caller.cancelled()

    run_virtual(main)


def test_an_answer_in_time_is_returned_and_a_hang_ends_at_the_deadline() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        async def answer() -> str:
            await asyncio.sleep(3.0)
            return "yes"

        assert await within(answer(), 5.0) == "yes"
        assert loop.time() == pytest.approx(3.0)
        hung = asyncio.Event()
        cancelled: list[bool] = []

        async def hang() -> None:
            try:
                await hung.wait()
            except asyncio.CancelledError:
                cancelled.append(True)
                raise

        with pytest.raises(asyncio.TimeoutError):
            await within(hang(), 5.0)
        assert loop.time() == pytest.approx(8.0)
        assert cancelled == [True]
        with pytest.raises(asyncio.TimeoutError):
            await within(hang(), -1.0)  # no time left: at once
        assert loop.time() == pytest.approx(8.0)

    run_virtual(main)


def test_the_coroutines_error_is_raised() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        async def refuse() -> None:
            raise ValueError("refused")

        with pytest.raises(ValueError, match="refused"):
            await within(refuse(), 5.0)

    run_virtual(main)
