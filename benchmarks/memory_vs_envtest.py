"""The example's controller tests on the memory API server and on envtest.

    .venv/bin/python -m benchmarks memory_vs_envtest [-- RUNS [--before TREE] [--instructions]]

Collects `examples/generated/tests/controller` once with
`--api-server=memory` to learn which tests run on the memory server (those
that ask for `envtest` itself, to run kubectl, hand a manager envtest's
kubeconfig or collect garbage, run on envtest under either switch and are
left out), then runs those tests RUNS times (default 3) on each backend,
interleaved (envtest, memory, envtest, memory, ...), each run a pytest
process of its own (`--api-server=envtest|memory`), and prints the medians
with their range:

- **tests on memory, no start-up**: the tests' wall time (setup, call and
  teardown) less the seconds the backend's start-up took: the `envtest`
  fixture starting the control plane, the `memory_session` fixture reading
  the CRDs and webhooks. The issue's goal (the memory server at least 20x faster) is judged
  on this column: start-up is paid once a session, so a suite's cost grows
  with its tests, and this is their cost.
- **the same, CPU of the test process only**: the pytest process's CPU time
  in those tests (every thread: the memory server, the webhook handlers, the
  client). On envtest it leaves out etcd's and kube-apiserver's CPU, so it
  understates envtest's cost: its ratio is a floor. On a loaded machine wall
  times mostly measure waiting for a core; this is the steadier figure.
- **their whole run, with start-up**: the pytest process from start to end,
  wall and CPU (the process and everything it started and waited for: etcd
  and kube-apiserver on envtest), imports and collection included: what one
  `pytest` of these tests costs.

- **memory's CPU by part**: of the CPU on memory, the memory server's own
  handling of requests, the project's webhook handlers it calls, the cyclic
  garbage collector, and the rest (the tests' own work, the same on both
  backends: the reconciler, the client, pytest).

`--before TREE` (another checkout of opgen, such as `git worktree add
/tmp/main main`) adds a third series, the same tests on the memory server of
that checkout, run in the same rounds (`rounds`: envtest first, then the
two memory series in an order that flips every round, so each follows
envtest's teardown, which still takes CPU, as often as the other: take an
even RUNS), and prints it beside this checkout's: a change to the memory server,
paired before and after on one machine at one load. Every run is timed by
this checkout's plugin (`_suite_timings`, loaded from a folder of its own).

`--instructions` times nothing: it counts, with valgrind's callgrind (which
must be installed), the instructions the tests on memory execute (start-up,
imports and collection left out, by the `_callgrind_toggle` plugin), RUNS
times for this checkout and, with `--before`, for the other, alternating.
A loaded or shared machine changes wall and CPU times by more than most
changes to the memory server; it does not change these counts, which vary
only with what the tests do (a retry after a conflict, a watch event
arriving before or after a read). envtest is not run: there is nothing to
count against.

The pytest processes cache bytecode (`PYTHONDONTWRITEBYTECODE` is dropped for
them): without it every run compiles and assertion-rewrites all of opgen
again, a cost neither backend has on a developer's machine. The tests must
pass on both backends: a failed run stops the benchmark.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "generated"
TESTS = "tests/controller"
GOAL = 20.0
BACKENDS = ("envtest", "memory")
BEFORE = "before"
"""The series of `--before TREE`: the memory server of another checkout."""
TIMINGS = Path(__file__).with_name("_suite_timings.py")
PLUGIN = "_opgen_suite_timings"
TOGGLE = Path(__file__).with_name("_callgrind_toggle.py")
TOGGLE_PLUGIN = "_opgen_callgrind_toggle"
PARTS = (
    ("server", "the memory server"),
    ("webhooks", "the webhook handlers"),
    ("gc", "the garbage collector"),
)


@dataclass(frozen=True)
class Run:
    """One pytest process on one backend."""

    backend: str
    wall: float
    cpu: float
    tests: list[dict[str, Any]]

    def cpu_on_memory(self, names: set[str]) -> float:
        """The test process's CPU seconds in the tests in `names`, less start-up."""
        return sum(float(t["cpu"]) for t in self.tests if t["name"] in names)

    def part_cpu(self, names: set[str], part: str) -> float:
        """CPU seconds of `part` (`PARTS`) in the tests in `names`."""
        return sum(
            float(t.get(f"{part}_cpu", 0.0)) for t in self.tests if t["name"] in names
        )

    def on_memory(self, names: set[str]) -> float:
        """Seconds the tests in `names` took, less the backend's start-up."""
        return sum(
            float(t["seconds"]) - float(t["startup"])
            for t in self.tests
            if t["name"] in names
        )


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _environment(folder: str, tree: Path = ROOT, **extra: str) -> dict[str, str]:
    """The pytest processes' environment: the checkout `tree` importable, the
    timing plugin (copied into `folder`) too, and bytecode cached (as on a
    developer's machine: without it every run compiles, and assertion-rewrites,
    all of opgen again)."""
    shutil.copyfile(TIMINGS, Path(folder, f"{PLUGIN}.py"))
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(tree), folder, environ.get("PYTHONPATH", "")) if p
    )
    return {**environ, **extra}


