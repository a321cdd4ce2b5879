"""Reading the kind-level decorators back: `kind_markers(cls)` and `resource_info(cls)`.

`kind_markers` collects the decorators written on one class (not inherited), in
source order, refusing a non-repeatable one written twice; `resource_info`
answers what clients and the runtime need to address the kind. The loader reads
kinds through the same two functions, so the CRD and the runtime agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from opgen.api._kind import (
    KIND_MARKERS_ATTR,
    CrdMetadata,
    DeprecatedVersion,
    KindDecl,
    KindMarker,
    PrintColumn,
    SelectableField,
    SkipVersion,
    StorageVersion,
    SubresourceScale,
    SubresourceStatus,
    UnservedVersion,
)
from opgen.api._marker import recorded_on_class
from opgen.api.naming import pluralize
from opgen.errors import Location, MarkerError
from opgen.model.kinds import source_file

__all__ = ["KindMarkers", "ResourceInfo", "kind_markers", "resource_info"]


@dataclass(frozen=True)
class KindMarkers:
    """Every kind-level decorator on one class, in source order."""

    decl: KindDecl | None = None
    status: bool = False
    scale: SubresourceScale | None = None
    columns: tuple[PrintColumn, ...] = ()
    storage: bool = False
    unserved: bool = False
    deprecated: DeprecatedVersion | None = None
    skip: bool = False
    selectable_fields: tuple[SelectableField, ...] = ()
    metadata: tuple[CrdMetadata, ...] = field(default=())

    @property
    def any(self) -> bool:
        return self != KindMarkers()


def kind_markers(cls: type) -> KindMarkers:
    """Collect the kind-level decorators written on `cls` (not inherited)."""
    in_source_order: tuple[KindMarker, ...] = recorded_on_class(cls, KIND_MARKERS_ATTR)
    singles: dict[type[KindMarker], KindMarker] = {}
    for marker in in_source_order:
        if not marker.repeatable:
            if type(marker) in singles:
                raise MarkerError(
                    f"{marker.display()} appears twice",
                    location=Location(file=source_file(cls), cls=cls.__qualname__),
                    hint="keep one; only @op.print_column, @op.selectable_field and "
                    "@op.crd_metadata may be repeated",
                )
            singles[type(marker)] = marker
    decl = singles.get(KindDecl)
    scale = singles.get(SubresourceScale)
    deprecated = singles.get(DeprecatedVersion)
    return KindMarkers(
        decl=decl if isinstance(decl, KindDecl) else None,
        status=SubresourceStatus in singles,
        scale=scale if isinstance(scale, SubresourceScale) else None,
        columns=tuple(m for m in in_source_order if isinstance(m, PrintColumn)),
        storage=StorageVersion in singles,
        unserved=UnservedVersion in singles,
        deprecated=deprecated if isinstance(deprecated, DeprecatedVersion) else None,
        skip=SkipVersion in singles,
        selectable_fields=tuple(
            m for m in in_source_order if isinstance(m, SelectableField)
        ),
        metadata=tuple(m for m in in_source_order if isinstance(m, CrdMetadata)),
    )


@dataclass(frozen=True)
class ResourceInfo:
    """What clients and the runtime need to address a kind."""

    group: str
    version: str
    kind: str
    plural: str
    singular: str
    namespaced: bool
    status_subresource: bool
    scale: tuple[str, str, str | None] | None
    short_names: tuple[str, ...]
    categories: tuple[str, ...]

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


def resource_info(cls: type) -> ResourceInfo:
    """The kind information of a CustomResource class decorated with `@op.kind`."""
    markers = kind_markers(cls)
    decl = markers.decl
    if decl is None:
        raise MarkerError(
            f"{cls.__qualname__} is not a kind",
            location=Location(file=source_file(cls), cls=cls.__qualname__),
            hint="decorate it with @op.kind(group=..., version=...)",
        )
    kind_name = cls.__name__
    scale = markers.scale
    return ResourceInfo(
        group=decl.group,
        version=decl.version,
        kind=kind_name,
        plural=decl.plural or pluralize(kind_name),
        singular=decl.singular or kind_name.lower(),
        namespaced=decl.scope == "Namespaced",
        status_subresource=markers.status,
        scale=(
            (
                scale.spec_replicas_path,
                scale.status_replicas_path,
                scale.label_selector_path,
            )
            if scale
            else None
        ),
        short_names=decl.short_names,
        categories=decl.categories,
    )
