"""Kind-level decorators on `CustomResource` classes.

`@op.kind(group=, version=)` makes a class a kind; the other decorators add
subresources, printer columns, version flags, selectable fields and CRD
metadata. Decorators only record frozen values on the class itself (never
inherited by subclasses); `_kindinfo` reads them back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal, TypeVar

from opgen.api._marker import (
    Marker,
    MarkerContext,
    Placement,
    SchemaNode,
    record_on_class,
)
from opgen.errors import Location, MarkerError

__all__ = [
    "KIND_MARKERS_ATTR",
    "CrdMetadata",
    "DeprecatedVersion",
    "KindDecl",
    "KindMarker",
    "PrintColumn",
    "SelectableField",
    "SkipVersion",
    "StorageVersion",
    "SubresourceScale",
    "SubresourceStatus",
    "UnservedVersion",
    "crd_metadata",
    "deprecated_version",
    "kind",
    "print_column",
    "selectable_field",
    "skip_version",
    "storage_version",
    "subresource_scale",
    "subresource_status",
    "unserved_version",
]

KIND_MARKERS_ATTR = "__opgen_kind_markers__"
CUSTOM_RESOURCE_FLAG = "__opgen_custom_resource__"

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


def _names(label: str, values: Sequence[str] | None) -> tuple[str, ...]:
    if values is None:
        return ()
    if isinstance(values, str):
        raise MarkerError(f"{label}: give a list of names, not the string {values!r}")
    return tuple(values)


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


def kind(
    group: str,
    version: str,
    *,
    scope: Literal["Namespaced", "Cluster"] = "Namespaced",
    plural: str | None = None,
    singular: str | None = None,
    short_names: Sequence[str] | None = None,
    categories: Sequence[str] | None = None,
) -> KindDecl:
    """Make a CustomResource class a kind of `group`/`version`."""
    return KindDecl(
        group=group,
        version=version,
        scope=scope,
        plural=plural,
        singular=singular,
        short_names=_names("@op.kind short_names=", short_names),
        categories=_names("@op.kind categories=", categories),
    )


@dataclass(frozen=True)
class SubresourceStatus(KindMarker):
    """`@op.subresource_status()`: serve `/status`; `.status` is written only there."""

    @classmethod
    def marker_name(cls) -> str:
        return "subresource_status"


def subresource_status() -> SubresourceStatus:
    """Enable the status subresource."""
    return SubresourceStatus()


@dataclass(frozen=True)
class SubresourceScale(KindMarker):
    """`@op.subresource_scale(...)`: serve `/scale` (kubectl scale, HPA)."""

    spec_replicas_path: str
    status_replicas_path: str
    label_selector_path: str | None = None

    @classmethod
    def marker_name(cls) -> str:
        return "subresource_scale"


def subresource_scale(
    spec_replicas_path: str,
    status_replicas_path: str,
    label_selector_path: str | None = None,
) -> SubresourceScale:
    """Enable the scale subresource with JSON paths like `.spec.replicas`."""
    return SubresourceScale(
        spec_replicas_path, status_replicas_path, label_selector_path
    )


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


def print_column(
    name: str,
    type: str,
    json_path: str,
    *,
    description: str | None = None,
    format: str | None = None,
    priority: int = 0,
) -> PrintColumn:
    """Add a printer column (`type`: integer, number, string, boolean or date)."""
    return PrintColumn(name, type, json_path, description, format, priority)


@dataclass(frozen=True)
class StorageVersion(KindMarker):
    """`@op.storage_version()`: this version is the one stored in etcd."""

    @classmethod
    def marker_name(cls) -> str:
        return "storage_version"


def storage_version() -> StorageVersion:
    """Mark this version as the storage version."""
    return StorageVersion()


@dataclass(frozen=True)
class UnservedVersion(KindMarker):
    """`@op.unserved_version()`: the API server does not serve this version."""

    @classmethod
    def marker_name(cls) -> str:
        return "unserved_version"


def unserved_version() -> UnservedVersion:
    """Mark this version as not served."""
    return UnservedVersion()


@dataclass(frozen=True)
class DeprecatedVersion(KindMarker):
    """`@op.deprecated_version(warning=)`: clients get a deprecation warning."""

    warning: str | None = None

    @classmethod
    def marker_name(cls) -> str:
        return "deprecated_version"


def deprecated_version(warning: str | None = None) -> DeprecatedVersion:
    """Mark this version as deprecated, optionally with the warning clients see."""
    return DeprecatedVersion(warning)


@dataclass(frozen=True)
class SkipVersion(KindMarker):
    """`@op.skip_version()`: leave this version out of the CRD (internal versions)."""

    @classmethod
    def marker_name(cls) -> str:
        return "skip_version"


def skip_version() -> SkipVersion:
    """Leave this version out of the CRD."""
    return SkipVersion()


@dataclass(frozen=True)
class SelectableField(KindMarker):
    """`@op.selectable_field(json_path)`: allow `--field-selector` on this field."""

    json_path: str
    repeatable: ClassVar[bool] = True

    @classmethod
    def marker_name(cls) -> str:
        return "selectable_field"


def selectable_field(json_path: str) -> SelectableField:
    """Make a string, integer or boolean field usable in field selectors."""
    return SelectableField(json_path)


@dataclass(frozen=True)
class CrdMetadata(KindMarker):
    """`@op.crd_metadata(annotations=, labels=)`: metadata of the CRD object itself."""

    annotations: tuple[tuple[str, str], ...] = ()
    labels: tuple[tuple[str, str], ...] = ()
    repeatable: ClassVar[bool] = True

    @classmethod
    def marker_name(cls) -> str:
        return "crd_metadata"


def _pairs(label: str, values: Mapping[str, str] | None) -> tuple[tuple[str, str], ...]:
    if values is None:
        return ()
    if not isinstance(values, Mapping):
        raise MarkerError(f"@op.crd_metadata: {label}= must be a mapping of strings")
    for key, value in values.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise MarkerError(
                f"@op.crd_metadata: {label}[{key!r}] must map a string to a string"
            )
    return tuple(sorted(values.items()))


def crd_metadata(
    annotations: Mapping[str, str] | None = None,
    labels: Mapping[str, str] | None = None,
) -> CrdMetadata:
    """Add annotations and labels to the generated CRD."""
    return CrdMetadata(_pairs("annotations", annotations), _pairs("labels", labels))
