"""The one registry of opgen markers.

Every marker class is listed here explicitly, grouped by where it stands.
Nothing registers itself at import time; the schema stage asks this registry
whether an `Annotated` metadata object is an opgen marker, a known Pydantic
constraint, or something opgen does not understand (an error, not a silent
no-op).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from opgen.api import _cel, _kind, _shape, _structure, _validation
from opgen.api._marker import Marker, Placement

__all__ = ["MarkerRegistry", "default_registry"]


@dataclass(frozen=True)
class MarkerRegistry:
    """Marker classes by name, with where each may stand and its help text."""

    markers: tuple[type[Marker], ...]

    def __post_init__(self) -> None:
        names = [m.marker_name() for m in self.markers]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"markers registered twice: {', '.join(duplicates)}")

    def __iter__(self) -> Iterator[type[Marker]]:
        return iter(self.markers)

    def __contains__(self, marker: object) -> bool:
        return type(marker) in self.markers or marker in self.markers

    def by_name(self, name: str) -> type[Marker]:
        for marker in self.markers:
            if marker.marker_name() == name:
                return marker
        raise KeyError(name)

    def where(self, placement: Placement) -> tuple[type[Marker], ...]:
        return tuple(m for m in self.markers if placement in m.placements)

    def help(self) -> dict[str, str]:
        """Marker name → first line of its docstring (for docs and `--help`)."""
        return {
            m.marker_name(): (m.__doc__ or "").strip().splitlines()[0]
            for m in self.markers
        }


def default_registry() -> MarkerRegistry:
    """All markers opgen understands."""
    return MarkerRegistry(
        markers=(
            # value validation
            _validation.Minimum,
            _validation.Maximum,
            _validation.ExclusiveMinimum,
            _validation.ExclusiveMaximum,
            _validation.MultipleOf,
            _validation.MinLength,
            _validation.MaxLength,
            _validation.Pattern,
            _validation.Format,
            _validation.Enum,
            _shape.MinItems,
            _shape.MaxItems,
            _shape.UniqueItems,
            _shape.MinProperties,
            _shape.MaxProperties,
            _shape.Type,
            _shape.Nullable,
            # structure
            _structure.Required,
            _structure.Optional,
            _structure.Default,
            _structure.Example,
            _structure.Title,
            _structure.ExternalDocs,
            _structure.EmbeddedResource,
            _structure.PreserveUnknownFields,
            _structure.Schemaless,
            _structure.ListType,
            _structure.ListMapKey,
            _structure.MapType,
            _structure.StructType,
            _structure.Items,
            # CEL
            _cel.Rule,
            _cel.Immutable,
            _cel.AtMostOneOf,
            _cel.ExactlyOneOf,
            _cel.AtLeastOneOf,
            # kind level
            _kind.KindDecl,
            _kind.SubresourceStatus,
            _kind.SubresourceScale,
            _kind.PrintColumn,
            _kind.StorageVersion,
            _kind.UnservedVersion,
            _kind.DeprecatedVersion,
            _kind.SkipVersion,
            _kind.SelectableField,
            _kind.CrdMetadata,
        )
    )
