"""Run every benchmark module found under `benchmarks/` (each defines `main()`).

`python -m benchmarks` runs them all, in name order, including sub-packages
such as `benchmarks/runtime/`; `python -m benchmarks crd` runs only modules
whose name contains "crd"; words after `--` go to each selected module's
`main(argv)`, e.g. `python -m benchmarks runtime -- --tables scale` runs one
table of the runtime benchmark (`make bench BENCH="runtime -- --tables scale"`).
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Callable
from pathlib import Path


def discover() -> list[str]:
    """Dotted names of the benchmark modules that define `main()`."""
    root = Path(__file__).parent
    names: list[str] = []
    for info in pkgutil.walk_packages([str(root)], prefix="benchmarks."):
        if info.name.rsplit(".", 1)[-1].startswith("_"):
            continue
        module = importlib.import_module(info.name)
        if callable(getattr(module, "main", None)):
            names.append(info.name)
    return sorted(names)


def main(argv: list[str]) -> int:
    words, options = argv, []
    if "--" in argv:
        split = argv.index("--")
        words, options = argv[:split], argv[split + 1 :]
    selected = [
        name for name in discover() if not words or any(word in name for word in words)
    ]
    if not selected:
        print(f"no benchmark matches {' '.join(words)}", file=sys.stderr)
        return 1
    for name in selected:
        print(f"== {name}", flush=True)
        run: Callable[[list[str]], None] = importlib.import_module(name).main
        run(options)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
