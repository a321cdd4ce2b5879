"""Benchmark: opgen's runtime against controller-runtime and kopf on the same API server.

    python -m benchmarks.runtime [--tables runtime,scale,relist] [--objects 1000,3000]
        [--runs 5] [--scale-objects 10000] [--scale-runs 3]
        [--operators opgen,cr,cr+ryw,kopf,opgen@DIR] [--json FILE]

Starts one etcd + kube-apiserver (`opgen.testing.Environment`, the envtest
binaries) with the CRDs opgen generates for the test kinds. The operators, each
doing the same job (every Widget gets one owned ConfigMap and a status with
observedGeneration and a Ready condition; 32 workers, 1000 QPS / 2000 burst,
cache limited to the namespace):

- `opgen`: tests/runtime/sample.py on opgen.runtime (`_opgen_operator.py`);
- `cr`: the same operator on controller-runtime (`crpeer/`, Go, built from the
  module proxy and cached, see benchmarks/gobuild.py);
- `cr+ryw`: the same, with a read-your-writes client wrapper equal to opgen's
  freshness (`crpeer/fresh.go`): the same writes as opgen;
- `opgen@DIR`: the opgen operator of another checkout of this repository
  (`git worktree add --detach DIR <commit>` of the baseline), for a before/after
  pair in one run, with its own line in the goals;
- `kopf`: the kopf way (`_kopf_operator.py`), from its own virtualenv
  (`KOPF_PYTHON`, default /tmp/kopfvenv/bin/python; skipped with a notice
  when missing).

Tables (`--tables`):

- `runtime`, at each `--objects` count: per run and operator (the order rotates
  every run), in a fresh namespace: create N Widgets with the operator stopped;
  start it and time it to convergence (watched by the driver's own informers);
  count its API requests and writes from the API server's
  `apiserver_request_total` (the driver sends none meanwhile); then restart it
  on the converged objects and count the writes of that second start (zero is
  the goal). Medians with min-max, and every ratio of the goals (issue 13).
  Peak RSS is each operator's own VmHWM (`_proc_status.py`: getrusage's
  ru_maxrss would start at the driver's), steady RSS its VmRSS 3 s after
  convergence, read by the driver.
- `scale`: opgen and cr at `--scale-objects` (convergence, RSS, CPU per object)
  and memory per cached object: the steady RSS's growth per cached object (a
  Widget and its ConfigMap count as two) between the smallest `--objects`
  count and `--scale-objects`.
- `relist`: one opgen informer holding `--scale-objects` Widgets misses a delete
  and a create while the API server restarts; on its return the server answers
  410 Gone and it relists: time and peak RSS of that relist
  (`_relist_probe.py`).
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import json
import os
import re
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import gobuild
from benchmarks.runtime._proc_status import rss_kib
from opgen import runtime as rt
from opgen.api import ObjectMeta
from opgen.api.k8s import ConfigMap, Namespace
from opgen.runtime.informer import Event, Informer
from opgen.runtime.resources import resource_type
from opgen.runtime.rest import RestClient
from opgen.runtime.seams import Transport
from opgen.testing import Environment
from tests.runtime.crds import generated_crds
from tests.runtime.kinds import Widget, widget

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
WRITE_VERBS = {"POST", "PUT", "PATCH", "DELETE", "APPLY"}
DEFAULT_KOPF_PYTHON = "/tmp/kopfvenv/bin/python"
INSTALL_KOPF = "python -m venv /tmp/kopfvenv && /tmp/kopfvenv/bin/pip install kopf lightkube pyyaml"
LEGEND = {
    "opgen": "opgen.runtime",
    "cr": f"controller-runtime {gobuild.CONTROLLER_RUNTIME_VERSION}",
    "cr+ryw": f"controller-runtime {gobuild.CONTROLLER_RUNTIME_VERSION} with read-your-writes",
    "kopf": "kopf (its own virtualenv)",
}
IDLE_GRACE = 2.0  # seconds after the last reconcile of a second start before counting


@dataclass
class Operator:
    label: str
    command: list[str]
    env: dict[str, str] = field(default_factory=dict)


def operators(labels: Sequence[str]) -> list[Operator]:
    found: list[Operator] = []
    for label in labels:
        if label == "opgen":
            found.append(
                Operator(label, [sys.executable, str(HERE / "_opgen_operator.py")])
            )
        elif label.startswith("opgen@"):
            found.append(checkout_operator(label))
        elif label in ("cr", "cr+ryw"):
            ryw = "1" if label == "cr+ryw" else "0"
            found.append(
                Operator(
                    label, [str(gobuild.crpeer())], {"BENCH_READ_YOUR_WRITES": ryw}
                )
            )
        elif label == "kopf":
            kopf_python = os.environ.get("KOPF_PYTHON", DEFAULT_KOPF_PYTHON)
            if not Path(kopf_python).exists():
                print(
                    f"kopf not found at {kopf_python} (KOPF_PYTHON): the kopf column is "
                    f"skipped. To include it: {INSTALL_KOPF}"
                )
                continue
            found.append(
                Operator(label, [kopf_python, str(HERE / "_kopf_operator.py")])
            )
        else:
            raise SystemExit(f"unknown operator {label!r}; known: {', '.join(LEGEND)}")
    return found


def checkout_operator(label: str) -> Operator:
    """`opgen@DIR`: the opgen operator of another checkout of this repository (a
    `git worktree` of the baseline), run with this interpreter and that checkout
    first on the path, for before/after pairs in one run."""
    root = Path(label.partition("@")[2]).resolve()
    script = root / "benchmarks" / "runtime" / "_opgen_operator.py"
    if not script.exists():
        raise SystemExit(f"{label}: {script} not found; give a checkout of opgen")
    return Operator(label, [sys.executable, str(script)], {"PYTHONPATH": str(root)})


def slug(label: str) -> str:
    """A label as a name part: lower-case letters, digits and dashes."""
    return re.sub("[^a-z0-9]+", "-", label.lower()).strip("-")[-30:].strip("-")


LABEL = re.compile(r'(\w+)="([^"]*)"')
BENCH_RESOURCES = ("widgets", "configmaps")


async def server_requests(transport: Transport) -> Counter[str]:
    """apiserver_request_total of Widgets and ConfigMaps, summed by verb.

    Other resources are left out: the API server's own requests through its
    loopback client (its identity Lease, every 10 s) land in the same metric.
    """
    answer = await transport.send("GET", "/metrics")
    if answer.status != 200:
        raise RuntimeError(f"GET /metrics answered {answer.status}")
    text = answer.body.decode()
    counts: Counter[str] = Counter()
    for line in text.splitlines():
        if not line.startswith("apiserver_request_total{"):
            continue
        labels, value = line.rsplit(" ", 1)
        fields = dict(LABEL.findall(labels))
        if fields.get("resource") in BENCH_RESOURCES:
            counts[fields["verb"]] += int(float(value))
    return counts


def writes_in(delta: Counter[str]) -> int:
    return sum(v for k, v in delta.items() if k in WRITE_VERBS)


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


class Convergence:
    """Counts, from the driver's informers, Widgets with the final status and ConfigMaps."""

    def __init__(self, widgets: Informer, configs: Informer) -> None:
        self.done: set[tuple[str, str]] = set()
        self.configs: set[tuple[str, str]] = set()
        widgets.add_handler(self._widget)
        configs.add_handler(self._config)

    def _widget(self, event: Event) -> None:
        entry = event.new
        status = entry.to_dict().get("status") or {}
        if (
            event.type != "DELETED"
            and status.get("observedGeneration") == entry.generation
            and status.get("conditions")
        ):
            self.done.add(entry.key)
        else:
            self.done.discard(entry.key)

    def _config(self, event: Event) -> None:
        if event.type == "DELETED":
            self.configs.discard(event.new.key)
        else:
            self.configs.add(event.new.key)

    def reached(self, n: int) -> bool:
        return len(self.done) >= n and len(self.configs) >= n


