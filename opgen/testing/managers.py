"""Running a manager inside a test, and waiting for what it does.

    manager = rt.Manager.from_kubeconfig(account.kubeconfig_path, options=...)
    setup_controllers(manager)
    async with running_manager(manager):
        await client.create(obj)
        done = await eventually(lambda: reconciled(client, obj), message="...")

`running_manager` starts `manager.run()` in a task (without signal handlers:
pytest owns them), returns once its controllers run (`manager.elected`), and
on leaving stops the manager, waits for it, and raises what it raised. A
manager that fails while starting (a cache that cannot sync because a list is
forbidden, say) fails the `async with` at once with its own error.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar, overload

if TYPE_CHECKING:
    from opgen import runtime as rt

__all__ = ["eventually", "running_manager"]

T = TypeVar("T")

START_TIMEOUT = 60.0
STOP_TIMEOUT = 60.0


_FIRST_PAUSE = 0.01
"""The first wait of `eventually` between two checks, in seconds."""


@contextlib.asynccontextmanager
async def running_manager(
    manager: rt.Manager, *, start_timeout: float = START_TIMEOUT
) -> AsyncIterator[asyncio.Task[None]]:
    """Run `manager` for the duration of the block; yields its task."""
    task = asyncio.create_task(manager.run(install_signal_handlers=False))
    try:
        elected = asyncio.create_task(manager.elected.wait())
        done, _ = await asyncio.wait(
            [elected, task], timeout=start_timeout, return_when=asyncio.FIRST_COMPLETED
        )
        elected.cancel()
        if task in done:
            task.result()  # raises what stopped it
            raise AssertionError("the manager returned before its controllers started")
        if elected not in done:
            raise AssertionError(
                f"the manager's controllers did not start within {start_timeout:.0f} s "
                "(caches not synced, or no leader elected); see its log"
            )
        yield task
    finally:
        manager.stop()
        await asyncio.wait([task], timeout=STOP_TIMEOUT)
        if not task.done():
            task.cancel()
        elif not task.cancelled() and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]


@overload
async def eventually(
    check: Callable[[], Awaitable[T | None]],
    *,
    timeout: float = ...,
    interval: float = ...,
    message: str = ...,
) -> T: ...


@overload
async def eventually(
    check: Callable[[], T | None],
    *,
    timeout: float = ...,
    interval: float = ...,
    message: str = ...,
) -> T: ...


async def eventually(
    check: Callable[[], object],
    *,
    timeout: float = 60.0,
    interval: float = 0.1,
    message: str = "the condition",
) -> object:
    """Call `check` (sync or async) until it returns something truthy, and return that.

    The first checks follow each other quickly (10 ms apart, doubling up to
    `interval`), so a condition that holds soon — as on the memory API server —
    is seen soon, and a slow one costs no more checks than `interval` allows.
    Raises `AssertionError` naming `message` after `timeout` seconds.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    pause = min(_FIRST_PAUSE, interval)
    while True:
        found = check()
        if inspect.isawaitable(found):
            found = await found
        if found:
            return found
        if loop.time() > deadline:
            raise AssertionError(f"{message} did not happen within {timeout:.0f} s")
        await asyncio.sleep(pause)
        pause = min(pause * 2, interval)


async def left_tasks_cancelled() -> None:
    """Cancel every other task of the running loop and wait for them: what
    `asyncio.run` does before it closes its loop. A loop closed with tasks still
    pending (an informer's, a server's handler of a kept-alive connection) leaves
    them to be destroyed with a warning when they are collected."""
    current = asyncio.current_task()
    left = [task for task in asyncio.all_tasks() if task is not current]
    for task in left:
        task.cancel()
    await asyncio.gather(*left, return_exceptions=True)
