"""`eventually`: checks soon after a first miss, then no more often than `interval`."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from opgen.testing.managers import eventually


async def test_the_pauses_double_from_ten_milliseconds_up_to_the_interval(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pauses: list[float] = []
    answers: Iterator[object] = iter([None, 0, "", False, None, [], "found"])

    async def record(seconds: float) -> None:
        pauses.append(seconds)

    monkeypatch.setattr(asyncio, "sleep", record)
    assert await eventually(lambda: next(answers), interval=0.1) == "found"
    assert pauses == [0.01, 0.02, 0.04, 0.08, 0.1, 0.1]


async def test_an_interval_below_ten_milliseconds_is_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pauses: list[float] = []
    answers: Iterator[object] = iter([None, None, True])

    async def record(seconds: float) -> None:
        pauses.append(seconds)

    monkeypatch.setattr(asyncio, "sleep", record)
    assert await eventually(lambda: next(answers), interval=0.001) is True
    assert pauses == [0.001, 0.001]


async def test_an_async_check_that_never_holds_names_what_did_not_happen() -> None:
    async def never() -> bool:
        await asyncio.sleep(0)
        return False

    with pytest.raises(AssertionError, match="the thing did not happen within 0 s"):
        await eventually(never, timeout=0.05, message="the thing")
