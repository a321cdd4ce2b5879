"""CRD generation: opgen against controller-gen on the same API, 1, 10 and 100 kinds.

    python -m benchmarks.crd_vs_controller_gen [--kinds 1,10,100] [--runs 5]
        [--project-kinds 10] [--no-project] [--no-templates] [--no-check]
        [--baseline DIR]

The flat showcase API is examples/standalone/raycluster_types.py; its Go twin,
with kubebuilder markers, is benchmarks/controllergen/api/v1/raycluster_types.go.
The API with pod templates is the example operator's,
examples/raycluster_types.py, whose Go twin is
benchmarks/controllergen/podtemplates/v1/raycluster_types.go: one kind, paired
in the same run (`--no-templates` leaves it out). For N kinds both are
copied N times at bench time, one file per kind as in a Kubebuilder project,
with the kind renamed RayCluster, RayCluster1, ... RayCluster{N-1} and the other
type names suffixed alike.

Each run times, in alternation (which goes first alternates too), one fresh
process of

- `opgen generate crd --types <each file> --out DIR`, and
- `controller-gen crd paths=./... output:crd:dir=DIR` (controller-gen
  `gobuild.CONTROLLER_TOOLS_VERSION`, built from the Go module proxy and cached),

after one untimed warm-up of each (Go's build cache, Python's bytecode, and
opgen's cache directory: each types file's attribute docstrings, black's output,
compiled templates; what a user's earlier runs leave there).
Figures are medians over the runs with the min-max beside them. The benchmark
then checks that both wrote the same CRDs apart from `DIFFERENCES`, and fails
loudly otherwise.

The floor joins the same alternation: one fresh Python process that does only
what any generator reading Pydantic models must do, and nothing of opgen's
generator: start Python (this interpreter, as the `opgen` script does), import
pydantic, and import each of the same types files (`FLOOR_SCRIPT`), which runs
the imports the types file names (opgen.api) and builds its Pydantic classes.
Its time against controller-gen's says whether the goal (opgen at most
`1 / GOAL_SPEED_UP` of controller-gen's time) is within reach on this stack at
all: "floor above goal" when even the floor is slower than the goal.

`--baseline DIR` pairs another opgen tree (a worktree of main, with its own
`.venv`) in the same run: its `opgen generate crd` joins the alternation as a
third tool, its `generate --check` alternates with this tree's (each in its
own examples/generated/), and the benchmark says whether both trees wrote the
same bytes: the before/after figures of a change, measured under the same load.

Then `opgen generate` end to end in a scaffolded project with `--project-kinds`
kinds (`opgen init`, `opgen create api` per kind, the example's types): the
command a developer runs after editing the types. Last, `opgen generate
--check` in the committed example project, examples/generated/ (nothing
written; `--no-check` leaves it out), against its goal of `CHECK_GOAL_SECONDS`.
"""

from __future__ import annotations

import argparse
import difflib
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import yaml

from benchmarks import gobuild

HERE = Path(__file__).parent
ROOT = HERE.parent
PYTHON_TYPES = ROOT / "examples" / "standalone" / "raycluster_types.py"
GO_MODULE = HERE / "controllergen"
GO_TYPES = GO_MODULE / "api" / "v1" / "raycluster_types.go"
TEMPLATED_PYTHON_TYPES = ROOT / "examples" / "raycluster_types.py"
TEMPLATED_GO_PACKAGE = GO_MODULE / "podtemplates" / "v1"
TEMPLATED_LABEL = "1, pod templates"
# examples/raycluster_types.py lives in the example project's package; the
# benchmark's copy names its group and version itself.
TEMPLATED_IMPORT = "from ray_operator.api.v1.groupversion_info import GROUP, VERSION\n"
EXAMPLE_PROJECT = ROOT / "examples" / "generated"
GOAL_SPEED_UP = 2.0
CHECK_GOAL_SECONDS = 1.5

TYPE_NAMES = re.compile(
    r"\b(RayClusterSpec|RayClusterStatus|RayClusterList|RayCluster|HeadSpec"
    r"|WorkerGroup|ResourceRequirements|UpscalingMode)\b"
)