class Session:
    """One namespace with N Widgets, the driver's informers, and operator processes."""

    def __init__(self, env: Environment, label: str, n: int, logs: Path) -> None:
        self.env = env
        self.n = n
        self.namespace = f"bench-{slug(label)}-{secrets.token_hex(3)}"
        # a generous timeout: deleting 10,000 objects at once takes a while
        self.rest = RestClient.from_kubeconfig(
            env.kube_config(), rt.ClientOptions(qps=0, timeout=300)
        )
        self.client = rt.Client(self.rest)
        self.logs = logs
        self.tasks: list[asyncio.Task[None]] = []
        self.widgets = Informer(
            self.rest, resource_type(Widget), namespaces=(self.namespace,)
        )
        self.configs = Informer(
            self.rest, resource_type(ConfigMap), namespaces=(self.namespace,)
        )
        self.convergence = Convergence(self.widgets, self.configs)

    async def open(self) -> None:
        await self.client.create(Namespace(metadata=ObjectMeta(name=self.namespace)))
        semaphore = asyncio.Semaphore(32)

        async def create(i: int) -> None:
            async with semaphore:
                await self.client.create(
                    widget(
                        f"w{i:05}",
                        self.namespace,
                        message=f"message {i}",
                        replicas=i % 5,
                    )
                )

        await asyncio.gather(*(create(i) for i in range(self.n)))
        self.tasks = [
            asyncio.create_task(self.widgets.run()),
            asyncio.create_task(self.configs.run()),
        ]
        await self.widgets.wait_for_sync()
        await self.configs.wait_for_sync()
        await asyncio.sleep(1.0)  # the watches are open before counting starts

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for kind in (ConfigMap, Widget):
            await self.client.delete_collection(kind, self.namespace)
        await self.client.delete(Namespace(metadata=ObjectMeta(name=self.namespace)))
        await self.rest.aclose()

    async def start(
        self, operator: Operator, run: str, expect: int = 0
    ) -> tuple[asyncio.subprocess.Process, float, Path]:
        """Start the operator; returns it and the seconds until it printed `ready`."""
        log = self.logs / f"{slug(operator.label)}-{run}.log"
        environ = {
            **os.environ,
            "KUBECONFIG": str(self.env.kubeconfig_path),
            "BENCH_NAMESPACE": self.namespace,
            "BENCH_EXPECT": str(expect),
            "PYTHONPATH": str(ROOT),
            **operator.env,
        }
        started = time.monotonic()
        with log.open("wb") as stderr:
            proc = await asyncio.create_subprocess_exec(
                *operator.command,
                env=environ,
                cwd=ROOT,
                stdout=asyncio.subprocess.PIPE,
                stderr=stderr,
            )
        line = await self._line(proc, log, 120)
        if line != "ready":
            raise RuntimeError(f"{operator.label} did not start: {line!r}; log: {log}")
        return proc, time.monotonic() - started, log

    @staticmethod
    async def _line(proc: asyncio.subprocess.Process, log: Path, timeout: float) -> str:
        assert proc.stdout is not None
        try:
            line = await asyncio.wait_for(proc.stdout.readline(), timeout)
        except asyncio.TimeoutError:
            proc.kill()
            raise RuntimeError(f"no answer within {timeout:.0f}s; log: {log}") from None
        return line.decode().strip()

    @staticmethod
    async def stop(proc: asyncio.subprocess.Process) -> dict[str, Any]:
        """SIGTERM, then the JSON line the operator prints on exit."""
        proc.terminate()
        out, _ = await asyncio.wait_for(proc.communicate(), 120)
        return dict(json.loads(out.decode().strip().splitlines()[-1]))

    async def converge(self, operator: Operator, run: str) -> dict[str, Any]:
        before = await server_requests(self.rest.transport)
        plane_before = control_plane_cpu(self.env)
        started = time.monotonic()
        proc, ready, log = await self.start(operator, run)
        limit = max(300.0, self.n * 0.1)
        while not self.convergence.reached(self.n):
            if time.monotonic() - started > limit:
                proc.kill()
                raise RuntimeError(
                    f"{operator.label} did not converge in {limit:.0f}s; log: {log}"
                )
            await asyncio.sleep(0.02)
        elapsed = time.monotonic() - started
        plane_cpu = control_plane_cpu(self.env) - plane_before
        await asyncio.sleep(3.0)  # trailing writes (if any) land before counting
        steady_rss = rss_kib(proc.pid)
        after = await server_requests(self.rest.transport)
        stats = await self.stop(proc)
        delta = after - before
        writes = writes_in(delta)
        return {
            "seconds": elapsed,
            "ready_seconds": ready,
            "throughput": self.n / elapsed,
            "requests": sum(delta.values()),
            "writes": writes,
            "writes_per_object": writes / self.n,
            "peak_rss_mib": stats["peak_rss_kib"] / 1024,
            "rss_mib": steady_rss / 1024,
            "cpu_seconds": stats["cpu_seconds"],
            "cpu_ms_per_object": 1000 * stats["cpu_seconds"] / self.n,
            **(
                {"startup_cpu_seconds": stats["startup_cpu_seconds"]}
                if "startup_cpu_seconds" in stats
                else {}
            ),
            "plane_cpu_seconds": plane_cpu,
            "by_verb": dict(delta),
            "exit_stats": stats,
        }

    async def restart_converged(self, operator: Operator, run: str) -> dict[str, Any]:
        """Start the operator again on converged objects: the writes it makes."""
        before = await server_requests(self.rest.transport)
        proc, _, log = await self.start(operator, run + "-again", expect=self.n)
        line = await self._line(proc, log, max(120.0, self.n * 0.05))
        if line != "reconciled":
            raise RuntimeError(f"{operator.label}: expected `reconciled`, got {line!r}")
        await asyncio.sleep(IDLE_GRACE)
        after = await server_requests(self.rest.transport)
        stats = await self.stop(proc)
        return {
            "idle_writes": writes_in(after - before),
            "idle_reconciles": stats["reconciles"],
            "idle_by_verb": dict(after - before),
        }


