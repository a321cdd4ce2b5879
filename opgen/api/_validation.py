"""Value-validation markers: numeric bounds, string lengths, patterns, formats, enums.

Each marker checks the JSON type of the node it lands on (a `MinLength` on an
integer is an error, not a silent no-op) and writes the OpenAPI v3 keyword the
API server understands.
"""

from __future__ import annotations

import enum
import math
import re
from dataclasses import dataclass, field
from typing import Any

from opgen.api._marker import (
    Marker,
    MarkerContext,
    SchemaNode,
    constraint_problem,
    node_type,
)
from opgen.errors import MarkerError

__all__ = [
    "OPENAPI_TYPES",
    "STRING_FORMATS",
    "Enum",
    "ExclusiveMaximum",
    "ExclusiveMinimum",
    "Format",
    "MaxLength",
    "Maximum",
    "MinLength",
    "Minimum",
    "MultipleOf",
    "Pattern",
    "count_argument",
    "re2_problem",
    "require_type",
]

OPENAPI_TYPES = ("string", "number", "integer", "boolean", "array", "object")

STRING_FORMATS = frozenset(
    {
        "bsonobjectid",
        "uri",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "cidr",
        "mac",
        "uuid",
        "uuid3",
        "uuid4",
        "uuid5",
        "isbn",
        "isbn10",
        "isbn13",
        "creditcard",
        "ssn",
        "hexcolor",
        "rgbcolor",
        "byte",
        "password",
        "date",
        "duration",
        "date-time",
        "datetime",
        "k8s-short-name",
        "k8s-long-name",
    }
)
"""String formats the API server validates (others are silently ignored by it)."""

NUMBER_FORMATS = {
    "integer": frozenset({"int32", "int64"}),
    "number": frozenset({"float", "double"}),
}

_NUMERIC = frozenset({"integer", "number"})
_STRINGLIKE = frozenset({"string", "int-or-string"})

_RE2_UNSUPPORTED = (
    (re.compile(r"\(\?[=!]"), "look-ahead `(?=...)`/`(?!...)`"),
    (re.compile(r"\(\?<[=!]"), "look-behind `(?<=...)`/`(?<!...)`"),
    (re.compile(r"\(\?>"), "atomic groups `(?>...)`"),
    (re.compile(r"\(\?P="), "named back-references `(?P=name)`"),
    (re.compile(r"(?<!\\)\\[1-9]"), "back-references like `\\1`"),
    (re.compile(r"[*+?}]\+"), "possessive quantifiers"),
)


def re2_problem(pattern: str) -> str | None:
    """Why the API server (Go's RE2) would refuse `pattern`, or None if it looks fine."""
    try:
        re.compile(pattern)
    except re.error as error:
        return f"it is not a valid regular expression ({error})"
    for matcher, what in _RE2_UNSUPPORTED:
        if matcher.search(pattern):
            return f"it uses {what}, which Go's RE2 engine (used by the API server) does not support"
    return None


def require_type(
    marker: Marker, node: SchemaNode, ctx: MarkerContext, allowed: frozenset[str]
) -> str:
    actual = node_type(node)
    if actual not in allowed:
        shown = actual or "untyped (no `type`)"
        raise ctx.error(
            marker,
            f"applies to {' or '.join(sorted(allowed))} values, but this is {shown}",
            hint=(
                "put it on a field of a matching type, or inside op.Items(...) for the "
                "items of a list"
            ),
        )
    return actual


