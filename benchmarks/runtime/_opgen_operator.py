"""The opgen side of the benchmark: the sample Widget operator, run until SIGTERM.

Prints `ready` once its caches have synced and the controller runs, `reconciled`
once BENCH_EXPECT reconciles are done (when set), and on exit one JSON line
with its request counts, peak RSS (VmHWM, see _proc_status.py), CPU time (and
the part of it spent until `ready`: imports, caches synced) and reconcile count.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import sys

from benchmarks.runtime._proc_status import peak_rss_kib
from opgen import runtime as rt
from tests.runtime.sample import WidgetReconciler


async def main() -> None:
    manager = rt.Manager.from_kubeconfig(
        os.environ["KUBECONFIG"],
        options=rt.ManagerOptions(
            metrics=rt.MetricsOptions(bind_address="0"),
            probes=rt.ProbeOptions(bind_address="0"),
            cache=rt.CacheOptions(namespaces=[os.environ["BENCH_NAMESPACE"]]),
            client=rt.ClientOptions(
                qps=float(os.environ.get("BENCH_QPS", "1000")),
                burst=int(os.environ.get("BENCH_BURST", "2000")),
            ),
        ),
    )
    reconciler = WidgetReconciler(manager.client)
    reconciler.setup(
        manager, max_concurrent_reconciles=int(os.environ.get("BENCH_WORKERS", "32"))
    )
    expect = int(os.environ.get("BENCH_EXPECT", "0"))
    startup_cpu = 0.0

    async def announce() -> None:
        nonlocal startup_cpu
        await manager.elected.wait()
        startup_cpu = _cpu_seconds()
        print("ready", flush=True)
        if expect:
            while reconciler.reconciles < expect:
                await asyncio.sleep(0.05)
            print("reconciled", flush=True)

    announcer = asyncio.create_task(announce())
    await manager.run()
    announcer.cancel()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    stats = {
        "requests": dict(manager.rest.counts),
        "writes": manager.rest.writes,
        "peak_rss_kib": peak_rss_kib(),
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "startup_cpu_seconds": startup_cpu,
        "reconciles": reconciler.reconciles,
        "reconcile_results": {
            sample.labels["result"]: sample.value
            for metric in manager.metrics.reconcile_total.collect()
            for sample in metric.samples
            if sample.name.endswith("_total")
        },
    }
    print(json.dumps(stats), file=sys.stderr, flush=True)
    print(json.dumps(stats), flush=True)


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    # BENCH_PROFILE=PREFIX: write cProfile stats to PREFIX.<pid> (one file per start),
    # timed in CPU time: wall time on a shared machine charges other processes' turns
    profile = os.environ.get("BENCH_PROFILE")
    if profile:
        import cProfile
        import time

        profiler = cProfile.Profile(time.process_time)
        profiler.runcall(asyncio.run, main())
        profiler.dump_stats(f"{profile}.{os.getpid()}")
    else:
        sys.exit(asyncio.run(main()))