async def measure(
    env: Environment, operator: Operator, n: int, run: str, logs: Path, again: bool
) -> dict[str, Any]:
    session = Session(env, operator.label, n, logs)
    await session.open()
    try:
        result = await session.converge(operator, run)
        if again:
            result.update(await session.restart_converged(operator, run))
    finally:
        await session.close()
    return result


def rotated(items: Sequence[Operator], index: int) -> list[Operator]:
    shift = index % len(items)
    return [*items[shift:], *items[:shift]]


async def series(
    env: Environment,
    ops: Sequence[Operator],
    n: int,
    runs: int,
    logs: Path,
    again: bool,
) -> dict[str, list[dict[str, Any]]]:
    """`runs` runs of every operator at `n` objects, the order rotated every run."""
    results: dict[str, list[dict[str, Any]]] = {op.label: [] for op in ops}
    for index in range(runs):
        for op in rotated(ops, index):
            result = await measure(env, op, n, f"{n}-{index}", logs, again)
            results[op.label].append(result)
            print(
                f"  {n} objects, run {index + 1}/{runs}, {op.label}: "
                f"{result['seconds']:.2f}s, {result['writes_per_object']:.2f} writes/object"
                + (f", {result['idle_writes']} writes again" if again else ""),
                flush=True,
            )
    return results


