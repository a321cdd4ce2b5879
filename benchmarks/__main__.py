"""Run every benchmark module found under `benchmarks/` (each defines `main()`).

`python -m benchmarks` runs them all, in name order, including sub-packages
such as `benchmarks/runtime/`; `python -m benchmarks crd` runs only modules
whose name contains "crd".
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
    selected = [
        name for name in discover() if not argv or any(word in name for word in argv)
    ]
    if not selected:
        print(f"no benchmark matches {' '.join(argv)}", file=sys.stderr)
        return 1
    for name in selected:
        print(f"== {name}")
        run: Callable[[], None] = importlib.import_module(name).main
        run()
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
