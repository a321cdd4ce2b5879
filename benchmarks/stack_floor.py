"""Benchmark: the floor of the mandated stack (aiohttp, Pydantic) against issue 26's and 20's goals.

    python -m benchmarks stack_floor [-- --objects 1000 --runs 3
        --operators floor,floor-json,floor-min,floor-tls,floor-stack,cr,cr+ryw]

What the runtime's mandated dependencies cost with no opgen code at all, side
by side in one run with controller-runtime on the same envtest API server, in
the runtime benchmark's sessions (`benchmarks.runtime.bench`: the same Widgets,
the same convergence watch, the same request counts and RSS readings, the
order rotating every run). The floor is `_stack_floor_probe.py`: a Python
process that imports aiohttp and Pydantic, lists the Widgets and ConfigMaps
with aiohttp (`ready` once both lists are read), watches both, and sends the
two writes opgen's operator sends per Widget, decoding every answer and event
with `json` and nothing else. Operators (`--operators`):

- `floor`: the probe holding the objects as dicts decoded from JSON;
- `floor-json`: the probe holding them as their JSON bytes (the smallest
  faithful form, what opgen's store keeps);
- `floor-min`: as `floor-json`, its writes on one connection instead of 32
  (each open TLS connection holds about 0.3 MiB);
- `floor-tls`: as `floor-json`, with asyncio's TLS read buffer as small as
  opgen's transport makes it (`transport.TLS_READ_BUFFER`, one TLS record):
  the stack as opgen runs it, 32 connections and all;
- `floor-stack`: as `floor-tls`, with the rest of the mandated stack loaded
  before `ready`: `prometheus_client`, a Pydantic model validated (Pydantic's
  plugin loader comes with the first validator) and RE2 with a pattern
  compiled; what opgen itself adds (its modules, `op.k8s`, msgspec, the
  objects as models, the queue) is the difference to `opgen`;
- any operator of the runtime benchmark: `cr`, `cr+ryw`, `opgen`,
  `opgen@DIR`, `kopf`.

For each floor it prints, against issue 26's goals: start-up to `ready` (CPU
and wall) against 0.3 s; steady RSS against 1.3x controller-runtime's; CPU per
object against 1.2x `cr+ryw`'s; and against issue 20's, peak RSS against 1.3x
controller-runtime's; each "floor above goal" (the goal cannot be met on this
stack, whatever opgen does) or "floor under goal".
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.runtime import bench
from opgen.runtime.transport import TLS_READ_BUFFER
from opgen.testing import Environment
from tests.runtime.crds import generated_crds

PROBE = Path(__file__).parent / "_stack_floor_probe.py"
FLOORS = {
    "floor": "aiohttp + Pydantic imported, objects kept as dicts from json",
    "floor-json": "aiohttp + Pydantic imported, objects kept as their JSON bytes",
    "floor-min": "as floor-json, the writes on one connection (not 32)",
    "floor-tls": "as floor-json, asyncio's TLS read buffer one record (as opgen's)",
    "floor-stack": "as floor-tls, with prometheus_client, a Pydantic model and RE2",
}
STARTUP_GOAL = 0.3  # seconds to caches synced
RSS_GOAL = 1.3  # x controller-runtime's steady RSS
CPU_GOAL = 1.2  # x cr+ryw's CPU per object

ROWS = [
    ("start-up to ready, wall (s)", "ready_seconds", "{:.2f}"),
    ("CPU after imports (s)", "import_cpu_seconds", "{:.3f}"),
    ("CPU until ready (s)", "startup_cpu_seconds", "{:.3f}"),
    ("RSS after imports (MiB)", "import_rss_mib", "{:.1f}"),
    ("RSS at ready (MiB)", "ready_rss_mib", "{:.1f}"),
    ("steady RSS (MiB)", "rss_mib", "{:.1f}"),
    ("peak RSS, VmHWM (MiB)", "peak_rss_mib", "{:.1f}"),
    ("convergence (s)", "seconds", "{:.2f}"),
    ("CPU (s)", "cpu_seconds", "{:.2f}"),
    ("CPU per object (ms)", "cpu_ms_per_object", "{:.2f}"),
    ("  after ready (ms)", "after_ready_ms_per_object", "{:.2f}"),
    ("writes per object", "writes_per_object", "{:.2f}"),
    ("watch events received", "events", "{:.0f}"),
    ("watches opened again", "rewatches", "{:.0f}"),
]


def write_certificates(env: Environment, directory: Path) -> None:
    """The admin kubeconfig's CA and client certificate as files, for the probe."""
    config = env.kubeconfig
    cluster = config["clusters"][0]["cluster"]
    user = config["users"][0]["user"]
    for name, data in (
        ("ca.crt", cluster["certificate-authority-data"]),
        ("client.crt", user["client-certificate-data"]),
        ("client.key", user["client-key-data"]),
    ):
        (directory / name).write_bytes(base64.b64decode(data))


