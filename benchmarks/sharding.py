"""Cache memory of a sharded replica against a single replica at the same count;
with `--handover`, how long a SIGKILLed replica's objects take to move.

    python -m benchmarks.sharding [--objects 3000] [--runs 2] [--settle 5]
        [--baseline [NAME=]DIR ...] [--variant NAME:ENV=VALUE,... ...]
        [--memtrace DIR [--memtrace-python FRAMES]]
    python -m benchmarks.sharding --handover [--objects 3000] [--runs 3]
        [--variant NAME:ENV=VALUE,... ...]

Per run, on one envtest control plane, side by side: a single replica
(`tests/runtime/sharding/operator.py` without sharding) in one namespace and
three sharded replicas (`ShardingOptions(ring="widgets")`) in another, each its
own process. Every process's RSS is read once it runs with no object (its idle
baseline), then N Widgets are created in each namespace (interleaved, a page
of 50 at a time in each) and, once every Widget has its owned ConfigMap (and,
sharded, its slot label), after a pause (`--settle` seconds, 5 by default:
the connections a burst of writes opened are still open, as they stay for the
transport's 90 s idle timeout), read again. The replicas run with 8 s Leases
(`STEADY_LEASES`).
Printed per run: each process's RSS above its own baseline, and the ratio of
each sharded replica's growth to the single replica's (goal: at most 45 %),
the leader's (it runs the assigner) apart from the others'; and the most
objects that waited at once for their slot label (the assigner's log).
Then the medians over runs, min-max in brackets, and the load average.
Each `--baseline` (another source tree, e.g. main's: `git archive main | tar -x
-C DIR`, with this tree's tests/runtime/sharding harness copied in) runs after
this tree in each run, on the same control plane. `--memtrace DIR`: this
tree's replicas write memory reports (tests/runtime/sharding/memtrace.py: RSS,
glibc's and pymalloc's heaps, open sockets, live objects by type; with
`--memtrace-python FRAMES`, tracemalloc snapshots of what was allocated since
the idle baseline) at the idle baseline and at the measurement, in a folder
`<variant>-<run>` of DIR. Each
`--variant` (a name and environment variables for this tree's replicas, e.g.
`w4:OPGEN_SHARD_WRITES=4`) runs in each run, before the baselines; without
one, this tree as it is.

`--handover`: per run, three sharded replicas in a fresh namespace converge on N
Widgets; then the replica that does not run the assigner is SIGKILLed. Measured,
from the kill: when the assigner saw the ring change and when it wrote the
assignment (its log), when the last survivor held its new slots (their logs,
after claiming them and listing their objects), and when the last of the
killed replica's Widgets had been reconciled by its new holder (the ledgers:
no polling of the cluster competes with the handover); and the CPU seconds the
API server, etcd, the assigner's replica and the other one spent from the kill
to that moment. Each `--variant` (a name and environment variables for the
replicas, e.g. `slow:OPGEN_SHARD_MEMBER_READS=1`) runs once per round, interleaved
with the others, `--runs` rounds; without one, the code as it is.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import re
import secrets
import signal
import statistics
import tempfile
import time
from pathlib import Path

from opgen import api as op
from opgen import runtime as rt
from opgen.runtime.rest import RestClient
from opgen.runtime.sharding.assignment import Assignment
from opgen.runtime.sharding.protocol import ANNOTATION_ASSIGNMENT
from opgen.testing import Environment
from tests.runtime.crds import generated_crds
from tests.runtime.kinds import Widget
from tests.runtime.sharding.inprocess import SLOT
from tests.runtime.sharding.ledger import read_ledger
from tests.runtime.sharding.operator import LEASE_DURATION
from tests.runtime.sharding.processes import (
    ROOT,
    ReplicaProcess,
    create_widgets,
    list_all,
)

SETTLE = 5.0
"""Seconds after the replicas start before their idle RSS is read."""
STEADY_LEASES = {"OPGEN_SHARD_LEASE_DURATION": "8", "OPGEN_SHARD_RENEW_DEADLINE": "6"}
"""The memory runs' Lease timings: at a load average of 10 the replicas' event loops
stall long enough to lose Leases renewed within 3 s (and the run with them); the
Leases' timings do not change what the caches hold."""


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
        SLOT in (w["metadata"].get("labels") or {}) for w in widgets
    )


