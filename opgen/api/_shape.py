"""Shape markers: list and map sizes, uniqueness, type override, nullability.

Like the value markers, each checks the JSON type of its node before writing
the OpenAPI keyword.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from opgen.api._marker import (
    FLOAT_FLAG,
    Marker,
    MarkerContext,
    SchemaNode,
    constraint_problem,
)
from opgen.api._validation import OPENAPI_TYPES, count_argument, require_type
from opgen.errors import MarkerError

__all__ = [
    "MaxItems",
    "MaxProperties",
    "MinItems",
    "MinProperties",
    "Nullable",
    "Type",
    "UniqueItems",
]


@dataclass(frozen=True)
class MinItems(Marker):
    """A list must have at least `value` items (`minItems`)."""

    value: int

    def __post_init__(self) -> None:
        count_argument("MinItems", self.value)

    def check(self, value: Any) -> str | None:
        return constraint_problem(value, {"minItems": self.value})

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        require_type(self, node, ctx, frozenset({"array"}))
        return {**node, "minItems": self.value}


@dataclass(frozen=True)
class MaxItems(Marker):
    """A list must have at most `value` items (`maxItems`)."""

    value: int

    def __post_init__(self) -> None:
        count_argument("MaxItems", self.value)

    def check(self, value: Any) -> str | None:
        return constraint_problem(value, {"maxItems": self.value})

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        require_type(self, node, ctx, frozenset({"array"}))
        return {**node, "maxItems": self.value}


@dataclass(frozen=True)
class UniqueItems(Marker):
    """Items must be unique. Written as `x-kubernetes-list-type: set`: the API server
    refuses `uniqueItems: true` (quadratic), and a set list enforces uniqueness."""

    def check(self, value: Any) -> str | None:
        return constraint_problem(value, {"x-kubernetes-list-type": "set"})

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        require_type(self, node, ctx, frozenset({"array"}))
        current = node.get("x-kubernetes-list-type")
        if current not in (None, "set"):
            raise ctx.error(self, f"conflicts with op.ListType({current!r})")
        return {**node, "x-kubernetes-list-type": "set"}


@dataclass(frozen=True)
class MinProperties(Marker):
    """An object must have at least `value` properties (`minProperties`)."""

    value: int

    def __post_init__(self) -> None:
        count_argument("MinProperties", self.value)

    def check(self, value: Any) -> str | None:
        return constraint_problem(value, {"minProperties": self.value})

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        require_type(self, node, ctx, frozenset({"object"}))
        return {**node, "minProperties": self.value}


@dataclass(frozen=True)
class MaxProperties(Marker):
    """An object must have at most `value` properties (`maxProperties`)."""

    value: int

    def __post_init__(self) -> None:
        count_argument("MaxProperties", self.value)

    def check(self, value: Any) -> str | None:
        return constraint_problem(value, {"maxProperties": self.value})

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        require_type(self, node, ctx, frozenset({"object"}))
        return {**node, "maxProperties": self.value}


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
        if self.name not in OPENAPI_TYPES:
            raise MarkerError(
                f"op.Type({self.name!r}): must be one of {', '.join(OPENAPI_TYPES)}"
            )

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

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        return {**node, "nullable": True}
