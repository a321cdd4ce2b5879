"""`MarkerRegistry`: a closed set of marker classes, by name and placement.

The schema stage asks a registry whether an `Annotated` metadata object is an
opgen marker it knows; a `Marker` subclass outside the registry is refused
instead of being half understood. The set opgen understands is
`opgen.api.registry.default_registry()`, listed next to the classes it names.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from opgen.engine.markers import Marker, Placement

__all__ = ["MarkerRegistry"]


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