def operators(
    labels: Sequence[str], env: Environment, certs: Path
) -> list[bench.Operator]:
    found: list[bench.Operator] = []
    for label in labels:
        if label in FLOORS:
            store = "dicts" if label == "floor" else "json"
            connections = "1" if label == "floor-min" else "32"
            found.append(
                bench.Operator(
                    label,
                    [sys.executable, str(PROBE)],
                    {
                        "BENCH_SERVER": env.server,
                        "BENCH_CERTS": str(certs),
                        "BENCH_FLOOR_STORE": store,
                        "BENCH_FLOOR_CONNECTIONS": connections,
                        **(
                            {"BENCH_FLOOR_TLS_BUFFER": str(TLS_READ_BUFFER)}
                            if label in ("floor-tls", "floor-stack")
                            else {}
                        ),
                        **(
                            {"BENCH_FLOOR_STACK": "1"} if label == "floor-stack" else {}
                        ),
                    },
                )
            )
        else:
            found.extend(bench.operators([label]))
    return found


def derived(results: dict[str, list[dict[str, Any]]], n: int) -> None:
    """Per run: the probe's own readings (its exit line), in MiB, and the CPU per
    object after `ready`."""
    for runs in results.values():
        for run in runs:
            stats = run["exit_stats"]
            for key in ("import_cpu_seconds", "events", "rewatches"):
                if key in stats:
                    run[key] = stats[key]
            for key in ("import_rss", "ready_rss"):
                if f"{key}_kib" in stats:
                    run[f"{key}_mib"] = stats[f"{key}_kib"] / 1024
            if "startup_cpu_seconds" in run:
                after = run["cpu_seconds"] - run["startup_cpu_seconds"]
                run["after_ready_ms_per_object"] = 1000 * after / n


def spread(runs: Sequence[dict[str, Any]], key: str, fmt: str) -> str:
    values = [run[key] for run in runs]
    middle = fmt.format(statistics.median(values))
    return f"{middle} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def verdict(floor: float, goal: float) -> str:
    return "floor above goal" if floor > goal else "floor under goal"


def print_floors(results: dict[str, list[dict[str, Any]]]) -> None:
    """Each floor against issue 26's goals and issue 20's peak RSS, from the
    medians."""
    peers = [p for p in ("cr", "cr+ryw") if p in results]
    print("\nthe floor against issues 26's and 20's goals (medians, min-max):")
    for label in (label for label in results if label in FLOORS):
        runs = results[label]
        print(f"  {label}:")
        for key, title in (
            ("startup_cpu_seconds", "start-up, CPU until ready"),
            ("ready_seconds", "start-up, wall until ready"),
        ):
            judge(runs, title, key, "{:.3f} s", STARTUP_GOAL, f"{STARTUP_GOAL} s")
        for key, title in (
            ("rss_mib", "steady RSS"),
            ("peak_rss_mib", "peak RSS (issue 20)"),
        ):
            for peer in peers:
                goal = RSS_GOAL * bench.median(results[peer], key)
                judge(
                    runs,
                    title,
                    key,
                    "{:.1f} MiB",
                    goal,
                    f"{RSS_GOAL}x {peer} = {goal:.1f} MiB",
                )
        if "cr+ryw" in results:
            goal = CPU_GOAL * bench.median(results["cr+ryw"], "cpu_ms_per_object")
            judge(
                runs,
                "CPU per object",
                "cpu_ms_per_object",
                "{:.2f} ms",
                goal,
                f"{CPU_GOAL}x cr+ryw = {goal:.2f} ms",
            )


def judge(
    runs: Sequence[dict[str, Any]],
    title: str,
    key: str,
    fmt: str,
    goal: float,
    goal_text: str,
) -> None:
    """One row: the floor's median (min-max) of `key` against `goal`."""
    number, unit = fmt.split(" ")
    floor = bench.median(runs, key)
    print(
        f"    {title:<28}{spread(runs, key, number)} {unit}"
        f"   goal <= {goal_text}: {verdict(floor, goal)}"
    )


async def run(args: argparse.Namespace) -> dict[str, Any]:
    env = await Environment(crd_paths=generated_crds()).astart()
    scratch = Path(tempfile.mkdtemp(prefix="opgen-stack-floor-"))
    try:
        write_certificates(env, scratch)
        ops = operators(args.operators.split(","), env, scratch)
        bench.compile_bytecode(ops)
        results = await bench.series(
            env, ops, args.objects, args.runs, scratch, again=False
        )
    except BaseException:
        print(f"the operators' logs are kept in {scratch}", file=sys.stderr)
        raise
    finally:
        await env.astop()
    derived(results, args.objects)
    bench.print_table(
        results,
        f"{args.objects} Widgets, one owned ConfigMap and a status each",
        ROWS,
        FLOORS,
    )
    print_floors(results)
    return results


def main(argv: list[str] | None = None) -> None:
    """Entry point; `python -m benchmarks stack_floor` calls it."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks stack_floor")
    parser.add_argument("--objects", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--operators",
        default="floor,floor-json,floor-min,floor-tls,floor-stack,cr,cr+ryw",
    )
    args = parser.parse_args([] if argv is None else argv)
    asyncio.run(run(args))


if __name__ == "__main__":
    main(sys.argv[1:])
