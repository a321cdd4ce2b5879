"""An asyncio event loop on virtual time, for unit tests of timing without wall clocks.

`run_virtual(main)` runs `main(loop)` on a loop whose `time()` starts at 0 and
jumps straight to the next timer whenever nothing is ready to run: sleeps,
`call_later` and `wait_for` timeouts take no real time, and every delay is
exact, however loaded the machine is. Pass `loop.time` as the clock of the
code under test (`WorkQueue(clock=...)`, `Expectations(clock=...)`) so that it
reads the same time. Only for code without real I/O: a loop with nothing
ready and no timer would wait forever, so it raises instead.
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

__all__ = ["VirtualTimeLoop", "run_virtual"]

T = TypeVar("T")


class _Selector(selectors.BaseSelector):
    """Polls the real selector without blocking; a wait for a timer advances the clock."""

    def __init__(self, loop_time: list[float]) -> None:
        self._inner = selectors.DefaultSelector()
        self._now = loop_time

    def register(
        self, fileobj: Any, events: int, data: Any = None
    ) -> selectors.SelectorKey:
        return self._inner.register(fileobj, events, data)

    def unregister(self, fileobj: Any) -> selectors.SelectorKey:
        return self._inner.unregister(fileobj)

    def modify(
        self, fileobj: Any, events: int, data: Any = None
    ) -> selectors.SelectorKey:
        return self._inner.modify(fileobj, events, data)

    def select(
        self, timeout: float | None = None
    ) -> list[tuple[selectors.SelectorKey, int]]:
        ready = self._inner.select(0)
        if ready or timeout == 0:
            return ready
        if timeout is None:
            raise RuntimeError(
                "virtual time: nothing is ready and no timer is set; the test would hang"
            )
        self._now[0] += timeout
        return []

    def get_map(self) -> Mapping[Any, selectors.SelectorKey]:
        return self._inner.get_map()

    def close(self) -> None:
        self._inner.close()


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """A selector event loop whose clock only moves when it would otherwise wait."""

    def __init__(self) -> None:
        self._virtual_now = [0.0]
        super().__init__(_Selector(self._virtual_now))

    def time(self) -> float:
        return self._virtual_now[0]


def run_virtual(main: Callable[[VirtualTimeLoop], Awaitable[T]]) -> T:
    """Run `main(loop)` to completion on a fresh `VirtualTimeLoop`."""
    loop = VirtualTimeLoop()
    try:
        return loop.run_until_complete(main(loop))
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
