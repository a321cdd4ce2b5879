"""One replica of the sharded Widget operator, in a process of its own.

    python -m tests.runtime.sharding.operator

The sharding tests' `LedgerReconciler` (an owned ConfigMap per Widget) in a
manager with `ShardingOptions(ring="widgets")` and short Lease timings.
Environment: `KUBECONFIG`, `WIDGET_NAMESPACE`, `SHARD` (the shard name;
`single`: no sharding, one replica holds everything), `LEDGER` (the file its
reconciles are appended to), and for benchmarks `OPGEN_SHARD_WRITES` (the
assigner's slot label writes in flight), `OPGEN_SHARD_MMAP_THRESHOLD` (bytes;
`heap.MMAP_THRESHOLD`) and `OPGEN_SHARD_MEMBER_READS` (its reads of the members
per retry period), `OPGEN_MEMTRACE` and
`OPGEN_MEMTRACE_PYTHON` (reports of its memory on SIGUSR1: `memtrace.py`), and
`OPGEN_SHARD_LEASE_DURATION` and `OPGEN_SHARD_RENEW_DEADLINE` (seconds; default
`LEASE_DURATION` and `RENEW_DEADLINE`), and `OPGEN_SHARD_MALLOPT` (glibc
`mallopt` settings for a sharded replica alone, `PARAM=VALUE+PARAM=VALUE`
with glibc's parameter numbers, e.g. `-3=65536` for `M_MMAP_THRESHOLD`).
It prints `metrics <port>` and then `ready` once its controllers run; logs go
to stderr.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import os
import time
from pathlib import Path

from opgen import runtime as rt
from opgen.runtime.sharding import assigner, heap
from tests.runtime.sharding import memtrace
from tests.runtime.sharding.ledger import Ledger, LedgerReconciler

LEASE_DURATION = 4.0
RENEW_DEADLINE = 3.0
RETRY_PERIOD = 1.0
SLOTS = 128


async def main() -> None:
    if "OPGEN_SHARD_WRITES" in os.environ:
        assigner.WRITES_IN_FLIGHT = int(os.environ["OPGEN_SHARD_WRITES"])
    if "OPGEN_SHARD_MMAP_THRESHOLD" in os.environ:
        heap.MMAP_THRESHOLD = int(os.environ["OPGEN_SHARD_MMAP_THRESHOLD"])
    if "OPGEN_SHARD_MEMBER_READS" in os.environ:
        reads = int(os.environ["OPGEN_SHARD_MEMBER_READS"])
        assigner.MEMBER_READS_PER_PERIOD = reads
    namespace = os.environ["WIDGET_NAMESPACE"]
    shard = os.environ["SHARD"]
    if shard != "single" and os.environ.get("OPGEN_SHARD_MALLOPT"):
        mallopt = ctypes.CDLL(None).mallopt
        for setting in os.environ["OPGEN_SHARD_MALLOPT"].split("+"):
            param, _, value = setting.partition("=")
            if mallopt(int(param), int(value)) != 1:
                raise SystemExit(f"mallopt refused {setting}")
    if os.environ.get("OPGEN_MEMTRACE"):
        frames = int(os.environ.get("OPGEN_MEMTRACE_PYTHON") or 0)
        memtrace.install(Path(os.environ["OPGEN_MEMTRACE"]), shard, frames=frames)
        if os.environ.get("OPGEN_MEMTRACE_PEAK"):
            waiting = int(os.environ["OPGEN_MEMTRACE_PEAK"])
            memtrace.install_peak(
                Path(os.environ["OPGEN_MEMTRACE"]), shard, waiting=waiting
            )
    manager = rt.Manager.from_kubeconfig(
        os.environ["KUBECONFIG"],
        options=rt.ManagerOptions(
            metrics=rt.MetricsOptions(bind_address="127.0.0.1:0", secure=False),
            probes=rt.ProbeOptions(bind_address="0"),
            cache=rt.CacheOptions(namespaces=[namespace]),
            client=rt.ClientOptions(qps=0),
            sharding=(
                rt.ShardingOptions(
                    ring="widgets",
                    shard=shard,
                    namespace=namespace,
                    slots=SLOTS,
                    lease_duration=float(
                        os.environ.get("OPGEN_SHARD_LEASE_DURATION", LEASE_DURATION)
                    ),
                    renew_deadline=float(
                        os.environ.get("OPGEN_SHARD_RENEW_DEADLINE", RENEW_DEADLINE)
                    ),
                    retry_period=RETRY_PERIOD,
                )
                if shard != "single"
                else None
            ),
        ),
    )
    ledger = Ledger(shard, time.time, Path(os.environ["LEDGER"]))
    LedgerReconciler(manager.client, ledger).setup(manager)

    async def announce() -> None:
        while manager.metrics_address is None:
            await asyncio.sleep(0.01)
        print(f"metrics {manager.metrics_address[1]}", flush=True)
        await manager.elected.wait()
        print("ready", flush=True)

    announcing = asyncio.create_task(announce())
    try:
        await manager.run()
    finally:
        announcing.cancel()


if __name__ == "__main__":
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s"
    )
    asyncio.run(main())