async def slot_holders(rest: RestClient, ns: str) -> dict[int, str]:
    """Slot → its member, from the ring's slots Lease."""
    leases = await list_all(rest, op.k8s.coordination_v1.Lease, ns)
    (ring,) = [x for x in leases if x["metadata"]["name"] == "widgets.slots"]
    notes = ring["metadata"].get("annotations") or {}
    assignment = Assignment.decode(0, notes.get(ANNOTATION_ASSIGNMENT))
    return {k: h.name for k, h in assignment.slots.items()}


async def one_run(
    env: Environment,
    rest: RestClient,
    n: int,
    logs: Path,
    settle: float,
    *,
    root: Path = ROOT,
    memtrace: dict[str, str] | None = None,
    variant: dict[str, str] | None = None,
) -> dict[str, float]:
    started = time.time()
    single_ns, ring_ns = await namespace(rest), await namespace(rest)
    kubeconfig = env.kubeconfig_path
    variables = {**(memtrace or {}), **STEADY_LEASES, **(variant or {})}
    single = ReplicaProcess(
        "single", kubeconfig, single_ns, logs, env=variables, root=root
    )
    ring = [
        ReplicaProcess(
            f"shard-{i}", kubeconfig, ring_ns, logs, env=variables, root=root
        )
        for i in range(3)
    ]
    everyone = [single, *ring]

    async def report() -> None:
        if memtrace:
            for replica in everyone:
                replica.process.send_signal(signal.SIGUSR1)  # type: ignore[union-attr]
            await asyncio.sleep(3.0)

    try:
        for replica in everyone:
            await replica.start()
        await asyncio.sleep(SETTLE)
        idle = {r.shard: r.rss_kib() for r in everyone}
        await report()
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
        leader = max(ring, key=lambda r: last_acquired(r.log))
        await report()
        if memtrace:
            print(f"memtrace: {leader.shard} led the ring", flush=True)
    finally:
        for replica in everyone:
            await replica.stop()
    result = {"single MiB": grown["single"], "leader MiB": grown[leader.shard]}
    others = [r for r in ring if r is not leader]
    for i, replica in enumerate(others):
        result[f"replica {i + 1} MiB"] = grown[replica.shard]
    result["leader ratio"] = grown[leader.shard] / grown["single"]
    for i, replica in enumerate(others):
        result[f"replica {i + 1} ratio"] = grown[replica.shard] / grown["single"]
    waited = logged(leader.log, r"at most (\d+) objects waited", started)
    if waited:  # a tree whose assigner logs its bursts
        result["leader's peak waiting"] = max(float(m[1]) for _, m in waited)
    return result


def last_acquired(log: Path) -> float:
    """When the replica last became the leader (0: never); a replica that lost its
    Lease under load exits, and another is elected."""
    found = logged(log, r"acquired lease", 0.0)
    return found[-1][0] if found else 0.0


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a running process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def logged(log: Path, pattern: str, after: float) -> list[tuple[float, re.Match[str]]]:
    """Lines of a replica's log matching `pattern` after `after` (epoch seconds)."""
    found = []
    for line in log.read_text().splitlines():
        match = re.search(pattern, line)
        if match is None:
            continue
        stamp = datetime.datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f")
        at = stamp.timestamp()
        if at >= after:
            found.append((at, match))
    return found