_SCHEMA = ("spec", "versions", "*", "schema", "openAPIV3Schema", "properties")
ALL_DESCRIPTIONS = "every description"
# Where opgen's CRD and controller-gen's differ by design: (path to a node, the key
# dropped from it before comparing, why). A path walks mappings by key; "*" is
# every item of a list; ALL_DESCRIPTIONS drops the descriptions of the whole node.
Difference = tuple[tuple[str, ...], str, str]
DIFFERENCES: tuple[Difference, ...] = (
    (
        ("metadata",),
        "annotations",
        "each tool stamps its own version: opgen.dev/version, "
        "controller-gen.kubebuilder.io/version",
    ),
    (
        (*_SCHEMA, "status", "properties", "conditions", "items"),
        ALL_DESCRIPTIONS,
        "op.Conditions describes metav1.Condition and its fields in opgen's own "
        "shorter words; controller-gen copies metav1.Condition's Go doc comments",
    ),
    (
        (
            *_SCHEMA,
            "spec",
            "properties",
            "head",
            "properties",
            "imageFrom",
            "properties",
            "name",
        ),
        "description",
        "op.LocalObjectReference describes `name` in opgen's own words; "
        "controller-gen copies corev1.LocalObjectReference's Go doc comment",
    ),
    (
        (*_SCHEMA, "spec", "properties", "idleTimeout"),
        "pattern",
        "op.Duration validates Go's duration syntax with a pattern; controller-gen "
        "writes metav1.Duration as a bare string (and refuses a Pattern marker on it)",
    ),
)

_TEMPLATES = (
    (*_SCHEMA, "spec", "properties", "headGroup", "properties", "template"),
    (*_SCHEMA, "spec", "properties", "workerGroups", "items", "properties", "template"),
)
TEMPLATE_DIFFERENCES: tuple[Difference, ...] = tuple(
    (
        template,
        ALL_DESCRIPTIONS,
        "op.k8s.PodTemplateSpec carries the descriptions of kube-apiserver's "
        "OpenAPI; controller-gen copies k8s.io/api's Go doc comments, worded "
        "and wrapped differently",
    )
    for template in _TEMPLATES
)
# The pod-template API has no imageFrom or idleTimeout: the flat showcase's
# metadata and conditions differences, and the templates'.
TEMPLATED_DIFFERENCES = (*DIFFERENCES[:2], *TEMPLATE_DIFFERENCES)


def suffixed(source: str, suffix: str) -> str:
    """The source with the kind renamed RayCluster{suffix} (RayCluster7Spec, as
    `opgen create api` names them) and every other type name suffixed (HeadSpec7)."""

    def rename(match: re.Match[str]) -> str:
        name = match.group(1)
        if name.startswith("RayCluster"):
            return "RayCluster" + suffix + name.removeprefix("RayCluster")
        return name + suffix

    return TYPE_NAMES.sub(rename, source)


def suffixes(count: int) -> list[str]:
    return [""] + [str(n) for n in range(1, count)]


def write_python_types(directory: Path, count: int) -> list[Path]:
    directory.mkdir(parents=True)
    source = PYTHON_TYPES.read_text(encoding="utf-8")
    paths = []
    for suffix in suffixes(count):
        path = directory / f"raycluster{suffix}_types.py"
        path.write_text(suffixed(source, suffix), encoding="utf-8")
        paths.append(path)
    return paths


def write_templated_python_types(directory: Path) -> list[Path]:
    directory.mkdir(parents=True)
    source = TEMPLATED_PYTHON_TYPES.read_text(encoding="utf-8")
    if TEMPLATED_IMPORT not in source:
        raise AssertionError(
            f"{TEMPLATED_PYTHON_TYPES} no longer imports GROUP and VERSION as "
            f"{TEMPLATED_IMPORT.strip()!r}; update TEMPLATED_IMPORT"
        )
    path = directory / "raycluster_types.py"
    path.write_text(
        source.replace(TEMPLATED_IMPORT, 'GROUP = "ray.io"\nVERSION = "v1"\n'),
        encoding="utf-8",
    )
    return [path]


def write_templated_go_module(directory: Path) -> None:
    api = directory / "api" / "v1"
    api.mkdir(parents=True)
    for name in ("go.mod", "go.sum"):
        shutil.copy(GO_MODULE / name, directory / name)
    for source in TEMPLATED_GO_PACKAGE.glob("*.go"):
        shutil.copy(source, api)


def write_go_module(directory: Path, count: int) -> None:
    api = directory / "api" / "v1"
    api.mkdir(parents=True)
    for name in ("go.mod", "go.sum"):
        shutil.copy(GO_MODULE / name, directory / name)
    shutil.copy(GO_TYPES.with_name("groupversion_info.go"), api)
    source = GO_TYPES.read_text(encoding="utf-8")
    for suffix in suffixes(count):
        (api / f"raycluster{suffix}_types.go").write_text(
            suffixed(source, suffix), encoding="utf-8"
        )