# -- reporting ------------------------------------------------------------------

ROWS = [
    ("convergence (s)", "seconds", "{:.2f}"),
    ("  of which start-up (s)", "ready_seconds", "{:.2f}"),
    ("throughput (objects/s)", "throughput", "{:.0f}"),
    ("operator CPU (s)", "cpu_seconds", "{:.2f}"),
    ("  of which until ready (s)", "startup_cpu_seconds", "{:.2f}"),
    ("operator CPU per object (ms)", "cpu_ms_per_object", "{:.2f}"),
    ("API server + etcd CPU (s)", "plane_cpu_seconds", "{:.2f}"),
    ("peak RSS, VmHWM (MiB)", "peak_rss_mib", "{:.0f}"),
    ("steady RSS (MiB)", "rss_mib", "{:.0f}"),
    ("API requests", "requests", "{:.0f}"),
    ("writes per object", "writes_per_object", "{:.2f}"),
    ("writes, second start (converged)", "idle_writes", "{:.0f}"),
]


def median(runs: Sequence[dict[str, Any]], key: str) -> float:
    return float(statistics.median(run[key] for run in runs))


def cell(runs: Sequence[dict[str, Any]], key: str, fmt: str) -> str:
    values = [run[key] for run in runs if key in run]
    if not values:
        return "-"
    low, high = fmt.format(min(values)), fmt.format(max(values))
    middle = fmt.format(statistics.median(values))
    return middle if low == high else f"{middle} ({low}-{high})"


