"""A project's webhook handlers, called in process by the memory server.

The handlers are the project's own (`setup(manager)` registers them on an
`rt.Manager`, the generated `main.setup_webhooks`), answering the same
AdmissionReview and ConversionReview bodies they answer over HTTPS, through
the same endpoints (`manager.webhooks.endpoints`), with no network hop. The
manager talks to the memory server through its transport, so a handler
reading other objects through `manager.client` (a cached read) sees the
server's objects; its cache runs, its webhook server never listens.

The server answers requests synchronously, and a handler is a coroutine that
may await that very server (a cached read lists and watches): the manager
runs in a thread and event loop of its own, started on the first review, as
`WebhookManager` runs it for envtest. The server's thread waits for each
review's answer.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from opgen import runtime as rt
from opgen.runtime.webhook.review import Answer

if TYPE_CHECKING:
    from opgen.testing.memory.server import MemoryApiServer

__all__ = ["Handlers", "Setup"]

Setup = Callable[[rt.Manager], None]
START_TIMEOUT = 60.0


class Handlers:
    """The webhook handlers `setup` registers, answering reviews by path."""

    def __init__(self, server: MemoryApiServer, setup: Setup) -> None:
        self.server = server
        self.setup = setup
        self.manager: rt.Manager | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._started = concurrent.futures.Future[None]()
        self._stop: asyncio.Event | None = None

    def review(self, path: str, body: bytes) -> Answer | None:
        """The answer of the handler served at `path` to a review `body`; None when
        no handler is served there (as a webhook server that answers 404)."""
        manager, loop = self._running()
        endpoint = manager.webhooks.endpoints.get(path)
        if endpoint is None:
            return None
        return asyncio.run_coroutine_threadsafe(endpoint.review(body), loop).result()

    @property
    def paths(self) -> list[str]:
        """The paths the handlers are served on."""
        return self._running()[0].webhooks.paths

    def close(self) -> None:
        """Stop the manager's cache and its thread (reviews after this start it again)."""
        loop, thread, stop = self._loop, self._thread, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(stop.set)
        if thread is not None:
            thread.join(timeout=START_TIMEOUT)
        self.manager, self._loop, self._thread, self._stop = None, None, None, None
        self._started = concurrent.futures.Future()

    def _running(self) -> tuple[rt.Manager, asyncio.AbstractEventLoop]:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name="opgen-memory-webhooks", daemon=True
            )
            self._thread.start()
        self._started.result(timeout=START_TIMEOUT)
        assert self.manager is not None and self._loop is not None
        return self.manager, self._loop

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(self._serve(loop))
        except BaseException as error:
            if not self._started.done():
                self._started.set_exception(error)
        finally:
            loop.close()

    async def _serve(self, loop: asyncio.AbstractEventLoop) -> None:
        off = "0"
        manager = rt.Manager(
            options=rt.ManagerOptions(
                metrics=rt.MetricsOptions(bind_address=off),
                probes=rt.ProbeOptions(bind_address=off),
            ),
            transport=self.server.transport(),
        )
        self.setup(manager)
        if not manager.webhooks.has_handlers:
            name = getattr(self.setup, "__qualname__", repr(self.setup))
            raise RuntimeError(f"{name} registered no webhook")
        stop = asyncio.Event()
        await manager.cache.start()
        self.manager, self._loop, self._stop = manager, loop, stop
        self._started.set_result(None)
        try:
            await stop.wait()
        finally:
            await manager.cache.stop()
            await manager.rest.aclose()
