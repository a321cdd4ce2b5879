"""Benchmark: opgen's runtime against kopf on the same API server.

    python -m benchmarks.runtime [--objects 1000] [--runs 3] [--skip-kopf]

Starts one etcd + kube-apiserver (`opgen.testing.Environment`, the envtest
binaries) and installs the CRDs opgen generates for the test kinds. Each run,
for each operator in turn (alternating which goes first), in a fresh namespace:

1. with the operator stopped, create N Widgets (the driver's writes and time are
   not counted);
2. start the operator process and time it to convergence: every Widget has its
   owned ConfigMap and a status with observedGeneration and a Ready condition
   (watched by the driver's own informers);
3. count the operator's API requests and writes from the API server's
   `apiserver_request_total` (the driver sends none meanwhile), and read the
   operator's peak RSS when it exits.

Figures are medians over the runs. kopf runs from its own virtualenv
(`KOPF_PYTHON`, default /tmp/kopfvenv/bin/python); it is never an opgen
dependency. Without it the kopf column is skipped with a notice. To install:

    python -m venv /tmp/kopfvenv && /tmp/kopfvenv/bin/pip install kopf lightkube pyyaml
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from lightkube.models.meta_v1 import ObjectMeta
from lightkube.resources.core_v1 import ConfigMap, Namespace

from opgen import runtime as rt
from opgen.runtime.informer import Informer
from opgen.runtime.resources import resource_type
from opgen.runtime.rest import RestClient
from opgen.runtime.transport import Transport
from opgen.testing import Environment
from tests.runtime.crds import generated_crds
from tests.runtime.kinds import Widget, widget

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
WRITE_VERBS = {"POST", "PUT", "PATCH", "DELETE", "APPLY"}
DEFAULT_KOPF_PYTHON = "/tmp/kopfvenv/bin/python"
INSTALL_KOPF = "python -m venv /tmp/kopfvenv && /tmp/kopfvenv/bin/pip install kopf lightkube pyyaml"


async def server_requests(transport: Transport) -> Counter[str]:
    """apiserver_request_total summed by verb, resource requests only."""
    answer = await transport.send("GET", "/metrics")
    if answer.status != 200:
        raise RuntimeError(f"GET /metrics answered {answer.status}")
    text = answer.body.decode()
    counts: Counter[str] = Counter()
    for line in text.splitlines():
        if not line.startswith("apiserver_request_total{"):
            continue
        labels, value = line.rsplit(" ", 1)
        if ',resource=""' in labels or '{resource=""' in labels:
            continue
        verb = labels.split('verb="', 1)[1].split('"', 1)[0]
        counts[verb] += int(float(value))
    return counts


def control_plane_cpu(env: Environment) -> float:
    """CPU seconds used so far by kube-apiserver and etcd (Linux /proc; 0 elsewhere)."""
    total = 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    for pid in env.process_ids.values():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1]
        except OSError:
            continue
        utime, stime = fields.split()[11:13]
        total += (int(utime) + int(stime)) / ticks
    return total


def converged(widgets: Informer, configs: Informer, n: int) -> bool:
    if len(widgets.store) < n or len(configs.store) < n:
        return False
    for entry in widgets.store:
        status = entry.to_dict().get("status") or {}
        if status.get("observedGeneration") != entry.generation or not status.get(
            "conditions"
        ):
            return False
    return True


async def run_one(
    env: Environment, label: str, command: list[str], n: int
) -> dict[str, Any]:
    namespace = f"bench-{label}-{secrets.token_hex(3)}"
    rest = RestClient.from_kubeconfig(env.lightkube_config(), rt.ClientOptions(qps=0))
    client = rt.Client(rest)
    created = await client.create(Namespace(metadata=ObjectMeta(name=namespace)))
    semaphore = asyncio.Semaphore(32)

    async def create(i: int) -> None:
        async with semaphore:
            await client.create(
                widget(f"w{i:05}", namespace, message=f"message {i}", replicas=i % 5)
            )

    await asyncio.gather(*(create(i) for i in range(n)))
    widgets = Informer(rest, resource_type(Widget), namespaces=(namespace,))
    configs = Informer(rest, resource_type(ConfigMap), namespaces=(namespace,))
    tasks = [asyncio.create_task(widgets.run()), asyncio.create_task(configs.run())]
    await widgets.wait_for_sync()
    await configs.wait_for_sync()
    await asyncio.sleep(1.0)  # the watches are open before counting starts
    before = await server_requests(rest.transport)
    plane_before = control_plane_cpu(env)
    environ = {
        **os.environ,
        "KUBECONFIG": str(env.kubeconfig_path),
        "BENCH_NAMESPACE": namespace,
        "PYTHONPATH": str(ROOT),
    }
    started = time.monotonic()
    proc = await asyncio.create_subprocess_exec(
        *command,
        env=environ,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    line = await asyncio.wait_for(proc.stdout.readline(), 120)
    if line.strip() != b"ready":
        raise RuntimeError(f"{label} operator did not start: {line!r}")
    ready = time.monotonic() - started
    while not converged(widgets, configs, n):
        await asyncio.sleep(0.02)
    elapsed = time.monotonic() - started
    plane_cpu = control_plane_cpu(env) - plane_before
    await asyncio.sleep(3.0)  # trailing writes (if any) land before counting
    after = await server_requests(rest.transport)
    proc.terminate()
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    stats = json.loads(out.decode().strip().splitlines()[-1])
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await client.delete(created)
    await client.aclose()
    delta = after - before
    writes = sum(v for k, v in delta.items() if k in WRITE_VERBS)
    return {
        "label": label,
        "seconds": elapsed,
        "ready_seconds": ready,
        "throughput": n / elapsed,
        "requests": sum(delta.values()),
        "writes": writes,
        "writes_per_object": writes / n,
        "peak_rss_mib": stats["peak_rss_kib"] / 1024,
        "cpu_seconds": stats["cpu_seconds"],
        "plane_cpu_seconds": plane_cpu,
        "by_verb": dict(delta),
    }


ROWS = [
    ("time to convergence (s)", "seconds", "{:14.2f}", False),
    ("  of which start-up (s)", "ready_seconds", "{:14.2f}", False),
    ("throughput (objects/s)", "throughput", "{:14.1f}", True),
    ("API requests", "requests", "{:14.0f}", False),
    ("writes", "writes", "{:14.0f}", False),
    ("writes per object", "writes_per_object", "{:14.2f}", False),
    ("peak RSS (MiB)", "peak_rss_mib", "{:14.1f}", False),
    ("operator CPU time (s)", "cpu_seconds", "{:14.2f}", False),
    ("API server + etcd CPU (s)", "plane_cpu_seconds", "{:14.2f}", False),
]


def median_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    merged: dict[str, Any] = {"label": runs[0]["label"], "runs": len(runs)}
    for _, key, _, _ in ROWS:
        merged[key] = statistics.median(run[key] for run in runs)
    merged["by_verb"] = runs[len(runs) // 2]["by_verb"]
    merged["all_seconds"] = [round(run["seconds"], 2) for run in runs]
    return merged


def report(results: list[dict[str, Any]], n: int) -> None:
    runs = results[0]["runs"]
    print(
        f"\n{n} Widgets -> one owned ConfigMap + status each, same kube-apiserver, "
        f"created before the operator starts; median of {runs} run(s)\n"
    )
    header = f"{'':28}" + "".join(f"{r['label']:>14}" for r in results)
    print(header + ("   opgen/kopf" if len(results) == 2 else ""))
    for title, key, fmt, higher_better in ROWS:
        line = f"{title:28}" + "".join(fmt.format(r[key]) for r in results)
        if len(results) == 2 and results[1][key]:
            ratio = results[0][key] / results[1][key]
            better = "higher" if higher_better else "lower"
            line += f"   {ratio:7.2f}x ({better} is better)"
        print(line)
    for r in results:
        print(f"  {r['label']} convergence per run (s): {r['all_seconds']}")
        print(f"  {r['label']} requests by verb: {dict(sorted(r['by_verb'].items()))}")


async def run(objects: int, runs: int, skip_kopf: bool) -> None:
    kopf_python = os.environ.get("KOPF_PYTHON", DEFAULT_KOPF_PYTHON)
    operators = {"opgen": [sys.executable, str(HERE / "_opgen_operator.py")]}
    if skip_kopf:
        pass
    elif not Path(kopf_python).exists():
        print(
            f"kopf not found at {kopf_python} (KOPF_PYTHON): the kopf comparison is "
            f"skipped. To include it: {INSTALL_KOPF}"
        )
    else:
        operators["kopf"] = [kopf_python, str(HERE / "_kopf_operator.py")]
    env = await Environment(crd_paths=generated_crds()).astart()
    try:
        results: dict[str, list[dict[str, Any]]] = {label: [] for label in operators}
        for index in range(runs):
            order = list(operators) if index % 2 == 0 else list(reversed(operators))
            for label in order:
                result = await run_one(env, label, operators[label], objects)
                print(f"run {index + 1} {label}: {result['seconds']:.2f}s", flush=True)
                results[label].append(result)
        report([median_of(results[label]) for label in operators], objects)
    finally:
        await env.astop()


def main(argv: list[str] | None = None) -> None:
    """Entry point; `python -m benchmarks` calls it with the defaults."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.runtime")
    parser.add_argument("--objects", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-kopf", action="store_true")
    args = parser.parse_args([] if argv is None else argv)
    asyncio.run(run(args.objects, args.runs, args.skip_kopf))
