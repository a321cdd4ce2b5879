"""Refuse `Annotated` metadata that neither opgen nor Pydantic understands.

Pydantic silently ignores metadata it does not know, which is how
controller-gen's worst trap (a typo'd marker that does nothing) would come
back: `Annotated[int, "+kubebuilder:validation:Minimum=0"]`, or `op.Minimum`
without the call. Every model's fields are checked when its schema is built.
"""

from __future__ import annotations

import types
import typing
from typing import Any

import annotated_types
from pydantic.fields import FieldInfo

from opgen.api.registry import default_registry
from opgen.engine.markers import Marker
from opgen.errors import Location, MarkerError

__all__ = ["check_metadata", "check_model"]

_REGISTRY = default_registry()


def check_model(cls: type[Any], location: Location) -> None:
    """Raise `MarkerError` for unknown metadata on any field of a Pydantic model."""
    fields: dict[str, FieldInfo] = getattr(cls, "__pydantic_fields__", {})
    for name, info in fields.items():
        if all(map(_is_known, info.metadata)) and _is_known_type(info.annotation, 0):
            continue  # the common case, told without building a location
        where = Location(file=location.file, cls=location.cls, field=name)
        for item in info.metadata:
            check_metadata(item, where)
        _check_type(info.annotation, where, depth=0)


def _is_known_type(annotation: Any, depth: int) -> bool:
    """True when `_check_type` would accept `annotation` without looking at
    anything `_is_known` does not accept at first sight."""
    if isinstance(annotation, type) and not isinstance(annotation, types.GenericAlias):
        return True  # a class: no arguments that could hold metadata
    if depth > 20:
        return True
    alias_value = getattr(annotation, "__value__", None)  # TypeAliasType
    if alias_value is not None and not isinstance(annotation, type):
        return _is_known_type(alias_value, depth + 1)
    if typing.get_origin(annotation) is typing.Annotated and not all(
        map(_is_known, annotation.__metadata__)
    ):
        return False
    return all(
        _is_known_type(argument, depth + 1)
        for argument in typing.get_args(annotation)
        if isinstance(argument, type)
        or typing.get_origin(argument) is not None
        or hasattr(argument, "__value__")
    )


def _is_known(item: object) -> bool:
    """Metadata `check_metadata` accepts at first sight (it judges the rest)."""
    if isinstance(item, Marker):
        return type(item) in _REGISTRY.markers
    return isinstance(item, annotated_types.BaseMetadata | FieldInfo)


def _check_type(annotation: Any, where: Location, depth: int) -> None:
    if depth > 20:
        return
    alias_value = getattr(annotation, "__value__", None)  # TypeAliasType
    if alias_value is not None and not isinstance(annotation, type):
        _check_type(alias_value, where, depth + 1)
        return
    if typing.get_origin(annotation) is typing.Annotated:
        for item in annotation.__metadata__:
            check_metadata(item, where)
    for argument in typing.get_args(annotation):
        if (
            isinstance(argument, type)
            or typing.get_origin(argument) is not None
            or hasattr(argument, "__value__")
        ):
            _check_type(argument, where, depth + 1)


def check_metadata(item: object, where: Location) -> None:
    """Accept opgen markers and Pydantic metadata; refuse everything else loudly."""
    if isinstance(item, Marker):
        if type(item) not in _REGISTRY.markers:
            raise MarkerError(
                f"{type(item).__qualname__} is not a registered opgen marker",
                location=where,
                hint="opgen's markers are a closed set (docs/markers.md); express a "
                "custom check as an op.Rule",
            )
        return
    if isinstance(item, type) and issubclass(item, Marker):
        raise MarkerError(
            f"op.{item.marker_name()} is used without being called",
            location=where,
            hint=f"write op.{item.marker_name()}(...) with its arguments",
        )
    if isinstance(item, annotated_types.BaseMetadata | FieldInfo):
        return
    if hasattr(item, "__get_pydantic_core_schema__") or hasattr(
        item, "__get_pydantic_json_schema__"
    ):
        return
    if type(item).__name__ == "Doc":  # typing_extensions.Doc: documentation only
        return
    if isinstance(item, str):
        raise MarkerError(
            f"unknown marker {item!r}: opgen markers are objects, not strings",
            location=where,
            hint="e.g. Annotated[int, op.Minimum(0)] instead of a controller-gen comment",
        )
    raise MarkerError(
        f"unknown marker {item!r} in Annotated[...]: neither opgen nor Pydantic uses it",
        location=where,
        hint="see docs/markers.md for the markers opgen understands",
    )
