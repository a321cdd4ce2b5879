"""One process of `benchmarks.reconcile_overhead`: CPU per reconcile of the runtime's
own machinery, with nothing under it.

A controller's workers, its work queue, its metrics and the REST client run 1000
Requests through a reconciler that sends one create each, to a transport that
answers at once (no I/O), until `N` reconciles are done; prints the process CPU
time per reconcile in microseconds. Run with the checkout to measure first on
`sys.path`.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from typing import Any

from opgen import runtime as rt
from opgen.runtime.metrics import Metrics
from opgen.runtime.resources import resource_type
from opgen.runtime.rest import ClientOptions, RestClient
from opgen.runtime.seams import Answer
from opgen.runtime.workqueue import WorkQueue
from tests.runtime.kinds import Widget

WIDGETS = resource_type(Widget)
REQUESTS = 1000
WORKERS = 32


class Answering:
    """A transport that answers every request with 201 at once."""

    host = "probe"
    namespace = "ns"

    async def send(self, method: str, path: str, **_: Any) -> Answer:
        return Answer(201, b"{}")


class Creating:
    """Sends one create per reconcile and counts them."""

    def __init__(self, rest: RestClient) -> None:
        self.rest = rest
        self.done = 0

    async def reconcile(self, request: rt.Request) -> rt.Result:
        await self.rest.request("create", WIDGETS, namespace="ns", body=b"{}")
        self.done += 1
        return rt.Result()


async def cpu_per_reconcile(reconciles: int) -> float:
    metrics = Metrics()
    rest = RestClient(Answering(), ClientOptions(qps=0), metrics=metrics)  # type: ignore[arg-type]
    reconciler = Creating(rest)
    controller = rt.Controller("widgets", for_=rt.For(Widget), reconciler=reconciler)
    controller.queue = WorkQueue("widgets", metrics=metrics, controller="widgets")
    controller._use_metrics(metrics)
    workers = [asyncio.create_task(controller._worker()) for _ in range(WORKERS)]
    requests = [rt.Request("ns", f"w{i}") for i in range(REQUESTS)]
    started = time.process_time()
    for wave in range(1, reconciles // REQUESTS + 1):
        for request in requests:
            controller.queue.add(request)
        while reconciler.done < wave * REQUESTS:
            await asyncio.sleep(0)
    spent = time.process_time() - started
    controller.queue.shut_down()
    await asyncio.gather(*workers)
    return spent / reconciler.done * 1e6


if __name__ == "__main__":
    logging.disable(logging.WARNING)  # the hot-loop warning: every Request, every wave
    print(f"{asyncio.run(cpu_per_reconcile(int(sys.argv[1]))):.3f}")
