"""One replica of the sharded Widget operator, in a process of its own.

    python -m tests.runtime.sharding.operator

The sharding tests' `LedgerReconciler` (an owned ConfigMap per Widget) in a
manager with `ShardingOptions(ring="widgets")` and short Lease timings.
Environment: `KUBECONFIG`, `WIDGET_NAMESPACE`, `SHARD` (the shard name;
`single`: no sharding, one replica holds everything), `LEDGER` (the file its
reconciles are appended to), and for benchmarks `OPGEN_SHARD_WRITES` (the
assigner's slot label writes in flight) and `OPGEN_SHARD_MEMBER_READS` (its
reads of the members per retry period).
It prints `metrics <port>` and then `ready` once its controllers run; logs go
to stderr.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from pathlib import Path

from opgen import runtime as rt
from opgen.runtime.sharding import assigner
from tests.runtime.sharding.ledger import Ledger, LedgerReconciler

LEASE_DURATION = 4.0
RETRY_PERIOD = 1.0
SLOTS = 128


async def main() -> None:
    if "OPGEN_SHARD_WRITES" in os.environ:
        assigner.WRITES_IN_FLIGHT = int(os.environ["OPGEN_SHARD_WRITES"])
    if "OPGEN_SHARD_MEMBER_READS" in os.environ:
        reads = int(os.environ["OPGEN_SHARD_MEMBER_READS"])
        assigner.MEMBER_READS_PER_PERIOD = reads
    namespace = os.environ["WIDGET_NAMESPACE"]
    shard = os.environ["SHARD"]
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
                    lease_duration=LEASE_DURATION,
                    renew_deadline=3.0,
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
