"""Find the kinds a loaded module defines and describe each as a `KindVersion`.

`resource_info(cls)` already gives each class's facts as IR values (`KindNames`,
scope, `KindVersion`); discovery adds where the class is, as users see it.

A kind is a class defined in the module (not imported into it) that carries
`@op.kind`. Kind-level decorators are read through `opgen.engine.reading`
(`kind_markers`, `resource_info`), the functions the runtime reads kinds
with, so the CRD and the runtime can never disagree.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from opgen.engine.reading import (
    KindMarkers,
    ResourceInfo,
    is_custom_resource,
    kind_markers,
    resource_info,
)
from opgen.errors import Diagnostic, Location
from opgen.load.imports import display_path
from opgen.model.kinds import KindVersion, SourceRef, source_file

__all__ = ["FoundKind", "discover"]


@dataclass(frozen=True)
class FoundKind:
    """One class with `@op.kind`: its version, the names it asks for, and the class."""

    info: ResourceInfo
    """The kind as the class declares it, in the IR's values (`opgen.engine.reading`)."""
    source: SourceRef
    """Where the class is, as users are shown it."""
    markers: KindMarkers
    model: type[Any]
    """The `op.CustomResource` subclass; only the loader's result carries it on."""

    @property
    def version(self) -> KindVersion:
        return dataclasses.replace(self.info.kind_version, source=self.source)


def _source(cls: type[Any], module: ModuleType) -> SourceRef:
    file = display_path(source_file(cls) or str(module.__file__))
    return SourceRef(file=file, module=module.__name__, cls=cls.__qualname__)


def discover(module: ModuleType) -> tuple[list[FoundKind], list[Diagnostic]]:
    """The kinds defined in `module`, in definition order, and warnings."""
    found: list[FoundKind] = []
    diagnostics: list[Diagnostic] = []
    classes = [
        value
        for value in vars(module).values()
        if isinstance(value, type) and value.__module__ == module.__name__
    ]
    for cls in classes:
        markers = kind_markers(cls)
        source = _source(cls, module)
        if markers.decl is None:
            if is_custom_resource(cls) and _looks_like_a_kind(cls, classes):
                diagnostics.append(
                    Diagnostic(
                        "subclasses op.CustomResource but has no @op.kind, so no CRD is generated for it",
                        location=Location(file=source.file, cls=source.cls),
                        hint="decorate it with @op.kind(group=..., version=...)",
                    )
                )
            continue
        info = resource_info(cls)
        found.append(FoundKind(info=info, source=source, markers=markers, model=cls))
    return found, diagnostics


def _looks_like_a_kind(cls: type[Any], classes: list[type[Any]]) -> bool:
    """A CustomResource subclass nobody in the module derives from (not a base class)."""
    return not any(other is not cls and issubclass(other, cls) for other in classes)
