"""`WebhookManager`: a project's webhooks served for tests, in a thread of their own.

It runs an `opgen.runtime.Manager` with no controllers (metrics and probes
off) whose webhook server listens where an `Environment`'s installed
configurations call, with the project's handlers registered by a setup
function (the generated `main.setup_webhooks`). Its own thread and event
loop keep it answering the API server whatever the test's loop is doing.

    with WebhookManager(env, setup_webhooks):
        ...  # every create of the project's kinds goes through its webhooks
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any

from opgen import runtime as rt
from opgen.errors import EnvtestError
from opgen.testing.controlplane.environment import Environment
from opgen.testing.managers import left_tasks_cancelled

__all__ = ["WebhookManager"]

Setup = Callable[[rt.Manager], None]


class WebhookManager:
    """Serves `setup`'s webhooks for `environment` until stopped."""

    def __init__(
        self,
        environment: Environment,
        setup: Setup,
        *,
        start_timeout: float = 60.0,
        **webhook_options: Any,
    ) -> None:
        local = environment.webhooks
        if local is None:
            raise EnvtestError(
                "the environment has no webhooks installed",
                hint="create it with Environment(webhook_install_options=...) or call "
                "install_webhooks(...) first",
            )
        self.environment = environment
        self.setup = setup
        self.start_timeout = start_timeout
        self.options = rt.ManagerOptions(
            metrics=rt.MetricsOptions(bind_address="0"),
            probes=rt.ProbeOptions(bind_address="0"),
            webhook=local.server_options(**webhook_options),
        )
        self.manager: rt.Manager | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._failure: BaseException | None = None
        self._ready = threading.Event()

    def __enter__(self) -> WebhookManager:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> WebhookManager:
        """Start serving; returns once the API server calls the server."""
        self._thread = threading.Thread(
            target=self._run, name="opgen-webhook-manager", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + self.start_timeout
        while not self._ready.wait(0.05):
            if self._failure is not None or not self._thread.is_alive():
                self._raise("did not start")
            if time.monotonic() >= deadline:
                self.stop()
                raise EnvtestError(
                    f"the webhook server did not start within {self.start_timeout:.0f}s"
                )
        try:
            self.environment.wait_for_webhooks(max(1.0, deadline - time.monotonic()))
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop the manager and wait for its thread; raise what made it fail, if anything."""
        manager, loop, thread = self.manager, self._loop, self._thread
        if manager is not None and loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop ended already
                loop.call_soon_threadsafe(manager.stop)
        if thread is not None:
            thread.join(timeout=60)
        self._thread = None
        if self._failure is not None:
            self._raise("failed")

    def _raise(self, what: str) -> None:
        failure, self._failure = self._failure, None
        raise EnvtestError(f"the webhook manager {what}: {failure!r}") from failure

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._serve())
        except BaseException as error:
            self._failure = error
        finally:
            try:
                loop.run_until_complete(left_tasks_cancelled())
            finally:
                loop.close()

    async def _serve(self) -> None:
        manager = rt.Manager(self.environment.kube_config(), self.options)
        self.manager = manager
        self.setup(manager)
        if not manager.webhooks.has_handlers:
            raise EnvtestError(
                f"{getattr(self.setup, '__qualname__', self.setup)} registered no webhook"
            )
        running = asyncio.create_task(manager.run(install_signal_handlers=False))
        while manager.webhook_address is None and not running.done():
            await asyncio.sleep(0.01)
        if manager.webhook_address is not None:
            self._ready.set()
        await running