def _number(marker: str, value: object) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise MarkerError(f"op.{marker}({value!r}): the bound must be a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise MarkerError(f"op.{marker}({value!r}): the bound must be finite")
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def count_argument(marker: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise MarkerError(f"op.{marker}({value!r}): expected a non-negative integer")
    return value


def _numeric_bound(
    marker: Marker, node: SchemaNode, ctx: MarkerContext, value: float
) -> None:
    kind = require_type(marker, node, ctx, _NUMERIC)
    if kind == "integer" and not float(value).is_integer():
        raise ctx.error(marker, "an integer field needs an integral bound")


@dataclass(frozen=True)
class Minimum(Marker):
    """The value must be >= `value` (`minimum`)."""

    value: int | float

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", _number("Minimum", self.value))

    def check(self, value: Any) -> str | None:
        return constraint_problem(value, {"minimum": self.value})

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        _numeric_bound(self, node, ctx, self.value)
        result = {**node, "minimum": self.value}
        result.pop("exclusiveMinimum", None)
        return result


@dataclass(frozen=True)
class Maximum(Marker):
    """The value must be <= `value` (`maximum`)."""

    value: int | float

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", _number("Maximum", self.value))

    def check(self, value: Any) -> str | None:
        return constraint_problem(value, {"maximum": self.value})

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        _numeric_bound(self, node, ctx, self.value)
        result = {**node, "maximum": self.value}
        result.pop("exclusiveMaximum", None)
        return result


@dataclass(frozen=True)
class ExclusiveMinimum(Marker):
    """The value must be > `value` (`minimum` + `exclusiveMinimum: true`)."""

    value: int | float

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", _number("ExclusiveMinimum", self.value))

    def check(self, value: Any) -> str | None:
        return constraint_problem(
            value, {"minimum": self.value, "exclusiveMinimum": True}
        )

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        _numeric_bound(self, node, ctx, self.value)
        return {**node, "minimum": self.value, "exclusiveMinimum": True}


@dataclass(frozen=True)
class ExclusiveMaximum(Marker):
    """The value must be < `value` (`maximum` + `exclusiveMaximum: true`)."""

    value: int | float

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", _number("ExclusiveMaximum", self.value))

    def check(self, value: Any) -> str | None:
        return constraint_problem(
            value, {"maximum": self.value, "exclusiveMaximum": True}
        )

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        _numeric_bound(self, node, ctx, self.value)
        return {**node, "maximum": self.value, "exclusiveMaximum": True}


@dataclass(frozen=True)
class MultipleOf(Marker):
    """The value must be a multiple of `value` (`multipleOf`)."""

    value: int | float

    def __post_init__(self) -> None:
        value = _number("MultipleOf", self.value)
        if value <= 0:
            raise MarkerError(f"op.MultipleOf({value!r}): must be greater than 0")
        object.__setattr__(self, "value", value)

    def check(self, value: Any) -> str | None:
        return constraint_problem(value, {"multipleOf": self.value})

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        _numeric_bound(self, node, ctx, self.value)
        return {**node, "multipleOf": self.value}


@dataclass(frozen=True)
class MinLength(Marker):
    """A string must have at least `value` characters (`minLength`)."""

    value: int

    def __post_init__(self) -> None:
        count_argument("MinLength", self.value)

    def check(self, value: Any) -> str | None:
        return constraint_problem(value, {"minLength": self.value})

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        require_type(self, node, ctx, _STRINGLIKE)
        return {**node, "minLength": self.value}


@dataclass(frozen=True)
class MaxLength(Marker):
    """A string must have at most `value` characters (`maxLength`)."""

    value: int

    def __post_init__(self) -> None:
        count_argument("MaxLength", self.value)

    def check(self, value: Any) -> str | None:
        return constraint_problem(value, {"maxLength": self.value})

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        require_type(self, node, ctx, _STRINGLIKE)
        return {**node, "maxLength": self.value}


@dataclass(frozen=True)
class Pattern(Marker):
    """A string must match the regular expression (`pattern`, Go RE2 syntax)."""

    regex: str

    def __post_init__(self) -> None:
        if not isinstance(self.regex, str):
            raise MarkerError(f"op.Pattern({self.regex!r}): expected a string")
        problem = re2_problem(self.regex)
        if problem is not None:
            raise MarkerError(f"op.Pattern({self.regex!r}): {problem}")

    def check(self, value: Any) -> str | None:
        return constraint_problem(value, {"pattern": self.regex})

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        require_type(self, node, ctx, _STRINGLIKE)
        return {**node, "pattern": self.regex}


@dataclass(frozen=True)
class Format(Marker):
    """A format the API server validates (`format`): `date-time`, `uri`, `int32`, ..."""

    name: str

    def __post_init__(self) -> None:
        known = STRING_FORMATS | NUMBER_FORMATS["integer"] | NUMBER_FORMATS["number"]
        if self.name not in known:
            raise MarkerError(
                f"op.Format({self.name!r}): the API server does not know this format "
                "and would ignore it",
                hint="known formats: " + ", ".join(sorted(known)),
            )

    def check(self, value: Any) -> str | None:
        return constraint_problem(value, {"format": self.name})

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        kind = node_type(node)
        if kind in NUMBER_FORMATS:
            allowed = NUMBER_FORMATS[kind]
        elif kind in _STRINGLIKE:
            allowed = STRING_FORMATS
        else:
            raise ctx.error(
                self,
                f"formats apply to strings and numbers, but this is {kind or 'untyped'}",
                hint="for the items of a list use op.Items(op.Format(...))",
            )
        if self.name not in allowed:
            raise ctx.error(
                self,
                f"is not a format for {kind} values",
                hint=", ".join(sorted(allowed)),
            )
        return {**node, "format": self.name}


def _json_scalar(value: object) -> object:
    if isinstance(value, enum.Enum):
        value = value.value
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise MarkerError(f"op.Enum: {value!r} is not a JSON scalar")


def _value_type(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "null"


_ENUM_VALUE_TYPES = {
    "string": frozenset({"string"}),
    "integer": frozenset({"integer"}),
    "number": frozenset({"integer", "number"}),
    "boolean": frozenset({"boolean"}),
    "int-or-string": frozenset({"integer", "string"}),
}


@dataclass(frozen=True, init=False)
class Enum(Marker):
    """The value must be one of `values` (`enum`), in the order given."""

    values: tuple[Any, ...] = field(default=())

    def __init__(self, *values: object) -> None:
        if len(values) == 1 and isinstance(values[0], list | tuple):
            values = tuple(values[0])
        if not values:
            raise MarkerError("op.Enum(): give at least one value")
        object.__setattr__(self, "values", tuple(_json_scalar(v) for v in values))

    def display(self) -> str:
        return f"op.Enum({', '.join(repr(v) for v in self.values)})"

    def check(self, value: Any) -> str | None:
        return constraint_problem(value, {"enum": list(self.values)})

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        kind = node_type(node)
        value_types = {_value_type(v) for v in self.values if v is not None}
        if kind is None:
            if len(value_types) != 1:
                raise ctx.error(
                    self, "mixes value types on an untyped field; add op.Type"
                )
            kind = value_types.pop()
            node = {**node, "type": kind}
        elif (
            kind not in _ENUM_VALUE_TYPES or not value_types <= _ENUM_VALUE_TYPES[kind]
        ):
            raise ctx.error(
                self,
                f"has values of type {', '.join(sorted(value_types))} for a {kind} field",
            )
        if None in self.values and not node.get("nullable"):
            raise ctx.error(self, "None is only allowed with op.Nullable()")
        return {**node, "enum": list(self.values)}