async def handover_run(
    env: Environment, rest: RestClient, n: int, logs: Path, variables: dict[str, str]
) -> dict[str, float]:
    ns = await namespace(rest)
    kubeconfig = env.kubeconfig_path
    logs = logs / ns
    logs.mkdir()
    ring = [
        ReplicaProcess(f"shard-{i}", kubeconfig, ns, logs, env=variables)
        for i in range(3)
    ]

    def running() -> None:
        for replica in ring:
            process = replica.process
            if process and process.returncode is not None and not replica.killed_at:
                raise RuntimeError(f"{replica.shard} exited; see {replica.log}")

    try:
        for replica in ring:
            await replica.start()
        await create_widgets(rest, ns, n)
        while not await converged(rest, ns, n, True):
            running()
            await asyncio.sleep(1.0)
        await asyncio.sleep(2 * LEASE_DURATION)  # every reconcile done, a pass over
        (leader,) = [r for r in ring if "acquired lease" in r.log.read_text()]
        killed = next(r for r in ring if r is not leader)
        other = next(r for r in ring if r not in (leader, killed))
        widgets = await list_all(rest, Widget, ns)
        holders = await slot_holders(rest, ns)
        moved = {
            w["metadata"]["name"]
            for w in widgets
            if holders[int(w["metadata"]["labels"][SLOT])] == killed.shard
        }
        plane = env.process_ids
        watched = {"kube-apiserver": plane["kube-apiserver"], "etcd": plane["etcd"],
                   "assigner's replica": leader.pid, "other replica": other.pid}  # fmt: skip
        cpu = {k: cpu_seconds(pid) for k, pid in watched.items()}
        kill_time = time.time()
        killed.kill(kill_time)
        done: dict[str, float] = {}
        while len(done) < len(moved):
            running()
            await asyncio.sleep(2.0)
            for replica in (leader, other):
                for interval in read_ledger(replica.ledger, until=time.time()):
                    if interval.name in moved and interval.end > kill_time:
                        done.setdefault(interval.name, interval.end)
                        done[interval.name] = min(done[interval.name], interval.end)
        finished = max(done.values())
        used = {k: cpu_seconds(pid) - cpu[k] for k, pid in watched.items()}
        (seen, _), *_ = logged(leader.log, r"ring widgets members: ", kill_time)
        (written, _), *_ = logged(
            leader.log, r"ring widgets: assignment \d+ written", seen
        )
        holding = max(
            logged(r.log, r"ring widgets: holding slots", written)[0][0]
            for r in (leader, other)
        )
    finally:
        for replica in ring:
            await replica.stop()
    result = {
        "objects moved": float(len(moved)),
        "handover s": finished - kill_time,
        "noticed s": seen - kill_time,
        "assigned s": written - kill_time,
        "held s": holding - kill_time,
        "reconciled after held s": finished - holding,
    }
    for key, seconds in used.items():
        result[f"{key} CPU s"] = seconds
    return result


def summary(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


async def handover(args: argparse.Namespace) -> None:
    variants: dict[str, dict[str, str]] = {}
    for spec in args.variant or ["as-is"]:
        name, _, assignments = spec.partition(":")
        variants[name] = dict(a.split("=", 1) for a in assignments.split(",") if a)
    env = await Environment(crd_paths=generated_crds()).astart()
    logs = Path(tempfile.mkdtemp(prefix="opgen-bench-handover-"))
    rest = RestClient.from_kubeconfig(env.kube_config(), rt.ClientOptions(qps=0))
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in variants}
    loads: list[float] = []
    try:
        for i in range(args.runs):
            for name, variables in variants.items():
                result = await handover_run(env, rest, args.objects, logs, variables)
                loads.append(os.getloadavg()[0])
                runs[name].append(result)
                shown = ", ".join(f"{k} {v:.1f}" for k, v in result.items())
                print(f"round {i + 1} {name}: {shown}", flush=True)
    finally:
        await rest.aclose()
        await env.astop()
    print(f"\nSIGKILL of 1 of 3 replicas, {args.objects} Widgets; medians of "
          f"{args.runs} rounds (min-max); goal: lease duration + 5 s = "
          f"{LEASE_DURATION + 5:.0f} s")  # fmt: skip
    for name, results in runs.items():
        print(f"  {name} {variants[name] or ''}")
        for key in results[0]:
            print(f"    {key}: {summary([r[key] for r in results if key in r])}")
    print(f"  load average (1 min) after each run: {summary(loads)}")


def traced(memtrace: dict[str, str] | None, name: str, i: int) -> dict[str, str] | None:
    """The memory reports' folder of one variant's run: `<DIR>/<variant>-<run>`."""
    if memtrace is None:
        return None
    stem = re.sub(r"\W+", "-", name)
    folder = Path(memtrace["OPGEN_MEMTRACE"]) / f"{stem}-{i + 1}"
    folder.mkdir(parents=True, exist_ok=True)
    return {**memtrace, "OPGEN_MEMTRACE": str(folder)}