FLOOR_SCRIPT = """
import importlib.util, os, sys
import pydantic
for path in sys.argv[1:]:
    name = os.path.basename(path).removesuffix(".py")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
"""
"""The generation floor: `python -c FLOOR_SCRIPT TYPES_FILE...` imports pydantic,
then executes each types file as a module, as opgen's loader does (under its
file's stem)."""
FLOOR_ABOVE_GOAL = "floor above goal (out of reach on this stack)"
FLOOR_UNDER_GOAL = "floor under goal"


def floor_verdict(floor_seconds: float, controller_gen_seconds: float) -> str:
    """Whether the floor alone already takes longer than the goal allows opgen
    (controller-gen's time / GOAL_SPEED_UP)."""
    if floor_seconds > controller_gen_seconds / GOAL_SPEED_UP:
        return FLOOR_ABOVE_GOAL
    return FLOOR_UNDER_GOAL


def opgen_command() -> list[str]:
    """The `opgen` console script next to this interpreter (what a user runs)."""
    script = Path(sys.executable).with_name("opgen")
    return [str(script)] if script.exists() else [sys.executable, "-m", "opgen"]


def baseline_command(tree: Path) -> list[str]:
    """The `opgen` console script of another opgen tree's `.venv`."""
    script = tree / ".venv" / "bin" / "opgen"
    if not script.exists():
        raise SystemExit(f"--baseline {tree}: no {script} (make setup there first)")
    return [str(script)]


