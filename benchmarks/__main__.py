"""Run every benchmark module found under `benchmarks/` (each defines `main()`).

`python -m benchmarks` runs them all, in name order, including sub-packages
such as `benchmarks/runtime/`. A word selects the modules it names exactly (a
part of the dotted name: `runtime` is `benchmarks.runtime.bench`, not
`benchmarks.runtime_install`); a word naming none selects the modules whose
name contains it (`crd`: every `crd_*` module). Words after `--` go to each
selected module's `main(argv)`, e.g. `python -m benchmarks runtime -- --tables
scale` runs one table of the runtime benchmark (`make bench BENCH="runtime --
--tables scale"`).
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


def select(names: list[str], words: list[str]) -> list[str]:
    """The `names` the `words` select (all of them without words), in name order."""
    if not words:
        return sorted(names)
    chosen: set[str] = set()
    for word in words:
        exact = {name for name in names if word in name.split(".")[1:]}
        chosen |= exact or {name for name in names if word in name}
    return sorted(chosen)


def main(argv: list[str]) -> int:
    words, options = argv, []
    if "--" in argv:
        split = argv.index("--")
        words, options = argv[:split], argv[split + 1 :]
    selected = select(discover(), words)
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
