"""A project's webhook handlers, called in process by the memory server.

The handlers are the project's own (`setup(manager)` registers them on an
`rt.Manager`, the generated `main.setup_webhooks`), answering the same
AdmissionReview and ConversionReview documents they answer over HTTPS, through
the same endpoints (`manager.webhooks.endpoints`), with no network hop and no
JSON: an endpoint's `answer` takes the document its `review` reads from a
body, with the same checks (a review the webhook server refuses is refused). The
manager talks to the memory server through its transport, so a handler
reading other objects through `manager.client` (a cached read) sees the
server's objects; its cache runs, its webhook server never listens.

The server answers requests synchronously, and a handler is a coroutine that
may await that very server (a cached read lists and watches): the manager
lives in an event loop of its own, which runs, in the thread that asks, for
as long as a review (or the manager's start or stop) takes — no thread of its
own, so a review costs no hand-over between threads (each one a wait for the
scheduler on a loaded machine). Before each review the loop first takes in
the watch events written since the last one, so a cached read in a handler
sees the writes answered before the request it reviews, as a webhook whose
informer is caught up does.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from opgen import runtime as rt
from opgen.runtime.metrics import Metrics
from opgen.runtime.webhook.review import Answer
from opgen.testing.managers import left_tasks_cancelled

if TYPE_CHECKING:
    from opgen.testing.memory.server import MemoryApiServer

__all__ = ["Handlers", "Setup"]

Setup = Callable[[rt.Manager], None]
T = TypeVar("T")
CATCH_UP_STEPS = 1000
"""Loop steps a review waits at most for the handlers' watches to take in the
events written before it: a watch its reader no longer reads would otherwise
hold every review."""


class Handlers:
    """The webhook handlers `setup` registers, answering reviews by path."""

    def __init__(self, server: MemoryApiServer, setup: Setup) -> None:
        self.server = server
        self.setup = setup
        self.manager: rt.Manager | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.RLock()
        """One thread at a time runs the handlers' loop."""

    def review(self, path: str, document: dict[str, Any]) -> Answer | None:
        """The answer of the handler served at `path` to a review `document` (the
        handler's to keep: it reads it as it would the review's JSON); None when
        no handler is served there (as a webhook server that answers 404)."""
        with self._lock:
            manager = self._running()
            endpoint = manager.webhooks.endpoints.get(path)
            if endpoint is None:
                return None
            return self._run(self._answer(endpoint.answer, document))

    @property
    def paths(self) -> list[str]:
        """The paths the handlers are served on."""
        with self._lock:
            return self._running().webhooks.paths

    def close(self) -> None:
        """Stop the manager's cache and close its loop (reviews after this start
        them again)."""
        with self._lock:
            loop, manager = self._loop, self.manager
            self.manager, self._loop = None, None
            if loop is None:
                return
            try:
                if manager is not None:
                    self._run_in(loop, _stopped(manager))
                self._run_in(loop, left_tasks_cancelled())
            finally:
                loop.close()

    def _running(self) -> rt.Manager:
        if self.manager is None:
            self._loop = asyncio.new_event_loop()
            try:
                self.manager = self._run(self._started())
            except BaseException:
                self._loop.close()
                self._loop = None
                raise
        return self.manager

    async def _started(self) -> rt.Manager:
        off = "0"
        manager = rt.Manager(
            options=rt.ManagerOptions(
                metrics=rt.MetricsOptions(bind_address=off),
                probes=rt.ProbeOptions(bind_address=off),
            ),
            transport=self.server.transport(),
            metrics=_unserved_metrics(),
        )
        self.setup(manager)
        if not manager.webhooks.has_handlers:
            name = getattr(self.setup, "__qualname__", repr(self.setup))
            raise RuntimeError(f"{name} registered no webhook")
        await manager.cache.start()
        return manager

    async def _answer(
        self,
        answer: Callable[[object], Coroutine[Any, Any, Answer]],
        document: dict[str, Any],
    ) -> Answer:
        loop = asyncio.get_running_loop()
        for _ in range(CATCH_UP_STEPS):
            if not self.server.store.unread(loop):
                break
            await asyncio.sleep(0)
        return await answer(document)

    def _run(self, work: Coroutine[Any, Any, T]) -> T:
        assert self._loop is not None
        return self._run_in(self._loop, work)

    @staticmethod
    def _run_in(loop: asyncio.AbstractEventLoop, work: Coroutine[Any, Any, T]) -> T:
        """Run `work` to its end in `loop`, in this thread, even from inside a
        coroutine of another loop (whose step waits, as it waits for a server's
        answer)."""
        if loop.is_running():
            work.close()
            raise RuntimeError(
                "a webhook handler's request reached a webhook of the same memory "
                "server: the handlers answer one review at a time"
            )
        outer = asyncio._get_running_loop()
        asyncio._set_running_loop(None)
        try:
            return loop.run_until_complete(work)
        finally:
            asyncio._set_running_loop(outer)


@functools.cache
def _unserved_metrics() -> Metrics:
    """The metrics of every handlers' manager of the process: one registry, since
    none serves its metrics, instead of one a memory server (registering some
    thirty collectors each time)."""
    return Metrics()


async def _stopped(manager: rt.Manager) -> None:
    try:
        await manager.cache.stop()
    finally:
        await manager.rest.aclose()