CPU_SECONDS: dict[str, list[float]] = {}
"""CPU time (user + system) of every timed run, by its label (else the tool's
first word)."""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def bench_env() -> dict[str, str]:
    """The environment both tools run in: Go's, and Python free to cache bytecode.

    A user's opgen runs from compiled bytecode (pip compiles an install's, and
    Python caches that of the user's modules after their first import); an
    environment that forbids writing it (PYTHONDONTWRITEBYTECODE, as some
    sandboxes set) would time compiling opgen's modules on every run instead."""
    env = gobuild.go_env()
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def timed(command: Sequence[str], cwd: Path, label: str | None = None) -> float:
    """Wall seconds of one run of `command` (its CPU time goes to `CPU_SECONDS`,
    under `label` or the command's first word)."""
    cpu = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(
        list(command),
        cwd=cwd,
        env=bench_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    key = label or Path(command[0]).name
    CPU_SECONDS.setdefault(key, []).append(_children_cpu() - cpu)
    if done.returncode != 0:
        raise RuntimeError(
            f"`{' '.join(command)}` failed ({done.returncode}):\n{done.stderr[-3000:]}"
        )
    return elapsed


def spread(samples: Sequence[float]) -> str:
    """`median (min-max)`."""
    return (
        f"{statistics.median(samples):6.2f} " f"({min(samples):.2f}-{max(samples):.2f})"
    )


def _nodes(node: Any, path: Sequence[str]) -> Iterator[Any]:
    if not path:
        yield node
    elif path[0] == "*" and isinstance(node, list):
        for item in node:
            yield from _nodes(item, path[1:])
    elif isinstance(node, dict) and path[0] in node:
        yield from _nodes(node[path[0]], path[1:])


def _drop_descriptions(node: Any) -> None:
    if isinstance(node, dict):
        node.pop("description", None)
        for value in node.values():
            _drop_descriptions(value)
    elif isinstance(node, list):
        for value in node:
            _drop_descriptions(value)


def normalised(text: str, differences: Sequence[Difference] = DIFFERENCES) -> Any:
    """The CRD without the documented differences."""
    document = yaml.safe_load(text)
    for path, key, _ in differences:
        for node in _nodes(document, path):
            if key == ALL_DESCRIPTIONS:
                _drop_descriptions(node)
            elif isinstance(node, dict):
                node.pop(key, None)
    return document


def compare_outputs(
    opgen_dir: Path,
    controller_gen_dir: Path,
    differences: Sequence[Difference] = DIFFERENCES,
) -> int:
    """How many CRDs both wrote; raises if they differ beyond `DIFFERENCES`."""
    ours = sorted(p.name for p in opgen_dir.glob("*.yaml"))
    theirs = sorted(p.name for p in controller_gen_dir.glob("*.yaml"))
    if ours != theirs:
        raise AssertionError(
            f"different CRD files: opgen {ours}, controller-gen {theirs}"
        )
    for name in ours:
        a = normalised((opgen_dir / name).read_text(encoding="utf-8"), differences)
        b = normalised(
            (controller_gen_dir / name).read_text(encoding="utf-8"), differences
        )
        if a != b:
            diff = difflib.unified_diff(
                yaml.safe_dump(b).splitlines(),
                yaml.safe_dump(a).splitlines(),
                "controller-gen/" + name,
                "opgen/" + name,
                lineterm="",
            )
            raise AssertionError(
                f"{name}: the CRDs differ beyond the documented differences:\n"
                + "\n".join(diff)
            )
    return len(ours)


def alternate(
    runs: int, tools: dict[str, Callable[[int], float]]
) -> dict[str, list[float]]:
    """Run each tool `runs` times, alternating which goes first; seconds per tool."""
    samples: dict[str, list[float]] = {name: [] for name in tools}
    names = list(tools)
    for index in range(runs):
        order = names if index % 2 == 0 else names[::-1]
        for name in order:
            samples[name].append(tools[name](index))
    return samples


def bench_kinds(
    work: Path,
    count: int,
    runs: int,
    controller_gen: Path,
    baseline: list[str] | None = None,
) -> dict[str, Any]:
    base = work / f"kinds-{count}"
    types = write_python_types(base / "python", count)
    module = base / "go"
    write_go_module(module, count)
    result = bench_pair(
        base, types, module, runs, controller_gen, DIFFERENCES, baseline
    )
    if result["crds"] != count:
        raise AssertionError(f"{result['crds']} CRDs written for {count} kinds")
    return {"kinds": count, **result}


def bench_templated(
    work: Path, runs: int, controller_gen: Path, baseline: list[str] | None = None
) -> dict[str, Any]:
    """The example operator's API (pod templates), one kind."""
    base = work / "templated"
    types = write_templated_python_types(base / "python")
    module = base / "go"
    write_templated_go_module(module)
    result = bench_pair(
        base, types, module, runs, controller_gen, TEMPLATED_DIFFERENCES, baseline
    )
    return {"kinds": TEMPLATED_LABEL, **result}


def bench_pair(
    base: Path,
    types: list[Path],
    module: Path,
    runs: int,
    controller_gen: Path,
    differences: Sequence[Difference],
    baseline: list[str] | None = None,
) -> dict[str, Any]:
    """opgen on `types` against controller-gen on `module` (and the `baseline`
    opgen, when given), alternated; checks the outputs agree apart from
    `differences`."""
    type_args = [arg for path in types for arg in ("--types", str(path))]

    def run_opgen(index: int) -> float:
        out = base / f"opgen-out-{index}"
        return timed(
            [*opgen_command(), "generate", "crd", *type_args, "--out", str(out)],
            base,
            "opgen",
        )

    def run_baseline(index: int) -> float:
        assert baseline is not None
        out = base / f"baseline-out-{index}"
        return timed(
            [*baseline, "generate", "crd", *type_args, "--out", str(out)],
            base,
            "baseline",
        )

    def run_controller_gen(index: int) -> float:
        out = base / f"cg-out-{index}"
        return timed(
            [str(controller_gen), "crd", "paths=./...", f"output:crd:dir={out}"],
            module,
        )

    def run_floor(index: int) -> float:
        paths = [str(path) for path in types]
        return timed([sys.executable, "-c", FLOOR_SCRIPT, *paths], base, "floor")

    tools: dict[str, Callable[[int], float]] = {
        "opgen": run_opgen,
        "controller-gen": run_controller_gen,
        "floor": run_floor,
    }
    if baseline is not None:
        tools["baseline"] = run_baseline
    for tool in tools.values():
        tool(-1)
    CPU_SECONDS.clear()
    samples = alternate(runs, tools)
    # copies: the next pair's warm-up appends to these lists before clearing
    cpu = {f"{name} cpu": list(CPU_SECONDS.get(name, [])) for name in tools}
    cpu["controller-gen cpu"] = list(CPU_SECONDS.get(controller_gen.name, []))
    crds = compare_outputs(base / "opgen-out--1", base / "cg-out--1", differences)
    result: dict[str, Any] = {"crds": crds, **samples, **cpu}
    if baseline is not None:
        result["same bytes"] = same_files(
            base / "opgen-out--1", base / "baseline-out--1"
        )
    return result


def same_files(ours: Path, theirs: Path) -> bool:
    """Whether two directories hold the same files with the same bytes."""
    names = sorted(p.name for p in ours.iterdir())
    if names != sorted(p.name for p in theirs.iterdir()):
        return False
    return all((ours / n).read_bytes() == (theirs / n).read_bytes() for n in names)


def bench_project(work: Path, count: int, runs: int) -> list[float]:
    """`opgen generate` in a scaffolded project with `count` kinds."""
    project = work / "project"
    project.mkdir()
    opgen = opgen_command()
    timed(
        [
            *opgen,
            "init",
            "--domain",
            "io",
            "--project-name",
            "ray-operator",
            "--owner",
            "bench",
        ],
        project,
    )
    source = PYTHON_TYPES.read_text(encoding="utf-8")
    for suffix in suffixes(count):
        kind = f"RayCluster{suffix}"
        timed(
            [
                *opgen,
                "create",
                "api",
                "--group",
                "ray",
                "--version",
                "v1",
                "--kind",
                kind,
            ],
            project,
        )
        types = project / "ray_operator" / "api" / "v1" / f"raycluster{suffix}_types.py"
        types.write_text(suffixed(source, suffix), encoding="utf-8")
    timed([*opgen, "generate"], project)  # the first run writes; then up to date
    return [timed([*opgen, "generate"], project) for _ in range(runs)]


def bench_check(
    runs: int, baseline: Path | None = None
) -> dict[str, dict[str, list[float]]]:
    """`opgen generate --check` in the committed example project (writes nothing),
    alternated with the `baseline` tree's in its own example project."""
    tools: dict[str, Callable[[int], float]] = {
        "opgen": lambda _: timed(
            [*opgen_command(), "generate", "--check"], EXAMPLE_PROJECT, "opgen"
        )
    }
    if baseline is not None:
        command = [*baseline_command(baseline), "generate", "--check"]
        project = baseline / "examples" / "generated"
        tools["baseline"] = lambda _: timed(command, project, "baseline")
    for tool in tools.values():
        tool(-1)
    CPU_SECONDS.clear()
    wall = alternate(runs, tools)
    return {
        name: {"wall": wall[name], "cpu": list(CPU_SECONDS.get(name, []))}
        for name in tools
    }


def report_check(samples: dict[str, dict[str, list[float]]], runs: int) -> None:
    """The goal is wall time; the CPU time's verdict beside it, since on a loaded
    machine the wall time is mostly the other processes' turns."""

    def verdict(samples: list[float]) -> str:
        return "met" if statistics.median(samples) <= CHECK_GOAL_SECONDS else "not met"

    for name, figures in samples.items():
        who = "" if name == "opgen" else f" ({name} tree)"
        print(
            f"\n`opgen generate --check`{who} in examples/generated (the command an "
            f"author runs after every edit): {spread(figures['wall']).strip()} s wall, "
            f"{spread(figures['cpu']).strip()} s CPU, median (min-max) of {runs} runs; "
            f"goal <= {CHECK_GOAL_SECONDS} s: {verdict(figures['wall'])} "
            f"(by CPU time: {verdict(figures['cpu'])})"
        )


def report(results: list[dict[str, Any]], runs: int) -> None:
    print(
        f"\nCRD generation, the flat RayCluster API (examples/standalone/raycluster_types.py) "
        f"copied per kind, and the example operator's API with pod templates "
        f"(examples/raycluster_types.py); wall time of one fresh process (the goal's "
        f"figure) and its CPU time; median (min-max) of {runs} alternated runs"
    )
    print(
        f"{'kinds':>16} {'opgen (s)':>18} {'controller-gen (s)':>20} {'opgen/cg':>9}  "
        f"{'goal':24} {'opgen CPU (s)':>18} {'controller-gen CPU':>18} {'CPU ratio':>9}"
    )
    for result in results:
        theirs = statistics.median(result["controller-gen"])
        for tool in ("opgen", "baseline"):
            if tool not in result:
                continue
            ours = statistics.median(result[tool])
            cpu_ratio = statistics.median(result[f"{tool} cpu"]) / statistics.median(
                result["controller-gen cpu"]
            )
            verdict = "met" if theirs / ours >= GOAL_SPEED_UP else "not met"
            label = str(result["kinds"]) + ("" if tool == "opgen" else " (baseline)")
            print(
                f"{label:>16} {spread(result[tool]):>18} "
                f"{spread(result['controller-gen']):>20} {ours / theirs:>8.2f}x  "
                f"{f'<= {1 / GOAL_SPEED_UP:.2f}x: {verdict}':24} "
                f"{spread(result[f'{tool} cpu']):>18} "
                f"{spread(result['controller-gen cpu']):>18} "
                f"{cpu_ratio:>8.2f}x"
            )
    report_floor(results)
    for result in results:
        if "baseline" in result:
            print(
                f"  {result['kinds']}: this tree / baseline, medians: wall "
                f"{statistics.median(result['opgen']) / statistics.median(result['baseline']):.2f}x, "
                f"CPU {statistics.median(result['opgen cpu']) / statistics.median(result['baseline cpu']):.2f}x; "
                f"same bytes: {'yes' if result['same bytes'] else 'NO'}"
            )
    by_count = {r["kinds"]: r for r in results if isinstance(r["kinds"], int)}
    counts = sorted(by_count)
    if len(counts) >= 2:
        low, high = by_count[counts[0]], by_count[counts[-1]]
        extra = high["kinds"] - low["kinds"]
        for tool in ("opgen", "controller-gen"):
            per_kind = (
                statistics.median(high[tool]) - statistics.median(low[tool])
            ) / extra
            print(f"  {tool}: {per_kind * 1000:.1f} ms per extra kind")
    print("  outputs: the same CRDs apart from the documented differences:")
    documented = list(DIFFERENCES)
    if any(r["kinds"] == TEMPLATED_LABEL for r in results):
        documented += TEMPLATE_DIFFERENCES
    for path, key, why in documented:
        where = ".".join(p for p in path if p not in _SCHEMA) or path[-1]
        print(f"    - {where}: {key}. {why}")


def report_floor(results: list[dict[str, Any]]) -> None:
    """The floor (Python, pydantic and the types files imported) against
    controller-gen, in the same alternation, and whether the goal is in reach:
    by wall time (the goal's figure) and by CPU time (steadier on a loaded
    machine; controller-gen's Go runtime uses both cores at 100 kinds)."""
    print(
        f"\nthe floor of any Pydantic-reading generator (start Python, import "
        f"pydantic, import the types files), same runs; goal: opgen "
        f"<= {1 / GOAL_SPEED_UP:.2f}x controller-gen"
    )
    print(
        f"{'kinds':>16} {'floor (s)':>18} {'floor/cg':>9} {'floor CPU (s)':>18} "
        f"{'CPU/cg':>7}  {'opgen/floor':>11}  verdict"
    )
    for result in results:
        floor = statistics.median(result["floor"])
        theirs = statistics.median(result["controller-gen"])
        cpu = statistics.median(result["floor cpu"])
        their_cpu = statistics.median(result["controller-gen cpu"])
        ours = statistics.median(result["opgen"])
        print(
            f"{result['kinds']!s:>16} {spread(result['floor']):>18} "
            f"{floor / theirs:>8.2f}x {spread(result['floor cpu']):>18} "
            f"{cpu / their_cpu:>6.2f}x  {ours / floor:>10.2f}x  "
            f"wall: {floor_verdict(floor, theirs)}; "
            f"CPU: {floor_verdict(cpu, their_cpu)}"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.crd_vs_controller_gen")
    parser.add_argument(
        "--kinds", default="1,10,100", help="comma-separated kind counts"
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--project-kinds", type=int, default=10)
    parser.add_argument("--no-project", action="store_true")
    parser.add_argument(
        "--no-templates",
        action="store_true",
        help="leave out the API with pod templates (examples/raycluster_types.py)",
    )
    parser.add_argument(
        "--no-check",
        action="store_true",
        help="leave out `opgen generate --check` in examples/generated",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="another opgen tree (with its .venv) to time in the same run",
    )
    args = parser.parse_args([] if argv is None else argv)
    baseline = None if args.baseline is None else baseline_command(args.baseline)
    controller_gen = gobuild.controller_gen()
    with tempfile.TemporaryDirectory(prefix="opgen-bench-cg-") as temp:
        work = Path(temp)
        results = [
            bench_kinds(work, int(count), args.runs, controller_gen, baseline)
            for count in args.kinds.split(",")
        ]
        if not args.no_templates:
            results.append(bench_templated(work, args.runs, controller_gen, baseline))
        report(results, args.runs)
        if not args.no_project:
            samples = bench_project(work, args.project_kinds, args.runs)
            print(
                f"\n`opgen generate` in a project with {args.project_kinds} kinds "
                f"(CRDs, RBAC, typed clients; files up to date): "
                f"{spread(samples).strip()} s, median (min-max) of {args.runs} runs"
            )
        if not args.no_check:
            report_check(bench_check(args.runs, args.baseline), args.runs)


if __name__ == "__main__":
    main(sys.argv[1:])
