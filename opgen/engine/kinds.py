"""Kind-level markers: the values `@op.kind` and its sibling decorators record.

`KindDecl` makes a class a kind; the others add subresources, printer
columns, version flags, selectable fields and CRD metadata. Each is recorded
on the decorated class itself (never inherited); `opgen.engine.reading`
collects them into one `KindMarkers` and answers `ResourceInfo`, what clients
and the runtime need to address the kind. The decorator functions users call
(`op.kind(...)`, `op.print_column(...)`, ...) live in `opgen.api`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal, TypeVar

from opgen.engine.markers import Marker, MarkerContext, Placement, SchemaNode
from opgen.engine.recording import (
    CUSTOM_RESOURCE_FLAG,
    KIND_MARKERS_ATTR,
    record_on_class,
)
from opgen.errors import Location, MarkerError
from opgen.model.kinds import KindNames, KindVersion, Scope

__all__ = [
    "CrdMetadata",
    "DeprecatedVersion",
    "KindDecl",
    "KindMarker",
    "KindMarkers",
    "PrintColumn",
    "ResourceInfo",
    "SelectableField",
    "SkipVersion",
    "StorageVersion",
    "SubresourceScale",
    "SubresourceStatus",
    "UnservedVersion",
]

C = TypeVar("C", bound=type)


@dataclass(frozen=True)
class KindMarker(Marker):
    """Base of kind-level decorators: they only stand on CustomResource classes."""

    placements: ClassVar[Placement] = Placement.KIND

    def display(self) -> str:
        return "@" + super().display()

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        raise ctx.error(
            self,
            "is a kind-level decorator; it cannot stand in a type annotation",
            hint="decorate the CustomResource class with it",
        )

    def __call__(self, cls: C) -> C:
        if not (isinstance(cls, type) and getattr(cls, CUSTOM_RESOURCE_FLAG, False)):
            raise MarkerError(
                f"{self.display()} decorates op.CustomResource subclasses, not {cls!r}",
                location=Location(cls=getattr(cls, "__qualname__", None)),
            )
        record_on_class(cls, KIND_MARKERS_ATTR, self)
        return cls


@dataclass(frozen=True)
class KindDecl(KindMarker):
    """`@op.kind(...)`: the class is a Kubernetes kind served under group/version."""

    group: str
    version: str
    scope: Literal["Namespaced", "Cluster"] = "Namespaced"
    plural: str | None = None
    singular: str | None = None
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()

    @classmethod
    def marker_name(cls) -> str:
        return "kind"

    def __post_init__(self) -> None:
        for name in ("group", "version"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise MarkerError(f"@op.kind: {name}= must be a non-empty string")
        if self.scope not in ("Namespaced", "Cluster"):
            raise MarkerError(
                f"@op.kind: scope={self.scope!r} must be 'Namespaced' or 'Cluster'"
            )


@dataclass(frozen=True)
class SubresourceStatus(KindMarker):
    """`@op.subresource_status()`: serve `/status`; `.status` is written only there."""

    @classmethod
    def marker_name(cls) -> str:
        return "subresource_status"


@dataclass(frozen=True)
class SubresourceScale(KindMarker):
    """`@op.subresource_scale(...)`: serve `/scale` (kubectl scale, HPA)."""

    spec_replicas_path: str
    status_replicas_path: str
    label_selector_path: str | None = None

    @classmethod
    def marker_name(cls) -> str:
        return "subresource_scale"


@dataclass(frozen=True)
class PrintColumn(KindMarker):
    """`@op.print_column(...)`: an extra `kubectl get` column; repeatable."""

    name: str
    type: str
    json_path: str
    description: str | None = None
    format: str | None = None
    column_priority: int = 0
    """`priority` of the column: 0 shows it in `kubectl get`, more only with `-o wide`."""
    repeatable: ClassVar[bool] = True

    @classmethod
    def marker_name(cls) -> str:
        return "print_column"


@dataclass(frozen=True)
class StorageVersion(KindMarker):
    """`@op.storage_version()`: this version is the one stored in etcd."""

    @classmethod
    def marker_name(cls) -> str:
        return "storage_version"


@dataclass(frozen=True)
class UnservedVersion(KindMarker):
    """`@op.unserved_version()`: the API server does not serve this version."""

    @classmethod
    def marker_name(cls) -> str:
        return "unserved_version"


@dataclass(frozen=True)
class DeprecatedVersion(KindMarker):
    """`@op.deprecated_version(warning=)`: clients get a deprecation warning."""

    warning: str | None = None

    @classmethod
    def marker_name(cls) -> str:
        return "deprecated_version"


@dataclass(frozen=True)
class SkipVersion(KindMarker):
    """`@op.skip_version()`: leave this version out of the CRD (internal versions)."""

    @classmethod
    def marker_name(cls) -> str:
        return "skip_version"


@dataclass(frozen=True)
class SelectableField(KindMarker):
    """`@op.selectable_field(json_path)`: allow `--field-selector` on this field."""

    json_path: str
    repeatable: ClassVar[bool] = True

    @classmethod
    def marker_name(cls) -> str:
        return "selectable_field"


@dataclass(frozen=True)
class CrdMetadata(KindMarker):
    """`@op.crd_metadata(annotations=, labels=)`: metadata of the CRD object itself."""

    annotations: tuple[tuple[str, str], ...] = ()
    labels: tuple[tuple[str, str], ...] = ()
    repeatable: ClassVar[bool] = True

    @classmethod
    def marker_name(cls) -> str:
        return "crd_metadata"


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


@dataclass(frozen=True)
class ResourceInfo:
    """One version of a kind as its class declares it, in the IR's own values.

    `names`, `scope` and `kind_version` are the `opgen.model.kinds` values the
    loader puts into the `Kind` it builds; clients and the runtime address the
    kind through the properties below, read from the same values, so the CRD,
    the typed clients and the runtime share one description of a kind."""

    group: str
    names: KindNames
    scope: Scope
    kind_version: KindVersion
    """This version's flags, subresources, columns and selectable fields."""

    @property
    def version(self) -> str:
        return self.kind_version.version

    @property
    def kind(self) -> str:
        return self.names.kind

    @property
    def plural(self) -> str:
        return self.names.plural

    @property
    def singular(self) -> str:
        return self.names.singular

    @property
    def short_names(self) -> tuple[str, ...]:
        return self.names.short_names

    @property
    def categories(self) -> tuple[str, ...]:
        return self.names.categories

    @property
    def namespaced(self) -> bool:
        return self.scope == "Namespaced"

    @property
    def status_subresource(self) -> bool:
        return self.kind_version.status_subresource

    @property
    def scale(self) -> tuple[str, str, str | None] | None:
        """`/scale`'s (spec replicas, status replicas, label selector) paths."""
        scale = self.kind_version.scale
        if scale is None:
            return None
        return (
            scale.spec_replicas_path,
            scale.status_replicas_path,
            scale.label_selector_path,
        )

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version
