"""A loop the test kit runs in a thread ends with no task pending: a handler
task left behind (a server's, for a connection kept alive) would be destroyed
at collection with "Task was destroyed but it is pending!"."""

from __future__ import annotations

import asyncio
from typing import Any

from opgen.testing import WebhookManager
from opgen.testing.managers import left_tasks_cancelled


def test_the_webhook_managers_loop_ends_with_no_task_pending() -> None:
    manager: Any = WebhookManager.__new__(WebhookManager)
    manager._failure = None
    left: list[asyncio.Task[bool]] = []

    async def serve() -> None:
        # what a server can leave when it stops: the handler task of a
        # connection kept alive, waiting for a request that never comes
        left.append(asyncio.create_task(asyncio.Event().wait()))
        await asyncio.sleep(0)

    manager._serve = serve
    manager._run()

    assert manager._failure is None
    assert manager._loop.is_closed()
    assert left[0].cancelled()


def test_left_tasks_cancelled_cancels_every_other_task_and_waits() -> None:
    async def main() -> list[asyncio.Task[None]]:
        others = [asyncio.create_task(asyncio.sleep(3600)) for _ in range(3)]
        await asyncio.sleep(0)
        await left_tasks_cancelled()
        return others

    others = asyncio.run(main())
    assert all(task.cancelled() for task in others)
