"""Shape markers: list and map sizes, uniqueness, type override, nullability.

Like the value markers, each checks the JSON type of its node before writing
the OpenAPI keyword.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from opgen.api._validation import CountMarker, choice_argument, require_type
from opgen.engine.markers import FLOAT_FLAG, Marker, MarkerContext, SchemaNode
from opgen.engine.openapi import OPENAPI_TYPES
from opgen.engine.values import constraint_problem

__all__ = [
    "MaxItems",
    "MaxProperties",
    "MinItems",
    "MinProperties",
    "Nullable",
    "Type",
    "UniqueItems",
]

_ARRAY = frozenset({"array"})
_OBJECT = frozenset({"object"})


@dataclass(frozen=True)
class MinItems(CountMarker):
    """A list must have at least `value` items (`minItems`)."""

    keyword: ClassVar[str] = "minItems"
    applies_to: ClassVar[frozenset[str]] = _ARRAY


@dataclass(frozen=True)
class MaxItems(CountMarker):
    """A list must have at most `value` items (`maxItems`)."""

    keyword: ClassVar[str] = "maxItems"
    applies_to: ClassVar[frozenset[str]] = _ARRAY


@dataclass(frozen=True)
class UniqueItems(Marker):
    """Items must be unique. Written as `x-kubernetes-list-type: set`: the API server
    refuses `uniqueItems: true` (quadratic), and a set list enforces uniqueness."""

    keyword: ClassVar[str] = "uniqueItems"
    """The keyword it stands for, which the API server refuses."""

    def check(self, value: Any) -> str | None:
        return constraint_problem(value, {"x-kubernetes-list-type": "set"})

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        require_type(self, node, ctx, _ARRAY)
        current = node.get("x-kubernetes-list-type")
        if current not in (None, "set"):
            raise ctx.error(self, f"conflicts with op.ListType({current!r})")
        return {**node, "x-kubernetes-list-type": "set"}


@dataclass(frozen=True)
class MinProperties(CountMarker):
    """An object must have at least `value` properties (`minProperties`)."""

    keyword: ClassVar[str] = "minProperties"
    applies_to: ClassVar[frozenset[str]] = _OBJECT


@dataclass(frozen=True)
class MaxProperties(CountMarker):
    """An object must have at most `value` properties (`maxProperties`)."""

    keyword: ClassVar[str] = "maxProperties"
    applies_to: ClassVar[frozenset[str]] = _OBJECT


_KEPT_ON_RETYPE = frozenset(
    {
        "description",
        "title",
        "example",
        "externalDocs",
        "default",
        "nullable",
        "x-kubernetes-validations",
        "x-kubernetes-preserve-unknown-fields",
    }
)


@dataclass(frozen=True)
class Type(Marker):
    """Override the JSON type (`type`). The node keeps only its documentation; the
    Python type's structure is dropped (use it with custom (de)serialisers).
    `Type("number")` is also the opt-in for `float` fields."""

    name: str
    priority: ClassVar[int] = 1

    def __post_init__(self) -> None:
        choice_argument("Type", self.name, OPENAPI_TYPES)

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        if self.name == "number":
            node = {key: value for key, value in node.items() if key != FLOAT_FLAG}
        if node.get("type") == self.name and not node.get("x-kubernetes-int-or-string"):
            return node
        result = {key: value for key, value in node.items() if key in _KEPT_ON_RETYPE}
        result["type"] = self.name
        if self.name == "array":
            result["items"] = node.get(
                "items", {"x-kubernetes-preserve-unknown-fields": True}
            )
        return result


@dataclass(frozen=True)
class Nullable(Marker):
    """`null` is a valid value (`nullable: true`). Without it, `X | None` only
    makes a field optional."""

    keyword: ClassVar[str] = "nullable"

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        return {**node, "nullable": True}