def _pytest(*args: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        PLUGIN,
        *args,
    ]


def collect() -> tuple[list[str], int]:
    """The tests that run on the memory server under `--api-server=memory`, and
    how many ask for envtest itself (collected once: this also leaves the
    bytecode cached for every measured run)."""
    with tempfile.TemporaryDirectory(prefix="opgen-bench-") as folder:
        collected = Path(folder, "collected.json")
        done = subprocess.run(
            _pytest("--collect-only", "--api-server=memory", TESTS),
            cwd=EXAMPLE,
            env=_environment(folder, OPGEN_SUITE_COLLECTED=str(collected)),
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise SystemExit(f"cannot collect {TESTS}:\n{done.stdout[-4000:]}")
        tests = json.loads(collected.read_text())
    memory = [t["nodeid"] for t in tests if t["memory"]]
    return memory, len(tests) - len(memory)


def run_once(backend: str, tests: list[str], tree: Path | None = None) -> Run:
    """One pytest process of `tests` on `backend`; with `tree`, on the memory
    server of that checkout (the series `before`)."""
    with tempfile.TemporaryDirectory(prefix="opgen-bench-") as folder:
        timings = Path(folder, "timings.json")
        environ = _environment(folder, tree or ROOT, OPGEN_SUITE_TIMINGS=str(timings))
        command = _pytest(f"--api-server={backend}", *tests)
        cpu_before = _children_cpu()
        began = time.perf_counter()
        done = subprocess.run(
            command,
            cwd=EXAMPLE,
            env=environ,
            capture_output=True,
            text=True,
            check=False,
        )
        wall = time.perf_counter() - began
        cpu = _children_cpu() - cpu_before
        if done.returncode != 0:
            raise SystemExit(
                f"the controller tests failed on {backend}:\n{done.stdout[-4000:]}"
            )
        timed = json.loads(timings.read_text())["tests"]
    return Run(BEFORE if tree else backend, wall, cpu, timed)


def _spread(samples: list[float]) -> str:
    return (
        f"{statistics.median(samples):7.2f} s ({min(samples):.2f}-{max(samples):.2f})"
    )


def report(runs: list[Run], envtest_only: int = 0) -> list[str]:
    """The table, the ratios and the verdict on the goal (`envtest_only`: the
    tests left out, which ask for envtest itself); with runs of `--before`,
    their column and the memory server's gain beside it."""
    series = [*BACKENDS, *([BEFORE] if any(r.backend == BEFORE for r in runs) else [])]
    by = {b: [r for r in runs if r.backend == b] for b in series}
    names = {t["name"] for t in by["memory"][0].tests if t["memory"]}
    total = len(by["memory"][0].tests) + envtest_only
    columns = {
        f"{len(names)} of {total} tests on memory, no start-up": {
            b: [r.on_memory(names) for r in by[b]] for b in series
        },
        "the same, CPU of the test process only": {
            b: [r.cpu_on_memory(names) for r in by[b]] for b in series
        },
        "their whole run, wall, with start-up": {
            b: [r.wall for r in by[b]] for b in series
        },
        "their whole run, CPU, with start-up": {
            b: [r.cpu for r in by[b]] for b in series
        },
    }
    heading = f"{'':44} {'envtest':>24} {'memory':>24} {'ratio':>8}"
    if BEFORE in by:
        heading += f" {'memory, before':>24} {'gain':>6}"
    lines = [
        f"examples/generated/{TESTS}: {len(by['envtest'])} runs per backend, "
        f"interleaved; medians (min-max)",
        heading,
    ]
    ratios: dict[str, float] = {}
    for column, samples in columns.items():
        envtest, memory = samples["envtest"], samples["memory"]
        ratio = _ratio(envtest, memory)
        ratios[column] = ratio
        line = f"{column:44} {_spread(envtest):>24} {_spread(memory):>24} {ratio:7.1f}x"
        if BEFORE in by:
            before = samples[BEFORE]
            line += f" {_spread(before):>24} {_ratio(before, memory):5.2f}x"
        lines.append(line)
    judged = next(iter(columns))
    met = ratios[judged] >= GOAL
    lines.append(
        f"goal: the memory server >= {GOAL:.0f}x faster on '{judged}': "
        f"{ratios[judged]:.1f}x, {'met' if met else 'not met'}"
    )
    lines.append(
        f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    return lines + parts(by, names) + per_test(by, names)


def _ratio(slower: list[float], faster: list[float]) -> float:
    return statistics.median(slower) / max(statistics.median(faster), 1e-9)


def parts(by: dict[str, list[Run]], names: set[str]) -> list[str]:
    """Where memory's CPU went in the measured tests (`PARTS`, and the rest:
    the tests' own work), medians over the runs, for each memory series."""
    lines = ["memory's CPU by part, medians (min-max)"]
    for series in (s for s in ("memory", BEFORE) if s in by):
        runs = by[series]
        samples = {
            label: [r.part_cpu(names, part) for r in runs] for part, label in PARTS
        }
        samples["the rest (the tests' own work)"] = [
            r.cpu_on_memory(names) - sum(r.part_cpu(names, p) for p, _ in PARTS)
            for r in runs
        ]
        for label, values in samples.items():
            lines.append(f"  {series:7} {label:36} {_spread(values):>24}")
    return lines


def per_test(by: dict[str, list[Run]], names: set[str]) -> list[str]:
    """Where the time went, test by test: each test's wall time less start-up on
    both backends, and its CPU on memory (medians over the runs; the first
    test also pays what a process does once, on either backend: building the
    models it validates, the client's converters)."""
    lines = [
        "per test, medians: wall less start-up on envtest and on memory, "
        "and the CPU on memory",
        f"{'':60} {'envtest':>8} {'memory':>8} {'its CPU':>8}",
    ]
    order = [t["name"] for t in by["memory"][0].tests if t["name"] in names]
    for name in order:
        walls = {
            b: statistics.median(
                float(t["seconds"]) - float(t["startup"])
                for r in by[b]
                for t in r.tests
                if t["name"] == name
            )
            for b in BACKENDS
        }
        cpu = statistics.median(
            float(t["cpu"]) for r in by["memory"] for t in r.tests if t["name"] == name
        )
        lines.append(
            f"{name[:60]:60} {walls['envtest']:7.3f}s {walls['memory']:7.3f}s "
            f"{cpu:7.3f}s"
        )
    return lines


def count_instructions(tests: list[str], tree: Path | None = None) -> int:
    """The instructions `tests` execute on the memory server of `tree` (default
    this checkout), under callgrind, start-up left out."""
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        raise SystemExit("--instructions runs valgrind's callgrind: install valgrind")
    with tempfile.TemporaryDirectory(prefix="opgen-bench-") as folder:
        shutil.copyfile(TOGGLE, Path(folder, f"{TOGGLE_PLUGIN}.py"))
        out = Path(folder, "callgrind.out")
        environ = _environment(folder, tree or ROOT, PYTHONHASHSEED="0")
        command = [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={out}",
            *_pytest("-p", TOGGLE_PLUGIN, "--api-server=memory", *tests),
        ]
        done = subprocess.run(
            command, cwd=EXAMPLE, env=environ, capture_output=True, text=True
        )
        if done.returncode != 0:
            raise SystemExit(
                f"the tests failed under callgrind:\n{done.stdout[-4000:]}"
            )
        for line in out.read_text().splitlines():
            if line.startswith("totals: "):
                return int(line.split()[1])
    raise SystemExit(f"callgrind wrote no totals to {out}")


def instructions(count: int, tests: list[str], before: Path | None) -> list[str]:
    """`count` counts of this checkout (and `before`), alternating, and the report."""
    series: dict[str, list[int]] = {"this checkout": []}
    if before is not None:
        series[f"before ({before})"] = []
    for _ in range(count):
        series["this checkout"].append(count_instructions(tests))
        if before is not None:
            series[f"before ({before})"].append(count_instructions(tests, before))
    lines = [f"instructions in the {len(tests)} tests on memory, start-up left out:"]
    for name, counts in series.items():
        median = statistics.median(counts)
        lines.append(
            f"  {name:<40} {median / 1e6:8.1f} M"
            f" ({min(counts) / 1e6:.1f}-{max(counts) / 1e6:.1f})"
        )
    if before is not None:
        now, then = (statistics.median(c) for c in series.values())
        lines.append(f"  gain: {then / now:.2f}x fewer instructions")
    return lines


def _arguments(argv: list[str]) -> tuple[int, Path | None]:
    """`[RUNS] [--before TREE]`: the runs per series (default 3), the other checkout."""
    words = [w for w in argv if w != "--instructions"]
    before = None
    if "--before" in words:
        at = words.index("--before")
        if at + 1 >= len(words):
            raise SystemExit("--before needs a checkout of opgen: --before TREE")
        before = Path(words[at + 1]).resolve()
        del words[at : at + 2]
        if not (before / "opgen" / "testing" / "memory").is_dir():
            raise SystemExit(f"--before {before}: not a checkout of opgen")
    return (int(words[0]) if words else 3), before


def rounds(count: int, before: Path | None) -> list[tuple[str, Path | None]]:
    """The runs in order, (backend, checkout): each round envtest, then memory;
    with `before`, the two memory series, in turns first after envtest."""
    memories: list[tuple[str, Path | None]] = [("memory", None)]
    if before is not None:
        memories.append(("memory", before))
    order: list[tuple[str, Path | None]] = []
    for round_ in range(count):
        turned = memories[::-1] if round_ % 2 else memories
        order += [("envtest", None), *turned]
    return order


def main(argv: list[str] | None = None) -> None:
    """Entry point: `[RUNS] [--before TREE] [--instructions]` (default 3 runs)."""
    runs_per_backend, before = _arguments(argv or [])
    if "--instructions" in (argv or []):
        for line in instructions(runs_per_backend, collect()[0], before):
            print(line)
        return
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    tests, envtest_only = collect()
    runs: list[Run] = []
    for backend, tree in rounds(runs_per_backend, before):
        runs.append(run_once(backend, tests, tree))
        print(f"  {runs[-1].backend:8} {runs[-1].wall:6.1f} s", flush=True)
    for line in report(runs, envtest_only):
        print(line)
    print(
        f"({envtest_only} more tests ask for envtest itself, run there on either "
        "switch and are not measured)"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
