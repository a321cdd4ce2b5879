"""The operator the outage tests run in a process of its own.

    python -m tests.runtime.outage_operator

The sample Widget operator (`sample.py`: an owned ConfigMap, a status with a
Ready condition) plus a finalizer whose cleanup runs when a Widget is deleted.
Environment: `KUBECONFIG`, `WIDGET_NAMESPACE`, `WORKERS` (default 4), and two
gates the tests open and close by creating and removing files:

- `CLEANUP_GATE=<path>`: a cleanup fails (raises) until that file exists;
- `HOLD_GATE=<path>`: while that file exists, a reconcile that is about to write
  waits (so a test can have writes pending when it takes the API server away).

It tells the test what happens on stdout, one line each, flushed:
`probes <port>` and `metrics <port>` once the manager serves them (also while
the API server is down); `holding <name>` when a reconcile starts to wait at the
hold gate; `cleanup-failed <name> <monotonic time>` for each failed cleanup;
`cleaned <name>` before a finalizer is removed. Logs go to stderr as a
generated manager's do.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from pathlib import Path

from opgen import runtime as rt
from tests.runtime.kinds import Widget
from tests.runtime.sample import WidgetReconciler

FINALIZER = "test.opgen.dev/cleanup"


def say(line: str) -> None:
    print(line, flush=True)


class CleanupPending(Exception):
    """The external resource could not be released yet (the cleanup gate is closed)."""


class OutageReconciler(WidgetReconciler):
    def __init__(
        self, client: rt.Client, cleanup_gate: Path | None, hold_gate: Path | None
    ) -> None:
        super().__init__(client)
        self.cleanup_gate = cleanup_gate
        self.hold_gate = hold_gate

    async def reconcile(self, request: rt.Request) -> rt.Result:
        try:
            widget = await self.client.get(Widget, request.name, request.namespace)
        except rt.NotFound:
            return rt.Result()
        await self._hold(request.name)
        if rt.finalizers.is_deleting(widget):
            if rt.finalizers.has(widget, FINALIZER):
                if self.cleanup_gate is not None and not self.cleanup_gate.exists():
                    say(f"cleanup-failed {request.name} {time.monotonic():.6f}")
                    raise CleanupPending(f"{request.name}: the gate is closed")
                say(f"cleaned {request.name}")
                await rt.finalizers.remove(self.client, widget, FINALIZER)
            return rt.Result()
        await rt.finalizers.ensure(self.client, widget, FINALIZER)
        return await super().reconcile(request)

    async def _hold(self, name: str) -> None:
        if self.hold_gate is None or not self.hold_gate.exists():
            return
        say(f"holding {name}")
        while self.hold_gate.exists():
            await asyncio.sleep(0.02)


def _gate(variable: str) -> Path | None:
    value = os.environ.get(variable)
    return Path(value) if value else None


async def _announce(manager: rt.Manager) -> None:
    """Print the bound ports as soon as the manager serves them."""
    while manager.probe_address is None or manager.metrics_address is None:
        await asyncio.sleep(0.01)
    say(f"probes {manager.probe_address[1]}")
    say(f"metrics {manager.metrics_address[1]}")


async def main() -> None:
    namespace = os.environ["WIDGET_NAMESPACE"]
    manager = rt.Manager.from_kubeconfig(
        os.environ["KUBECONFIG"],
        options=rt.ManagerOptions(
            metrics=rt.MetricsOptions(bind_address="127.0.0.1:0", secure=False),
            probes=rt.ProbeOptions(bind_address="127.0.0.1:0"),
            cache=rt.CacheOptions(namespaces=[namespace]),
            client=rt.ClientOptions(qps=1000, burst=2000),
        ),
    )
    reconciler = OutageReconciler(
        manager.client, _gate("CLEANUP_GATE"), _gate("HOLD_GATE")
    )
    reconciler.setup(
        manager, max_concurrent_reconciles=int(os.environ.get("WORKERS", "4"))
    )
    announcing = asyncio.create_task(_announce(manager))
    try:
        await manager.run()
    finally:
        announcing.cancel()


if __name__ == "__main__":
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s"
    )
    asyncio.run(main())