def print_table(
    results: dict[str, list[dict[str, Any]]],
    title: str,
    rows: Sequence[tuple[str, str, str]] = ROWS,
    legends: Mapping[str, str] | None = None,
) -> None:
    """One column per operator, one line per row of `rows` (name, key, format);
    `legends`: what the labels not known here stand for."""
    labels = list(results)
    runs = len(next(iter(results.values())))
    print(f"\n{title}; median (min-max) of {runs} run(s)")
    cells = {
        key: [cell(results[label], key, fmt) for label in labels]
        for _, key, fmt in rows
    }
    width = max(
        [len(label) for label in labels]
        + [len(c) for row in cells.values() for c in row]
    )
    print(f"{'':34}" + "".join(f"  {label:>{width}}" for label in labels))
    for name, key, _ in rows:
        if all(c == "-" for c in cells[key]):
            continue
        print(f"{name:34}" + "".join(f"  {c:>{width}}" for c in cells[key]))
    for label in labels:
        print(f"  {label}: {(legends or {}).get(label) or legend(label)}")
    verbs = results[labels[0]][runs // 2]["by_verb"]
    print(f"  {labels[0]} requests by verb (median run): {dict(sorted(verbs.items()))}")


def legend(label: str) -> str:
    if label.startswith("opgen@"):
        return f"opgen.runtime from the checkout {label.partition('@')[2]}"
    return LEGEND[label]


def ratio(
    results: dict[str, list[dict[str, Any]]], key: str, a: str, b: str
) -> float | None:
    if a not in results or b not in results:
        return None
    theirs = median(results[b], key)
    return median(results[a], key) / theirs if theirs else None


def print_goals(results: dict[str, list[dict[str, Any]]], n: int) -> None:
    """Every ratio of the runtime's goals, with met / not met from the medians:
    issue 13's table, issue 20's bound on the aiohttp stack (CPU <= 1.5x, peak
    RSS <= 1.3x) and issue 26's tighter ones (CPU <= 1.2x cr+ryw, steady RSS
    <= 1.3x, start-up <= 0.3 s, throughput >= 2x kopf)."""
    print(f"\ngoals at {n} objects (ratios of medians):")
    peers = [label for label in ("cr", "cr+ryw") if label in results]

    def against_cr(
        name: str, key: str, limit: float, label: str = "opgen", unit: str = ""
    ) -> None:
        """The ratio to each peer; with `unit`, each side's median (min-max) below it."""
        ratios = {p: ratio(results, key, label, p) for p in peers}
        shown = ", ".join(f"{r:.2f}x {p}" for p, r in ratios.items() if r is not None)
        if not shown:
            return
        worst = max(r for r in ratios.values() if r is not None)
        verdict = "met" if worst <= limit else "not met"
        print(f"  {name:32} {shown}   goal <= {limit}x: {verdict}")
        if unit:
            figures = "; ".join(
                f"{who} {cell(results[who], key, '{:.1f}')}" for who in (label, *peers)
            )
            print(f"  {'':32} {figures} {unit}")

    for other in results:
        if other.startswith("opgen@"):
            against_cr(f"CPU per object, {other}", "cpu_ms_per_object", 1.2, other)
    if "opgen" not in results:
        return
    against_cr("operator CPU per object", "cpu_ms_per_object", 1.5)
    against_cr("operator CPU per object", "cpu_ms_per_object", 1.2)
    against_cr("convergence", "seconds", 1.15)
    against_cr("peak RSS, VmHWM (issue 20)", "peak_rss_mib", 1.3, unit="MiB")
    against_cr("steady RSS (issue 26)", "rss_mib", 1.3, unit="MiB")
    kopf = ratio(results, "throughput", "opgen", "kopf")
    if kopf is not None:
        verdict = "met" if kopf >= 2.0 else "not met"
        print(f"  {'throughput vs kopf':32} {kopf:.2f}x   goal >= 2x: {verdict}")
    startup = median(results["opgen"], "ready_seconds")
    verdict = "met" if startup <= 0.3 else "not met"
    print(f"  {'start-up':32} {startup:.2f} s   goal <= 0.3 s: {verdict}")
    writes = median(results["opgen"], "writes_per_object")
    verdict = "met" if abs(writes - 2.0) < 0.005 else "not met"
    print(f"  {'writes per object':32} {writes:.2f}   goal 2.00: {verdict}")
    if "idle_writes" in results["opgen"][0]:
        idle = max(run["idle_writes"] for run in results["opgen"])
        verdict = "met" if idle == 0 else "not met"
        print(
            f"  {'writes for converged objects':32} {idle} (most of any run)   goal 0: {verdict}"
        )


def print_memory(
    small: dict[str, list[dict[str, Any]]],
    large: dict[str, list[dict[str, Any]]],
    n_small: int,
    n_large: int,
) -> None:
    print(
        f"\nmemory per cached object (steady RSS growth from {n_small} to {n_large} "
        f"objects, per cached object: a Widget and its ConfigMap are two):"
    )
    per: dict[str, float] = {}
    for label in large:
        if label not in small:
            continue
        growth = median(large[label], "rss_mib") - median(small[label], "rss_mib")
        per[label] = growth * 1024 / (2 * (n_large - n_small))
        print(f"  {label:8} {per[label]:6.2f} KiB")
    if "opgen" in per:
        for peer in ("cr", "cr+ryw"):
            if peer in per and per[peer] > 0:
                print(f"  opgen / {peer}: {per['opgen'] / per[peer]:.2f}x")


# -- the relist after 410 -------------------------------------------------------


async def relist(env: Environment, n: int, logs: Path) -> dict[str, Any]:
    session = Session(env, "relist", n, logs)
    await session.open()
    for task in session.tasks:  # the driver's informers are not needed here
        task.cancel()
    await asyncio.gather(*session.tasks, return_exceptions=True)
    session.tasks = []
    log = logs / "relist.log"
    try:
        with log.open("wb") as stderr:
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                str(HERE / "_relist_probe.py"),
                env={
                    **os.environ,
                    "KUBECONFIG": str(env.kubeconfig_path),
                    "BENCH_NAMESPACE": session.namespace,
                    "PYTHONPATH": str(ROOT),
                },
                cwd=ROOT,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=stderr,
            )
        assert proc.stdin is not None
        synced = json.loads(await Session._line(proc, log, 600))
        proc.stdin.write(b"stop\n")
        await proc.stdin.drain()
        if await Session._line(proc, log, 60) != "stopped":
            raise RuntimeError(f"the relist probe did not stop; log: {log}")
        await session.client.delete(widget("w00000", session.namespace))
        await session.client.create(widget("born", session.namespace))
        started = time.monotonic()
        await env.arestart_apiserver()
        await watch_cache_ready(session, started)
        restart = time.monotonic() - started
        proc.stdin.write(b"go w00000 born\n")
        await proc.stdin.drain()
        result = json.loads(await Session._line(proc, log, 600))
        await proc.wait()
    finally:
        await session.close()
    return {**synced, **result, "apiserver_restart_seconds": restart, "n": n}


