"""How long CRD generation takes for 1, 10 and 100 kinds, and how fast `opgen --help` starts.

Goals: 100 kinds in under 2 s with linear growth; `opgen --help` in at most
0.3 s. Each measurement runs in a fresh interpreter so nothing is cached; the
"engine" column is load + schema + check + YAML inside that process (imports
excluded), the "command" column is the whole `opgen generate crd` run.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

COUNTS = (1, 10, 100)
REPEATS = 3
GOAL_100_KINDS = 2.0
GOAL_HELP = 0.3

_PREAMBLE = '''\
"""Synthetic kinds for the CRD benchmark."""

from __future__ import annotations

import enum
from typing import Annotated, Literal

import opgen.api as op


class Mode(str, enum.Enum):
    FAST = "Fast"
    SAFE = "Safe"


class Resources(op.Model):
    """Compute resources."""

    requests: dict[str, op.Quantity] = {}
    limits: dict[str, op.Quantity] = {}


class Port(op.Model):
    name: Annotated[str, op.MinLength(1), op.MaxLength(15)]
    port: Annotated[int, op.Minimum(1), op.Maximum(65535)]
    protocol: Literal["TCP", "UDP"] = "TCP"
'''

_KIND = '''

class Spec{n}(op.Model):
    """Desired state of kind {n}."""

    image: Annotated[str, op.Pattern(r"^[a-z0-9./:-]+$")]
    """Container image."""
    replicas: Annotated[int, op.Minimum(0), op.Format("int32")] = 1
    mode: Mode = Mode.SAFE
    ports: Annotated[list[Port], op.ListType("map"), op.ListMapKey("name")] = []
    resources: Resources | None = None
    labels: dict[str, str] = {{}}
    timeout: op.Duration | None = None
    args: Annotated[list[str], op.Items(op.MinLength(1))] = []
    paused: bool = False


class Status{n}(op.Model):
    ready_replicas: int = 0
    conditions: op.Conditions = []


@op.kind(group="bench.example.com", version="v1")
@op.subresource_status()
@op.print_column(name="Ready", type="integer", json_path=".status.readyReplicas")
class Kind{n}(op.CustomResource[Spec{n}, Status{n}]):
    """Kind number {n}."""
'''

_ENGINE = textwrap.dedent("""\
    import sys, time
    from pathlib import Path, PurePosixPath
    from opgen.load import load_kinds
    from opgen.pipeline import crds
    start = time.perf_counter()
    loaded = load_kinds([Path(sys.argv[1])])
    files, _ = crds(loaded, PurePosixPath("."))
    elapsed = time.perf_counter() - start
    print(f"{elapsed:.6f} {len(files)} {sum(len(f.content) for f in files)}")
    """)


def write_types(directory: Path, count: int) -> Path:
    path = directory / f"bench_{count}_types.py"
    path.write_text(
        _PREAMBLE + "".join(_KIND.format(n=n) for n in range(count)), encoding="utf-8"
    )
    return path


def engine_seconds(types: Path) -> tuple[float, int, int]:
    done = subprocess.run(
        [sys.executable, "-c", _ENGINE, str(types)],
        capture_output=True,
        text=True,
        check=True,
    )
    seconds, files, size = done.stdout.split()
    return float(seconds), int(files), int(size)


def command_seconds(types: Path, out: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "opgen",
            "generate",
            "crd",
            "--types",
            str(types),
            "--out",
            str(out),
        ],
        capture_output=True,
        check=True,
    )
    return time.perf_counter() - start


def help_seconds() -> float:
    runs = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "opgen", "--help"], capture_output=True, check=True
        )
        runs.append(time.perf_counter() - start)
    return min(runs)


def main(argv: list[str] | None = None) -> None:
    """Entry point (takes no options)."""
    with tempfile.TemporaryDirectory(prefix="opgen-bench-") as temp:
        directory = Path(temp)
        results: dict[int, float] = {}
        print(f"{'kinds':>6} {'engine s':>10} {'command s':>10} {'CRD bytes':>10}")
        for count in COUNTS:
            types = write_types(directory, count)
            engine = [engine_seconds(types) for _ in range(REPEATS)]
            seconds = statistics.median(e[0] for e in engine)
            size = engine[0][2]
            command = min(
                command_seconds(types, directory / f"out{count}")
                for _ in range(REPEATS)
            )
            results[count] = seconds
            print(f"{count:>6} {seconds:>10.3f} {command:>10.3f} {size:>10}")
        ratio_10 = results[10] / results[1]
        ratio_100 = results[100] / results[10]
        print(
            f"ratio 10/1 kinds: {ratio_10:.1f}x, 100/10 kinds: {ratio_100:.1f}x (linear: ~10x)"
        )
        verdict = "met" if results[100] < GOAL_100_KINDS else "MISSED"
        print(
            f"goal 100 kinds < {GOAL_100_KINDS:.0f} s: {verdict} ({results[100]:.3f} s)"
        )
    seconds = help_seconds()
    verdict = "met" if seconds <= GOAL_HELP else "MISSED"
    print(
        f"opgen --help wall time (best of 5): {seconds:.3f} s; goal <= {GOAL_HELP} s: {verdict}"
    )


if __name__ == "__main__":
    main()
