"""What op.k8s costs: importing it, and generating a CRD that embeds pod templates.

- import: `import opgen.api` alone, then with `op.k8s.PodTemplateSpec` (which
  loads core/v1 and meta/v1), then every op.k8s module; each in a fresh
  interpreter, best of 5.
- CRD: a kind embedding two `op.k8s.PodTemplateSpec`s (head and workers, as a
  RayCluster does) next to a kind of the same shape without Kubernetes types;
  "engine" is load + schema + check + YAML in one process (interpreter start
  and imports excluded), "command" the whole `opgen generate crd` run.
- `opgen --help`, which must not import op.k8s (goal 0.3 s).

Goals (issue 9): `opgen --help` under 0.3 s; the two-template CRD generated
in under 1.5 s. Figures are wall-clock times on whatever machine runs this.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.crd_generation import command_seconds, engine_seconds, help_seconds

REPEATS = 5
GOAL_HELP = 0.3
GOAL_CRD = 1.5

_IMPORTS = {
    "import opgen.api": "import opgen.api as op",
    "+ op.k8s.PodTemplateSpec": "import opgen.api as op; op.k8s.PodTemplateSpec",
    "+ every op.k8s module": (
        "import opgen.api as op, importlib\n"
        "for name in op.k8s._HOMES.values(): importlib.import_module('opgen.api.k8s.' + name)"
    ),
}

_WITH = '''
import opgen.api as op


class Group(op.Model):
    replicas: int = 1
    template: op.k8s.PodTemplateSpec


class ClusterSpec(op.Model):
    head: Group
    workers: Group


@op.kind(group="bench.example.com", version="v1")
class Cluster(op.CustomResource[ClusterSpec, None]):
    """Two pod templates."""
'''

_WITHOUT = '''
from typing import Annotated

import opgen.api as op


class Container(op.Model):
    name: str
    image: str
    args: list[str] = []
    env: dict[str, str] = {}
    resources: dict[str, op.Quantity] = {}


class Template(op.Model):
    labels: dict[str, str] = {}
    containers: Annotated[list[Container], op.ListType("map"), op.ListMapKey("name")]


class Group(op.Model):
    replicas: int = 1
    template: Template


class ClusterSpec(op.Model):
    head: Group
    workers: Group


@op.kind(group="bench.example.com", version="v1")
class Cluster(op.CustomResource[ClusterSpec, None]):
    """Two hand-written templates."""
'''


def _wall(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(args, capture_output=True, check=True)
    return time.perf_counter() - start


def import_seconds(code: str) -> float:
    return min(_wall([sys.executable, "-c", code]) for _ in range(REPEATS))


def main(argv: list[str] | None = None) -> None:
    """Entry point (takes no options)."""
    print(f"{'import':<28} {'s (best of 5)':>14}")
    for label, code in _IMPORTS.items():
        print(f"{label:<28} {import_seconds(code):>14.3f}")
    print()
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="opgen-bench-") as temp:
        directory = Path(temp)
        print(f"{'CRD':<32} {'engine s':>9} {'command s':>10} {'YAML bytes':>11}")
        for label, source in (
            ("two op.k8s.PodTemplateSpecs", _WITH),
            ("same shape, no Kubernetes types", _WITHOUT),
        ):
            types = directory / f"{len(results)}_types.py"
            types.write_text(source, encoding="utf-8")
            runs = [engine_seconds(types) for _ in range(REPEATS)]
            seconds, size = statistics.median(r[0] for r in runs), runs[0][2]
            whole = min(
                command_seconds(types, directory / f"out{len(results)}")
                for _ in range(REPEATS)
            )
            results[label] = whole
            print(f"{label:<32} {seconds:>9.3f} {whole:>10.3f} {size:>11}")
    crd = results["two op.k8s.PodTemplateSpecs"]
    verdict = "met" if crd < GOAL_CRD else "MISSED"
    print(f"goal: two-template CRD command < {GOAL_CRD} s: {verdict} ({crd:.3f} s)")
    help_time = help_seconds()
    verdict = "met" if help_time <= GOAL_HELP else "MISSED"
    print(
        f"opgen --help (best of 5): {help_time:.3f} s; goal <= {GOAL_HELP} s: {verdict}"
    )


if __name__ == "__main__":
    main()