async def watch_cache_ready(session: Session, since: float) -> None:
    """Wait until the restarted API server serves watches of Widgets (it answers 429
    "storage is (re)initializing" while its watch cache fills), so that the relist is
    timed on its own."""
    path = (
        f"/apis/test.opgen.dev/v1/namespaces/{session.namespace}/widgets"
        "?watch=true&timeoutSeconds=1&resourceVersion=0"
    )
    while True:
        async with session.rest.transport.stream(
            "GET", path, read_timeout=30
        ) as answer:
            status = answer.status
            await answer.read()
        if status == 200:
            return
        if time.monotonic() - since > 120:
            raise RuntimeError("the restarted API server does not serve Widgets")
        await asyncio.sleep(0.1)


def print_relist(result: dict[str, Any]) -> None:
    print(
        f"\nrelist after 410 Gone, one opgen informer of {result['n']} Widgets "
        f"(one run; the API server restarted while it was away):"
    )
    print(
        f"  initial list and sync          {result['synced_seconds']:.2f} s, RSS then {result['rss_kib'] / 1024:.0f} MiB"
    )
    print(f"  relist after 410               {result['relist_seconds']:.2f} s")
    print(
        f"  peak RSS during the relist     {result['peak_rss_kib'] / 1024:.0f} MiB (after: {result['rss_kib'] / 1024:.0f} MiB)"
    )
    print(
        f"  410 Gone restarts seen         {result['gone_restarts']:.0f} "
        f"(and {result['error_restarts']:.0f} after errors); "
        f"objects after: {result['objects']}"
    )


