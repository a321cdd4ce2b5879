"""Importing the modules of a generated project: its package, and the classes its files define.

While `importable(root, package)` lasts, the project root is on `sys.path` and
the project's package is fresh (any module of that name from an earlier
import is dropped first and again afterwards), so that one process can
generate several projects. `load_classes(paths)` imports each file with
`import_module_from_path`, so an error in it is reported with its file and
line.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from opgen.load.context import RunContext
from opgen.load.imports import import_module_from_path

__all__ = ["importable", "load_classes"]


@contextlib.contextmanager
def importable(root: Path, package: str) -> Iterator[None]:
    """Make `package` importable from `root` for the duration."""
    _forget(package)
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(str(root))
        _forget(package)


def _forget(package: str) -> None:
    for name in [n for n in sys.modules if n == package or n.startswith(f"{package}.")]:
        del sys.modules[name]


def load_classes(paths: Sequence[Path], run: RunContext | None = None) -> list[type]:
    """Classes defined in the modules at `paths`, in module then definition order."""
    run = RunContext() if run is None else run
    classes: list[type] = []
    for path in paths:
        module = import_module_from_path(path, run)
        classes.extend(
            obj
            for obj in vars(module).values()
            if inspect.isclass(obj) and obj.__module__ == module.__name__
        )
    return classes
