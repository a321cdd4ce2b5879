"""Find the kinds a loaded module defines and describe each as a `KindVersion`.

A kind is a class defined in the module (not imported into it) that carries
`@op.kind`. Kind-level decorators are read through `opgen.engine.reading`
(`kind_markers`, `resource_info`), the functions the runtime reads kinds
with, so the CRD and the runtime can never disagree.
"""

from __future__ import annotations

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
from opgen.model.kinds import (
    KindVersion,
    PrinterColumn,
    ScaleSubresource,
    SourceRef,
    source_file,
)

__all__ = ["FoundKind", "discover"]


@dataclass(frozen=True)
class FoundKind:
    """One class with `@op.kind`: its version, the names it asks for, and the class."""

    info: ResourceInfo
    version: KindVersion
    markers: KindMarkers
    model: type[Any]
    """The `op.CustomResource` subclass; only the loader's result carries it on."""


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
        found.append(
            FoundKind(
                info=info,
                version=_version(info, markers, source),
                markers=markers,
                model=cls,
            )
        )
    return found, diagnostics


def _looks_like_a_kind(cls: type[Any], classes: list[type[Any]]) -> bool:
    """A CustomResource subclass nobody in the module derives from (not a base class)."""
    return not any(other is not cls and issubclass(other, cls) for other in classes)


def _version(
    info: ResourceInfo,
    markers: KindMarkers,
    source: SourceRef,
) -> KindVersion:
    scale = markers.scale
    return KindVersion(
        version=info.version,
        source=source,
        served=not markers.unserved,
        storage=markers.storage,
        deprecated=markers.deprecated is not None,
        deprecation_warning=markers.deprecated.warning if markers.deprecated else None,
        status_subresource=markers.status,
        scale=(
            ScaleSubresource(
                spec_replicas_path=scale.spec_replicas_path,
                status_replicas_path=scale.status_replicas_path,
                label_selector_path=scale.label_selector_path,
            )
            if scale
            else None
        ),
        printer_columns=tuple(
            PrinterColumn(
                name=column.name,
                type=column.type,
                json_path=column.json_path,
                description=column.description,
                format=column.format,
                priority=column.column_priority,
            )
            for column in markers.columns
        ),
        selectable_fields=tuple(item.json_path for item in markers.selectable_fields),
    )
