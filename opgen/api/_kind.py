"""Kind-level decorators on `CustomResource` classes.

`@op.kind(group=, version=)` makes a class a kind; the other decorators add
subresources, printer columns, version flags, selectable fields and CRD
metadata. Each function checks and normalises its arguments and returns one
of the kind-level markers of `opgen.engine.kinds`, which records itself on the
class (never inherited by subclasses); `opgen.engine.reading` reads them back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from opgen.api._bare import needs_call
from opgen.engine.kinds import (
    CrdMetadata,
    DeprecatedVersion,
    KindDecl,
    PrintColumn,
    SelectableField,
    SkipVersion,
    StorageVersion,
    SubresourceScale,
    SubresourceStatus,
    UnservedVersion,
)
from opgen.errors import MarkerError

__all__ = [
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


def _names(label: str, values: Sequence[str] | None) -> tuple[str, ...]:
    if values is None:
        return ()
    if isinstance(values, str):
        raise MarkerError(f"{label}: give a list of names, not the string {values!r}")
    return tuple(values)


@needs_call
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


@needs_call
def subresource_status() -> SubresourceStatus:
    """Enable the status subresource."""
    return SubresourceStatus()


@needs_call
def subresource_scale(
    spec_replicas_path: str,
    status_replicas_path: str,
    label_selector_path: str | None = None,
) -> SubresourceScale:
    """Enable the scale subresource with JSON paths like `.spec.replicas`."""
    return SubresourceScale(
        spec_replicas_path, status_replicas_path, label_selector_path
    )


@needs_call
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


@needs_call
def storage_version() -> StorageVersion:
    """Mark this version as the storage version."""
    return StorageVersion()


@needs_call
def unserved_version() -> UnservedVersion:
    """Mark this version as not served."""
    return UnservedVersion()


@needs_call
def deprecated_version(warning: str | None = None) -> DeprecatedVersion:
    """Mark this version as deprecated, optionally with the warning clients see."""
    return DeprecatedVersion(warning)


@needs_call
def skip_version() -> SkipVersion:
    """Leave this version out of the CRD."""
    return SkipVersion()


@needs_call
def selectable_field(json_path: str) -> SelectableField:
    """Make a string, integer or boolean field usable in field selectors."""
    return SelectableField(json_path)


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


@needs_call
def crd_metadata(
    annotations: Mapping[str, str] | None = None,
    labels: Mapping[str, str] | None = None,
) -> CrdMetadata:
    """Add annotations and labels to the generated CRD."""
    return CrdMetadata(_pairs("annotations", annotations), _pairs("labels", labels))