async def run(args: argparse.Namespace) -> None:
    env = await Environment(crd_paths=generated_crds()).astart()
    logs = Path(tempfile.mkdtemp(prefix="opgen-bench-sharding-"))
    rest = RestClient.from_kubeconfig(env.kube_config(), rt.ClientOptions(qps=0))
    trees: dict[str, tuple[Path, dict[str, str]]] = {}
    for spec in args.variant or ["this tree:"]:
        name, _, assignments = spec.partition(":")
        variables = dict(a.split("=", 1) for a in assignments.split(",") if a)
        trees[name] = (ROOT, variables)
    for spec in args.baseline or ():
        name, _, path = spec.rpartition("=")
        trees[name or "baseline"] = (Path(path).resolve(), {})
    memtrace: dict[str, str] | None = None
    if args.memtrace:
        Path(args.memtrace).mkdir(parents=True, exist_ok=True)
        memtrace = {"OPGEN_MEMTRACE": str(Path(args.memtrace).resolve())}
        if args.memtrace_python:
            # tracing slows the replicas: longer Leases, so that none is lost
            memtrace.update(OPGEN_MEMTRACE_PYTHON=str(args.memtrace_python),
                            OPGEN_SHARD_LEASE_DURATION="20",
                            OPGEN_SHARD_RENEW_DEADLINE="15")  # fmt: skip
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    loads: list[float] = []
    try:
        for i in range(args.runs):
            for name, (root, variant) in trees.items():
                started = time.monotonic()
                result = await one_run(
                    env, rest, args.objects, logs, args.settle,
                    # another tree's replicas may not know SIGUSR1 (it ends them)
                    root=root, memtrace=traced(memtrace, name, i) if root == ROOT else None,
                    variant=variant,
                )  # fmt: skip
                loads.append(os.getloadavg()[0])
                runs[name].append(result)
                shown = ", ".join(f"{k} {v:.2f}" for k, v in result.items())
                took = time.monotonic() - started
                print(f"run {i + 1} {name} ({took:.0f} s): {shown}", flush=True)
    finally:
        await rest.aclose()
        await env.astop()
    print(
        f"\n{args.objects} Widgets (and as many owned ConfigMaps); medians of {args.runs} runs"
    )
    for name, results in runs.items():
        root, variant = trees[name]
        print(f"  {name} ({root}{f', {variant}' if variant else ''})")
        for key in results[0]:
            print(f"    {key}: {summary([r[key] for r in results if key in r])}")
        ratios = [r[k] for r in results for k in r if k.endswith("ratio")]
        print(f"    every sharded replica's ratio: {summary(ratios)} (goal ≤ 0.45)")
        others = [
            r[k]
            for r in results
            for k in r
            if k.startswith("replica") and k.endswith("ratio")
        ]
        print(f"    the leader's: {summary([r['leader ratio'] for r in results])}; "
              f"the others': {summary(others)}")  # fmt: skip
    print(f"  load average (1 min) after each run: {summary(loads)}; now: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")  # fmt: skip


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
    parser.add_argument(
        "--baseline",
        action="append",
        metavar="[NAME=]DIR",
        help="another source tree (e.g. `git archive main | tar -x -C DIR`) whose "
        "replicas run too, each run after this tree's",
    )
    parser.add_argument(
        "--memtrace",
        help="a folder for the replicas' memory reports at the idle baseline and at "
        "the measurement (tests/runtime/sharding/memtrace.py)",
    )
    parser.add_argument(
        "--memtrace-python",
        type=int,
        default=0,
        metavar="FRAMES",
        help="with --memtrace: trace Python's allocations from the idle baseline "
        "on (tracemalloc, FRAMES frames each)",
    )
    parser.add_argument(
        "--handover",
        action="store_true",
        help="time the handover of a SIGKILLed replica's objects instead",
    )
    parser.add_argument(
        "--variant",
        action="append",
        help="NAME:ENV=VALUE[,ENV=VALUE]: the replicas' environment in one variant "
        "(with --handover; else this tree's replicas, each run, before any baseline)",
    )
    args = parser.parse_args(argv)
    asyncio.run(handover(args) if args.handover else run(args))


if __name__ == "__main__":
    main()
