"""How long an envtest control plane takes to start and stop.

    .venv/bin/python benchmarks/envtest_startup.py [RUNS]

Starts `opgen.testing.Environment(controller_manager=True)` RUNS times (default
5) with the binaries `opgen envtest use` provides and prints, per step, the
median and the range in seconds, then the same for the whole start and stop.
"""

from __future__ import annotations

import statistics
import sys
import time

from opgen.testing import Environment


def _row(name: str, samples: list[float]) -> str:
    return (
        f"{name:<26} median {statistics.median(samples):6.2f} s   "
        f"min {min(samples):6.2f} s   max {max(samples):6.2f} s"
    )


def main(argv: list[str] | None = None) -> None:
    """Entry point: `[RUNS]` (default 5)."""
    runs = int(argv[0]) if argv else 5
    steps: dict[str, list[float]] = {}
    starts: list[float] = []
    stops: list[float] = []
    for _ in range(runs):
        began = time.monotonic()
        environment = Environment(controller_manager=True).start()
        starts.append(time.monotonic() - began)
        for step, seconds in environment.timings.items():
            steps.setdefault(step, []).append(seconds)
        began = time.monotonic()
        environment.stop()
        stops.append(time.monotonic() - began)
    print(f"envtest control plane, {runs} runs")
    for step, samples in steps.items():
        print(_row(f"  {step}", samples))
    print(_row("start (all steps)", starts))
    print(_row("stop (all processes)", stops))


if __name__ == "__main__":
    main(sys.argv[1:])
