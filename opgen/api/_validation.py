"""Value-validation markers: numeric bounds, string lengths, patterns, formats, enums.

Each marker checks the JSON type of the node it lands on (a `MinLength` on an
integer is an error, not a silent no-op) and writes the OpenAPI v3 keyword the
API server understands.
"""

from __future__ import annotations

import enum
import functools
import math
import operator
from collections.abc import Callable, Sequence, Sized
from dataclasses import dataclass, field
from typing import Any, ClassVar

from opgen.engine.goregex import GoRegexError, go_regex, re2_problem
from opgen.engine.markers import Marker, MarkerContext, SchemaNode, node_type
from opgen.engine.openapi import CHECKED_FORMATS, NUMBER_FORMATS, STRING_FORMATS
from opgen.engine.values import constraint_problem, json_type
from opgen.errors import MarkerError

__all__ = [
    "CountMarker",
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
    "choice_argument",
    "count_argument",
    "require_type",
]

_NUMERIC = frozenset({"integer", "number"})
_STRINGLIKE = frozenset({"string", "int-or-string"})

# Every object the runtime decodes runs its markers' checks. Each `check` first
# accepts a plain value that obviously passes, in a line of Python; anything
# else, and every refusal, goes through `constraint_problem`, the port of the
# API server's validation, which phrases the problem.

_LENGTHS: dict[str, tuple[type[Sized], bool]] = {
    "minLength": (str, True),
    "maxLength": (str, False),
    "minItems": (list, True),
    "maxItems": (list, False),
    "minProperties": (dict, True),
    "maxProperties": (dict, False),
}
"""The count keywords with a quick accept: the type they count, and whether the
count is a lower bound."""

_INTEGER_FORMATS = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}

_COMPARISONS: dict[tuple[str, bool], Callable[[Any, Any], Any]] = {
    ("minimum", False): operator.ge,
    ("minimum", True): operator.gt,
    ("maximum", False): operator.le,
    ("maximum", True): operator.lt,
}
"""What a bound's value must be, compared with it (`_NumericBound._accepts`)."""

_REMEMBERED_MATCH = 64
"""Strings up to this long have their pattern matches remembered: condition
types and reasons, names, enums in all but name repeat across objects."""


@functools.lru_cache(maxsize=4096)
def _matches(regex: str, value: str) -> bool:
    try:
        compiled = go_regex(regex)
    except GoRegexError:
        return True  # refused when the marker was made; the server skips it too
    return compiled.search(value) is not None


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


def choice_argument(marker: str, value: object, choices: Sequence[str]) -> None:
    if value not in choices:
        raise MarkerError(
            f"op.{marker}({value!r}): must be one of {', '.join(choices)}"
        )


