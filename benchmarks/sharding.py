"""Cache memory of a sharded replica against a single replica at the same count.

    python -m benchmarks.sharding [--objects 3000] [--runs 2] [--settle 5]

Per run, on one envtest control plane, side by side: a single replica
(`tests/runtime/sharding/operator.py` without sharding) in one namespace and
three sharded replicas (`ShardingOptions(ring="widgets")`) in another, each its
own process. Every process's RSS is read once it runs with no object (its idle
baseline), then N Widgets are created in each namespace (interleaved, a page
of 50 at a time in each) and, once every Widget has its owned ConfigMap (and,
sharded, its shard label), after a pause for the heap to settle (`--settle`
seconds; past the transport's 90 s idle timeout, the connections opened by a
burst of writes have closed), read again.
Printed per run: each process's RSS above its own baseline, and the ratio of
each sharded replica's growth to the single replica's (goal: at most 45 %).
Then the medians over runs, min-max in brackets, and the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import statistics
import tempfile
import time
from pathlib import Path

from opgen import api as op
from opgen import runtime as rt
from opgen.runtime.rest import RestClient
from opgen.testing import Environment
from tests.runtime.crds import generated_crds
from tests.runtime.kinds import Widget
from tests.runtime.sharding.inprocess import SHARD
from tests.runtime.sharding.processes import ReplicaProcess, create_widgets, list_all

SETTLE = 5.0
"""Seconds after the replicas start before their idle RSS is read."""


async def namespace(rest: RestClient) -> str:
    name = f"bench-shard-{secrets.token_hex(3)}"
    client = rt.Client(rest)
    await client.create(op.k8s.Namespace(metadata=op.ObjectMeta(name=name)))
    return name


async def converged(rest: RestClient, ns: str, n: int, sharded: bool) -> bool:
    widgets = await list_all(rest, Widget, ns)
    children = await list_all(rest, op.k8s.ConfigMap, ns)
    owned = [c for c in children if c["metadata"].get("ownerReferences")]
    if len(widgets) < n or len(owned) < n:
        return False
    return not sharded or all(
        SHARD in (w["metadata"].get("labels") or {}) for w in widgets
    )


async def one_run(
    env: Environment, rest: RestClient, n: int, logs: Path, settle: float
) -> dict[str, float]:
    single_ns, ring_ns = await namespace(rest), await namespace(rest)
    kubeconfig = env.kubeconfig_path
    single = ReplicaProcess("single", kubeconfig, single_ns, logs)
    ring = [ReplicaProcess(f"shard-{i}", kubeconfig, ring_ns, logs) for i in range(3)]
    everyone = [single, *ring]
    try:
        for replica in everyone:
            await replica.start()
        await asyncio.sleep(SETTLE)
        idle = {r.shard: r.rss_kib() for r in everyone}
        for start in range(0, n, 50):
            size = min(50, n - start)
            await create_widgets(rest, single_ns, size, first=start)
            await create_widgets(rest, ring_ns, size, first=start)
        while not (
            await converged(rest, single_ns, n, False)
            and await converged(rest, ring_ns, n, True)
        ):
            await asyncio.sleep(1.0)
        await asyncio.sleep(settle)
        grown = {r.shard: (r.rss_kib() - idle[r.shard]) / 1024 for r in everyone}
    finally:
        for replica in everyone:
            await replica.stop()
    result = {f"{k} MiB": v for k, v in grown.items()}
    for replica in ring:
        result[f"{replica.shard} ratio"] = grown[replica.shard] / grown["single"]
    return result


def summary(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


async def run(args: argparse.Namespace) -> None:
    env = await Environment(crd_paths=generated_crds()).astart()
    logs = Path(tempfile.mkdtemp(prefix="opgen-bench-sharding-"))
    rest = RestClient.from_kubeconfig(env.kube_config(), rt.ClientOptions(qps=0))
    runs: list[dict[str, float]] = []
    try:
        for i in range(args.runs):
            started = time.monotonic()
            result = await one_run(env, rest, args.objects, logs, args.settle)
            runs.append(result)
            shown = ", ".join(f"{k} {v:.2f}" for k, v in result.items())
            print(
                f"run {i + 1} ({time.monotonic() - started:.0f} s): {shown}", flush=True
            )
    finally:
        await rest.aclose()
        await env.astop()
    print(
        f"\n{args.objects} Widgets (and as many owned ConfigMaps); medians of {args.runs} runs"
    )
    for key in runs[0]:
        print(f"  {key}: {summary([r[key] for r in runs])}")
    ratios = [r[k] for r in runs for k in r if k.endswith("ratio")]
    print(f"  every sharded replica's ratio: {summary(ratios)} (goal ≤ 0.45)")
    print(f"  load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.sharding")
    parser.add_argument("--objects", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument(
        "--settle",
        type=float,
        default=SETTLE,
        help="seconds after convergence before the RSS is read",
    )
    asyncio.run(run(parser.parse_args(argv)))


if __name__ == "__main__":
    main()