# -- entry point ----------------------------------------------------------------


def compile_bytecode(ops: Sequence[Operator]) -> None:
    """Compile the operators' Python sources ahead, as `pip install` does for an
    image: each start then loads bytecode, whether or not PYTHONDONTWRITEBYTECODE
    is set here (with it set and nothing compiled, every start compiles about 150
    modules again, some 0.2 s CPU)."""
    checkouts = {ROOT} | {
        Path(op.env["PYTHONPATH"]) for op in ops if "PYTHONPATH" in op.env
    }
    for checkout in sorted(checkouts):
        for package in ("opgen", "tests"):
            compileall.compile_dir(checkout / package, quiet=1)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    tables = set(args.tables.split(","))
    counts = [int(c) for c in args.objects.split(",")]
    ops = operators(args.operators.split(","))
    compile_bytecode(ops)
    report: dict[str, Any] = {}
    env = await Environment(crd_paths=generated_crds()).astart()
    logs = Path(tempfile.mkdtemp(prefix="opgen-bench-logs-"))
    try:
        by_count: dict[int, dict[str, list[dict[str, Any]]]] = {}
        if "runtime" in tables:
            for n in counts:
                print(f"runtime table, {n} objects:", flush=True)
                by_count[n] = await series(env, ops, n, args.runs, logs, again=True)
                print_table(
                    by_count[n], f"{n} Widgets, one owned ConfigMap and a status each"
                )
                print_goals(by_count[n], n)
        if "scale" in tables:
            scale_ops = [op for op in ops if op.label in ("opgen", "cr")]
            base = min(counts)
            if base not in by_count:
                print(f"scale table, baseline at {base} objects:", flush=True)
                by_count[base] = await series(
                    env, scale_ops, base, args.scale_runs, logs, again=False
                )
            n = args.scale_objects
            print(f"scale table, {n} objects:", flush=True)
            by_count[n] = await series(
                env, scale_ops, n, args.scale_runs, logs, again=False
            )
            print_table(by_count[n], f"scale: {n} Widgets")
            print_memory(by_count[base], by_count[n], base, n)
        if "relist" in tables:
            print(f"relist table, {args.scale_objects} objects:", flush=True)
            report["relist"] = await relist(env, args.scale_objects, logs)
            print_relist(report["relist"])
        report["by_count"] = {str(n): r for n, r in by_count.items()}
    except BaseException:
        print(f"the operators' logs are kept in {logs}", file=sys.stderr)
        raise
    else:
        shutil.rmtree(logs, ignore_errors=True)
    finally:
        await env.astop()
    return report


def main(argv: list[str] | None = None) -> None:
    """Entry point; `python -m benchmarks` calls it with the defaults."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.runtime")
    parser.add_argument("--tables", default="runtime,scale,relist")
    parser.add_argument("--objects", default="1000,3000", help="comma-separated counts")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--scale-objects", type=int, default=10000)
    parser.add_argument("--scale-runs", type=int, default=3)
    parser.add_argument("--operators", default="opgen,cr,cr+ryw,kopf")
    parser.add_argument("--json", type=Path, help="also write every run's figures here")
    args = parser.parse_args([] if argv is None else argv)
    report = asyncio.run(run(args))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