def count_argument(marker: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise MarkerError(f"op.{marker}({value!r}): expected a non-negative integer")
    return value


@dataclass(frozen=True)
class CountMarker(Marker):
    """Base of the size markers: a non-negative count written as one keyword
    (`minLength`, `maxItems`, ...) on nodes of the types in `applies_to`."""

    value: int
    keyword: ClassVar[str]
    applies_to: ClassVar[frozenset[str]]
    # `_enforce`'s quick accept, set by __post_init__ (not arguments)
    _sized: type[Sized] | None = field(init=False, repr=False, compare=False)
    _least: int = field(init=False, repr=False, compare=False)
    _most: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        count_argument(self.marker_name(), self.value)
        # `_enforce`'s quick accept, read from the instance: a str or list of
        # this exact type whose length is in [least, most] (a dict's is counted
        # on its wire form, which drops None values)
        counted = _LENGTHS.get(self.keyword)
        sized = counted[0] if counted is not None and counted[0] is not dict else None
        low = counted is not None and counted[1]
        object.__setattr__(self, "_sized", sized)
        object.__setattr__(self, "_least", self.value if low else 0)
        object.__setattr__(self, "_most", math.inf if low else self.value)

    def _accepts(self, value: Any) -> bool:
        counted = _LENGTHS.get(self.keyword)
        if counted is not None and type(value) is counted[0]:
            size = len(value)
            return size >= self.value if counted[1] else size <= self.value
        return False

    def check(self, value: Any) -> str | None:
        if self._accepts(value):
            return None
        return constraint_problem(value, {self.keyword: self.value})

    def _enforce(self, value: Any) -> Any:
        if type(value) is self._sized and self._least <= len(value) <= self._most:
            return value  # `_accepts`, inlined: this runs on every validated value
        if (
            type(value) is dict
            and self.keyword == "maxProperties"
            and len(value) <= self.value
        ):
            return value  # its wire form has no more keys (None values dropped)
        return super()._enforce(value)

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        require_type(self, node, ctx, self.applies_to)
        return {**node, self.keyword: self.value}


@dataclass(frozen=True)
class _NumericBound(Marker):
    """Base of the numeric markers: `keyword: value`, plus or minus its exclusive flag."""

    value: int | float
    keyword: ClassVar[str]
    exclusive_flag: ClassVar[str | None] = None
    """`exclusiveMinimum`/`exclusiveMaximum`: set by the exclusive marker, cleared
    by the inclusive one."""
    exclusive: ClassVar[bool] = False
    # `_enforce`'s quick accept, set by __post_init__ (not an argument)
    _compare: Callable[[Any, Any], Any] | None = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", _number(self.marker_name(), self.value))
        # `_enforce`'s quick accept, read from the instance (None: multipleOf)
        compare = _COMPARISONS.get((self.keyword, self.exclusive))
        object.__setattr__(self, "_compare", compare)

    def constraint(self) -> SchemaNode:
        constraint: SchemaNode = {self.keyword: self.value}
        if self.exclusive and self.exclusive_flag:
            constraint[self.exclusive_flag] = True
        return constraint

    def _accepts(self, value: Any) -> bool:
        if type(value) in (int, float) and self.keyword in ("minimum", "maximum"):
            low = self.keyword == "minimum"
            if self.exclusive:
                return bool(value > self.value if low else value < self.value)
            return bool(value >= self.value if low else value <= self.value)
        return False

    def check(self, value: Any) -> str | None:
        if self._accepts(value):
            return None
        return constraint_problem(value, self.constraint())

    def _enforce(self, value: Any) -> Any:
        compare = self._compare
        if (
            compare is not None
            and (type(value) is int or type(value) is float)
            and compare(value, self.value)
        ):
            return value  # `_accepts`, inlined: this runs on every validated value
        return super()._enforce(value)

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        kind = require_type(self, node, ctx, _NUMERIC)
        if kind == "integer" and not float(self.value).is_integer():
            raise ctx.error(self, "an integer field needs an integral bound")
        result = {**node, **self.constraint()}
        if self.exclusive_flag and not self.exclusive:
            result.pop(self.exclusive_flag, None)
        return result


@dataclass(frozen=True)
class Minimum(_NumericBound):
    """The value must be >= `value` (`minimum`)."""

    keyword: ClassVar[str] = "minimum"
    exclusive_flag: ClassVar[str | None] = "exclusiveMinimum"


@dataclass(frozen=True)
class Maximum(_NumericBound):
    """The value must be <= `value` (`maximum`)."""

    keyword: ClassVar[str] = "maximum"
    exclusive_flag: ClassVar[str | None] = "exclusiveMaximum"


@dataclass(frozen=True)
class ExclusiveMinimum(_NumericBound):
    """The value must be > `value` (`minimum` + `exclusiveMinimum: true`)."""

    keyword: ClassVar[str] = "minimum"
    exclusive_flag: ClassVar[str | None] = "exclusiveMinimum"
    exclusive: ClassVar[bool] = True


@dataclass(frozen=True)
class ExclusiveMaximum(_NumericBound):
    """The value must be < `value` (`maximum` + `exclusiveMaximum: true`)."""

    keyword: ClassVar[str] = "maximum"
    exclusive_flag: ClassVar[str | None] = "exclusiveMaximum"
    exclusive: ClassVar[bool] = True


@dataclass(frozen=True)
class MultipleOf(_NumericBound):
    """The value must be a multiple of `value` (`multipleOf`)."""

    keyword: ClassVar[str] = "multipleOf"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.value <= 0:
            raise MarkerError(f"op.MultipleOf({self.value!r}): must be greater than 0")


@dataclass(frozen=True)
class MinLength(CountMarker):
    """A string must have at least `value` characters (`minLength`)."""

    keyword: ClassVar[str] = "minLength"
    applies_to: ClassVar[frozenset[str]] = _STRINGLIKE


@dataclass(frozen=True)
class MaxLength(CountMarker):
    """A string must have at most `value` characters (`maxLength`)."""

    keyword: ClassVar[str] = "maxLength"
    applies_to: ClassVar[frozenset[str]] = _STRINGLIKE


@dataclass(frozen=True)
class Pattern(Marker):
    """A string must match the regular expression (`pattern`, Go RE2 syntax)."""

    regex: str
    keyword: ClassVar[str] = "pattern"

    def __post_init__(self) -> None:
        if not isinstance(self.regex, str):
            raise MarkerError(f"op.Pattern({self.regex!r}): expected a string")
        problem = re2_problem(self.regex)
        if problem is not None:
            raise MarkerError(f"op.Pattern({self.regex!r}): {problem}")

    def _accepts(self, value: Any) -> bool:
        if type(value) is str:
            if len(value) <= _REMEMBERED_MATCH:
                return _matches(self.regex, value)
            return _matches.__wrapped__(self.regex, value)
        return False

    def check(self, value: Any) -> str | None:
        if self._accepts(value):
            return None
        return constraint_problem(value, {"pattern": self.regex})

    def _enforce(self, value: Any) -> Any:
        if type(value) is str and self._accepts(value):
            return value
        return super()._enforce(value)

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        require_type(self, node, ctx, _STRINGLIKE)
        return {**node, "pattern": self.regex}


@dataclass(frozen=True)
class Format(Marker):
    """A format the API server validates (`format`): `date-time`, `uri`, `int32`, ..."""

    name: str
    keyword: ClassVar[str] = "format"
    # `_enforce`'s quick accept, set by __post_init__ (not arguments)
    _range: tuple[int, int] | None = field(init=False, repr=False, compare=False)
    _valid_text: Callable[[str], bool] | None = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        known = STRING_FORMATS | NUMBER_FORMATS["integer"] | NUMBER_FORMATS["number"]
        if self.name not in known:
            raise MarkerError(
                f"op.Format({self.name!r}): the API server does not know this format "
                "and would ignore it",
                hint="known formats: " + ", ".join(sorted(known)),
            )
        # `_enforce`'s quick accept, read from the instance: an int's range
        # (None: no integer format), a string's check (None: any string)
        object.__setattr__(self, "_range", _INTEGER_FORMATS.get(self.name))
        object.__setattr__(
            self, "_valid_text", CHECKED_FORMATS.get(self.name.replace("-", ""))
        )

    def _accepts(self, value: Any) -> bool:
        if type(value) is int and self.name in _INTEGER_FORMATS:
            low, high = _INTEGER_FORMATS[self.name]
            return low <= value <= high
        if type(value) is str:
            valid = CHECKED_FORMATS.get(self.name.replace("-", ""))
            return valid is None or valid(value)
        return False

    def check(self, value: Any) -> str | None:
        if self._accepts(value):
            return None
        return constraint_problem(value, {"format": self.name})

    def _enforce(self, value: Any) -> Any:
        # `_accepts`, inlined: this runs on every validated value
        kind = type(value)
        if kind is int:
            bounds = self._range
            if bounds is not None and bounds[0] <= value <= bounds[1]:
                return value
        elif kind is str:
            valid = self._valid_text
            if valid is None or valid(value):
                return value
        return super()._enforce(value)

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
    keyword: ClassVar[str] = "enum"

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
        value_types = {json_type(v) for v in self.values if v is not None}
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
