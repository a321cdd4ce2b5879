"""Benchmark: CPU per reconcile of the runtime's own machinery, paired with a baseline.

    python -m benchmarks.reconcile_overhead [--reconciles 30000] [--rounds 8]
        [--baseline DIR]

The controller's workers, its work queue, the metrics and the REST client, over a
transport that answers at once (`_reconcile_overhead_probe.py`): what a reconcile
costs the runtime beyond the reconciler and the network. Each round runs this
checkout and each `--baseline` checkout (a `git worktree add --detach DIR <commit>`)
in a fresh process, the order alternating; prints medians (min-max) in µs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROBE = Path(__file__).resolve().parent / "_reconcile_overhead_probe.py"
"""Run from this checkout for every checkout (a baseline may predate it)."""


def _run(checkout: Path, reconciles: int) -> float:
    answer = subprocess.run(
        [sys.executable, str(PROBE), str(reconciles)],
        cwd=checkout,
        env={**os.environ, "PYTHONPATH": str(checkout)},
        capture_output=True,
        text=True,
        check=True,
    )
    return float(answer.stdout.split()[-1])


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reconciles", type=int, default=30000)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--baseline", type=Path, action="append", default=[])
    args = parser.parse_args(argv)
    checkouts = [ROOT, *(path.resolve() for path in args.baseline)]
    figures: dict[Path, list[float]] = {checkout: [] for checkout in checkouts}
    for round_ in range(args.rounds):
        order = checkouts if round_ % 2 == 0 else checkouts[::-1]
        for checkout in order:
            figures[checkout].append(_run(checkout, args.reconciles))
    print(f"CPU per reconcile (µs), {args.rounds} rounds of {args.reconciles}:")
    for checkout, values in figures.items():
        name = "this checkout" if checkout == ROOT else str(checkout)
        print(
            f"  {name:40s} {statistics.median(values):6.1f} "
            f"({min(values):.1f}-{max(values):.1f})"
        )


if __name__ == "__main__":
    main()
