"""The load stage: import users' types files and build the IR of their kinds.

`load_kinds(paths)` imports each file once (`imports`), finds the classes
decorated with `@op.kind` (`discover`) and merges the versions of each
(group, kind) into one `opgen.model.Kind` (`merge`). Kind-level decorators
are read through `opgen.engine.reading`, as the runtime reads them.

This is the only stage that imports user code, or any module named by input:
`import_module_from_path` runs one file; `importable(root, package)` puts a
generated project's package on the path and `load_classes(paths)` returns the
classes its files define (the reconcilers `op.rbac` decorates), both in
`project`; `builtin_kinds(module)` reads the kinds an `op.k8s` module defines,
for controllers of built-in types (`builtin`). While a file runs, Pydantic reads
no attribute docstrings; `docstrings` reads them once per file for the schema
stage. What a run caches it keeps in the `RunContext` the caller hands in
(`context`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opgen.errors import Diagnostic, LoadError
from opgen.load.builtin import builtin_kinds
from opgen.load.context import RunContext
from opgen.load.discover import FoundKind, discover
from opgen.load.imports import display_path, import_module_from_path
from opgen.load.merge import merge_kinds
from opgen.load.project import importable, load_classes
from opgen.model.kinds import Kind, VersionKey

__all__ = [
    "LoadedKinds",
    "RunContext",
    "builtin_kinds",
    "display_path",
    "import_module_from_path",
    "importable",
    "load_classes",
    "load_kinds",
]


@dataclass(frozen=True)
class LoadedKinds:
    """The kinds found in some types files, the class of each version, and warnings.

    `kinds` is the IR every later stage reads; `models` is for the schema stage
    alone, which turns each version's class into its schema."""

    kinds: tuple[Kind, ...]
    diagnostics: tuple[Diagnostic, ...] = field(default=())
    models: Mapping[VersionKey, type[Any]] = field(default_factory=dict)


def load_kinds(paths: Sequence[Path], run: RunContext | None = None) -> LoadedKinds:
    """Import the types files and return their kinds, sorted by (group, kind)."""
    run = RunContext() if run is None else run
    found: list[FoundKind] = []
    diagnostics: list[Diagnostic] = []
    seen_classes: set[type] = set()
    for path in paths:
        module = import_module_from_path(path, run)
        in_module, warnings = discover(module)
        diagnostics.extend(warnings)
        for item in in_module:
            if item.model not in seen_classes:
                seen_classes.add(item.model)
                found.append(item)
    if not found:
        shown = ", ".join(display_path(p) for p in paths) or "(no files)"
        raise LoadError(
            f"{shown}: no kinds found",
            hint="decorate an op.CustomResource subclass with @op.kind(group=..., version=...)",
        )
    kinds, merge_warnings = merge_kinds(found)
    diagnostics.extend(merge_warnings)
    classes = {(i.info.group, i.info.kind, i.info.version): i.model for i in found}
    models = {
        kind.key(version): classes[kind.key(version)]
        for kind in kinds
        for version in kind.versions
    }
    return LoadedKinds(
        kinds=tuple(kinds), diagnostics=tuple(diagnostics), models=models
    )
