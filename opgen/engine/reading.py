"""How opgen reads markers off a model: the one protocol every stage uses.

Markers reach the stages after `opgen.api` through five channels, and only
through these:

- **A field's markers** (and those nested in its type, `list[Annotated[str,
  op.MinLength(1)]]`) are handed over while Pydantic generates the JSON
  schema: each marker's `__get_pydantic_json_schema__` gives itself to the
  running generator if it is a `MarkerCollector`
  (`attach_marker(schema, marker)`), with the node it stands on. The schema
  stage's generator is one; it is the only reader that needs to know where in
  the schema a marker stands. `field_markers(info)` lists the markers of one
  field, for readers that only need the field (the model's own enforcement).
- **A type's markers**, used as class decorators on a model:
  `type_markers(cls)`, in source order.
- **A kind's kind-level metadata**: `kind_markers(cls)` collects every
  kind-level decorator on a `CustomResource` class into one `KindMarkers`
  (refusing a non-repeatable one written twice); `resource_info(cls)` answers
  what clients and the runtime need to address the kind (`ResourceInfo`:
  group, version, plural, scope, subresources). The loader and the runtime
  both read kinds through these two functions, so the CRD and the runtime
  never disagree on a name. `is_custom_resource(cls)` says whether a class
  derives from `op.CustomResource` at all.
- **A reconciler's RBAC rules**: `rbac_rules(cls)`, the `@op.rbac` rules in
  source order.
- **A webhook handler's declaration**: `webhook_declarations(cls)`, the
  `@op.webhook` or `@op.conversion` written on it; the manifests and the
  runtime's webhook server both read them.

Everything decorators record lives on the decorated class itself
(`opgen.engine.recording`), so none of it is inherited by subclasses.
"""

from __future__ import annotations

import types
import typing
from typing import Annotated, Any, TypeGuard

from pydantic import BaseModel

from opgen.engine.kinds import (
    CrdMetadata,
    DeprecatedVersion,
    KindDecl,
    KindMarker,
    KindMarkers,
    PrintColumn,
    ResourceInfo,
    SelectableField,
    SkipVersion,
    StorageVersion,
    SubresourceScale,
    SubresourceStatus,
    UnservedVersion,
)
from opgen.engine.markers import Marker, MarkerCollector
from opgen.engine.naming import pluralize
from opgen.engine.recording import (
    CUSTOM_RESOURCE_FLAG,
    KIND_MARKERS_ATTR,
    RBAC_ATTR,
    TYPE_MARKERS_ATTR,
    WEBHOOK_ATTR,
    recorded_on_class,
)
from opgen.errors import Location, MarkerError
from opgen.model.kinds import (
    KindNames,
    KindVersion,
    PrinterColumn,
    ScaleSubresource,
    SourceRef,
    source_file,
)
from opgen.model.rbac import RbacRule
from opgen.model.webhooks import Declaration

__all__ = [
    "KindMarkers",
    "MarkerCollector",
    "ResourceInfo",
    "field_markers",
    "is_custom_resource",
    "kind_markers",
    "rbac_rules",
    "resource_info",
    "type_markers",
    "webhook_declarations",
]

_MAX_ALIAS_DEPTH = 10


def field_markers(info: Any) -> tuple[Marker, ...]:
    """The markers of one Pydantic field (`FieldInfo`): its `Annotated` metadata,
    then that of what its annotation is made of: the named types
    (`TypeAliasType`) and the `Annotated[...]` inside `X | None`
    (`Annotated[list[T], op.ListMapKey("name")] | None = None`)."""
    metadata = list(info.metadata)
    annotation = info.annotation
    depth = 0
    while depth < _MAX_ALIAS_DEPTH:
        depth += 1
        if hasattr(annotation, "__value__"):
            annotation = annotation.__value__
        elif typing.get_origin(annotation) in (typing.Union, types.UnionType):
            others = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(others) != 1:
                break
            annotation = others[0]
        else:
            break
        if typing.get_origin(annotation) is Annotated:
            annotation, *extra = typing.get_args(annotation)
            metadata.extend(extra)
    return tuple(item for item in metadata if isinstance(item, Marker))


def type_markers(cls: type) -> tuple[Marker, ...]:
    """Markers used as decorators on `cls` itself (not inherited), in source order."""
    markers: tuple[Marker, ...] = recorded_on_class(cls, TYPE_MARKERS_ATTR)
    return markers


def is_custom_resource(cls: object) -> TypeGuard[type[BaseModel]]:
    """Whether `cls` is an `op.CustomResource` subclass (with `@op.kind` or not)."""
    return isinstance(cls, type) and bool(getattr(cls, CUSTOM_RESOURCE_FLAG, False))


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
    names = KindNames(
        kind=kind_name,
        plural=decl.plural or pluralize(kind_name),
        singular=decl.singular or kind_name.lower(),
        list_kind=f"{kind_name}List",
        short_names=decl.short_names,
        categories=decl.categories,
    )
    return ResourceInfo(
        group=decl.group,
        names=names,
        scope=decl.scope,
        kind_version=_kind_version(cls, decl.version, markers),
    )


def _kind_version(cls: type, version: str, markers: KindMarkers) -> KindVersion:
    """The IR of one version, from its kind-level markers: the one place marker
    values become IR values."""
    scale = markers.scale
    return KindVersion(
        version=version,
        source=SourceRef(
            file=source_file(cls) or "", module=cls.__module__, cls=cls.__qualname__
        ),
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


def rbac_rules(cls: type) -> tuple[RbacRule, ...]:
    """The `@op.rbac` rules written on `cls`, in source order."""
    rules: tuple[RbacRule, ...] = recorded_on_class(cls, RBAC_ATTR)
    return rules


def webhook_declarations(cls: type) -> tuple[Declaration, ...]:
    """The `@op.webhook` / `@op.conversion` declarations written on `cls`."""
    declarations: tuple[Declaration, ...] = recorded_on_class(cls, WEBHOOK_ATTR)
    return declarations
