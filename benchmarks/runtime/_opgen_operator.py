"""The opgen side of the benchmark: the sample Widget operator, run until SIGTERM.

Prints `ready` once it leads and, on exit, one JSON line with its request
counts and peak RSS.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import sys

from opgen import runtime as rt
from tests.runtime import conftest  # noqa: F401 - installs the stand-in opgen.api names
from tests.runtime.sample import WidgetReconciler


async def main() -> None:
    manager = rt.Manager.from_kubeconfig(
        os.environ["KUBECONFIG"],
        options=rt.ManagerOptions(
            metrics_bind_address="0",
            health_probe_bind_address="0",
            namespaces=[os.environ["BENCH_NAMESPACE"]],
            qps=float(os.environ.get("BENCH_QPS", "500")),
            burst=int(os.environ.get("BENCH_BURST", "1000")),
        ),
    )
    WidgetReconciler(manager.client).setup(
        manager, max_concurrent_reconciles=int(os.environ.get("BENCH_WORKERS", "16"))
    )

    async def announce() -> None:
        await manager.elected.wait()
        print("ready", flush=True)

    announcer = asyncio.create_task(announce())
    await manager.run()
    announcer.cancel()
    stats = {
        "requests": dict(manager.rest.counts),
        "writes": manager.rest.writes,
        "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }
    print(json.dumps(stats), flush=True)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
