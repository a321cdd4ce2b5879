"""What one run of the generator keeps while it runs, and forgets after it.

A run is one command (`opgen generate`, `opgen generate crd`, ...): it makes
one `RunContext` and hands it to every stage that caches. The loader keeps
the user modules it executed (so a file imported by the types and again by a
reconciler is executed once, and its classes are the same objects), the
modules' files and their parsed attribute docstrings; the schema stage keeps
the schemas it built (Pydantic does not cache them and several stages ask
for the same one). Nothing is kept at module level, so two runs in one
process, over projects whose files and classes have the same names, never
see each other's modules, docstrings or schemas.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["ClassDefinition", "RunContext", "Stamp"]

Stamp = tuple[int, int]
"""A file's (mtime in ns, size): what tells an edited file from the one already read."""

ClassDefinition = tuple[tuple[str, ...], dict[str, str]]
"""A class statement's annotated names, in order, and its attribute docstrings."""


@dataclass(eq=False)
class RunContext:
    """The caches of one run; make a new one for each run."""

    modules_by_file: dict[Path, tuple[Stamp, ModuleType]] = field(default_factory=dict)
    """Executed user modules by resolved file, with the stamp they were executed at."""
    modules_by_name: dict[str, tuple[ModuleType, Path]] = field(default_factory=dict)
    """Executed user modules by name, with their resolved file."""
    module_files: dict[str, Path] = field(default_factory=dict)
    """The file of every user module executed, by module name (the loader takes
    user modules out of `sys.modules` afterwards)."""
    class_definitions: dict[Path, tuple[Stamp, dict[str, list[ClassDefinition]]]] = (
        field(default_factory=dict)
    )
    """Each source file's class statements by qualified name, parsed once."""
    descriptions: dict[type[Any], Mapping[str, str]] = field(default_factory=dict)
    """The attribute docstrings of each model class, by field: what the schema
    stage writes as descriptions where Pydantic did not read them."""
    declaring_classes: dict[type[Any], Mapping[str, type[Any]]] = field(
        default_factory=dict
    )
    """For each model class, the class in its MRO that annotates each name."""
    schemas: dict[tuple[type[Any], Hashable], Any] = field(default_factory=dict)
    """The schema stage's built schemas, by (model class, options)."""
