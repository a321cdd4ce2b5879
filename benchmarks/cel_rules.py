"""Benchmark: what CEL rules add to validating the example's sample RayCluster.

    python -m benchmarks.cel_rules [--rounds 2000] [--repeats 7]

Validates the example's sample (examples/generated/config/samples) with
`RayCluster.model_validate` with its CEL rules evaluated, and again with
them skipped (`rules_skipped()`, what the runtime does for objects the server
stored), `--rounds` times per repeat, in process CPU time. The rules' cost per
object is the difference within each repeat; the issue's budget is 1 ms. Also times
`op.validate_update(old, new)` (every rule, transition rules too). Prints the
median of the repeats and their spread (min-max).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "generated"
SAMPLE = EXAMPLE / "config" / "samples" / "ray_v1_raycluster.yaml"


def _per_call_us(run: Callable[[], Any], rounds: int, repeats: int) -> list[float]:
    figures = []
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(rounds):
            run()
        figures.append((time.process_time() - start) / rounds * 1e6)
    return figures


def _shown(figures: list[float]) -> str:
    return (
        f"{statistics.median(figures):8.1f} µs  "
        f"({min(figures):.1f}-{max(figures):.1f})"
    )


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cel_rules")
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=7)
    options = parser.parse_args(argv)
    sys.path.insert(0, str(EXAMPLE))
    from ray_operator.api.v1.raycluster_types import RayCluster

    import opgen.api as op
    from opgen.engine.cel.rules import rules_skipped

    sample = yaml.safe_load(SAMPLE.read_text(encoding="utf-8"))
    old = RayCluster.model_validate(sample)

    def checked() -> None:
        RayCluster.model_validate(sample)

    def skipped() -> None:
        with rules_skipped():
            RayCluster.model_validate(sample)

    def update() -> None:
        op.validate_update(old, sample)

    checked()
    # checked and skipped back to back in each repeat, so that each difference
    # is taken under the same load
    with_rules: list[float] = []
    without: list[float] = []
    for _ in range(options.repeats):
        with_rules += _per_call_us(checked, options.rounds, 1)
        without += _per_call_us(skipped, options.rounds, 1)
    updates = _per_call_us(update, options.rounds, options.repeats)
    added = [a - b for a, b in zip(with_rules, without, strict=True)]
    print(
        f"RayCluster sample, {options.rounds} validations x {options.repeats} repeats"
    )
    print(f"  model_validate, rules checked   {_shown(with_rules)}")
    print(f"  model_validate, rules skipped   {_shown(without)}")
    print(f"  the rules' cost per object      {_shown(added)}  (budget 1000 µs)")
    print(f"  validate_update (transitions)   {_shown(updates)}")


if __name__ == "__main__":
    main(sys.argv[1:])
