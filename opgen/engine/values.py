"""Validate a wire value against a schema node the way the API server does.

One port of kube-openapi's value validators (and apiextensions' list-type
checks) serves two callers: opgen's models, which enforce their markers on the
Python side (so Pydantic refuses what the API server would refuse), and the
checker, which validates every `default` before a CRD is written. The details
follow the server, not JSON Schema: string lengths count code points,
`pattern` is Go RE2 (ASCII `\\d \\w \\s`, `$` only at the very end),
`multipleOf` uses go-openapi's float tolerance, `format: int32` bounds the
value, `x-kubernetes-list-type: set/map` refuses duplicates, and only the
string formats listed in `CHECKED_FORMATS` are checked (the server checks a few
more: uri, email, hostname, cidr, mac, isbn, creditcard, ssn, colors,
bsonobjectid). `constraint_problem` phrases the first problem for a marker's
message.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any, TypeGuard

from opgen.engine.goregex import GoRegexError, go_regex
from opgen.engine.openapi import CHECKED_FORMATS

__all__ = [
    "constraint_problem",
    "first_duplicate",
    "is_json_integer",
    "json_type",
    "map_key",
    "validate_value",
]

_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)
_FLOAT32_MAX = 3.4028234663852886e38
_MAX_JSON_FLOAT = float(2**53 - 1)
_EPSILON = 1e-9


def validate_value(value: Any, schema: dict[str, Any], where: str) -> list[str]:
    """Why `value` does not satisfy `schema` (empty when it does).

    Each problem starts with `where` extended by the path of the offending
    part (`where.a[0]`).
    """
    problems: list[str] = []
    _validate(value, schema, where, problems)
    return problems


def _validate(value: Any, schema: Any, where: str, problems: list[str]) -> None:
    if not isinstance(schema, dict):
        return
    if value is None:
        if not schema.get("nullable") and (
            schema.get("type") or schema.get("x-kubernetes-int-or-string")
        ):
            problems.append(f"{where}: must not be null")
        return
    kind = schema.get("type")
    if schema.get("x-kubernetes-int-or-string"):
        if not (_is_integer(value) or isinstance(value, str)):
            problems.append(f"{where}: must be an integer or a string")
            return
    elif (
        isinstance(kind, str) and kind in _TYPE_CHECKS and not _TYPE_CHECKS[kind](value)
    ):
        problems.append(f"{where}: must be of type {kind}")
        return
    enum = schema.get("enum")
    if isinstance(enum, list) and not any(_same(value, item) for item in enum):
        problems.append(f"{where}: must be one of {enum!r}")
    if _is_number(value):
        _numeric(value, schema, where, problems)
    if isinstance(value, str):
        _string(value, schema, where, problems)
    if isinstance(value, list):
        _array(value, schema, where, problems)
    if isinstance(value, dict):
        _object(value, schema, where, problems)
    for branch in schema.get("allOf") or []:
        _validate(value, branch, where, problems)
    any_of = schema.get("anyOf")
    if (
        isinstance(any_of, list)
        and any_of
        and not schema.get("x-kubernetes-int-or-string")
    ) and all(validate_value(value, branch, where) for branch in any_of):
        problems.append(f"{where}: must match at least one schema in anyOf")
    one_of = schema.get("oneOf")
    if isinstance(one_of, list) and one_of:
        matches = sum(
            1 for branch in one_of if not validate_value(value, branch, where)
        )
        if matches != 1:
            problems.append(f"{where}: must match exactly one schema in oneOf")
    if isinstance(schema.get("not"), dict) and not validate_value(
        value, schema["not"], where
    ):
        problems.append(f"{where}: must not match the schema in not")


def constraint_problem(value: Any, constraint: dict[str, Any]) -> str | None:
    """The first way `value` breaks the schema keywords `constraint`, or None."""
    problems = validate_value(value, constraint, "value")
    if not problems:
        return None
    where, _, detail = problems[0].partition(": ")
    inner = where.removeprefix("value")
    if not inner:
        return detail
    if inner.startswith("["):
        index, _, rest = inner[1:].partition("]")
        inner = f"item {index}{rest}"
    return f"{inner.lstrip('.')}: {detail}"


def json_type(value: object) -> str:
    """The JSON type of a scalar (`boolean`, `integer`, `number`, `string`), else the
    Python type's name."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return type(value).__name__


def _same(value: Any, item: Any) -> bool:
    if isinstance(value, bool) != isinstance(item, bool):
        return False
    return bool(value == item)


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": _is_integer,
    "number": _is_number,
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def is_json_integer(number: float) -> bool:
    """go-openapi's `swag.IsFloat64AJSONInteger`, tolerance included."""
    if math.isnan(number) or math.isinf(number) or abs(number) > _MAX_JSON_FLOAT:
        return False
    if number < 0:
        # Go converts a negative float to uint64 by wrapping, so only exact
        # integers pass.
        return number == math.trunc(number)
    truncated = float(math.trunc(number))
    if number == truncated:
        return True
    if truncated == 0:
        return False
    return abs(number - truncated) / (number + truncated) < _EPSILON


def _multiple_problem(value: float, factor: float) -> bool:
    """True when `value` is not a multiple of `factor` for the API server."""
    if isinstance(value, int) and float(factor).is_integer():
        return value % int(factor) != 0
    number = float(value)
    quotient = (1 / factor * number) if factor < 1 else number / factor
    return not is_json_integer(quotient)


def _numeric(
    value: float, schema: dict[str, Any], where: str, problems: list[str]
) -> None:
    kind = schema.get("type")
    fmt = schema.get("format")
    if isinstance(value, int) and (kind == "integer" or fmt in ("int32", "int64")):
        low, high = _INT32 if fmt == "int32" else _INT64
        if not low <= value <= high:
            shown = f"format {fmt}" if fmt in ("int32", "int64") else "(default format)"
            problems.append(f"{where}: must be an integer {shown}")
            return
    if fmt == "float" and abs(value) > _FLOAT32_MAX:
        problems.append(f"{where}: must be a number with format float")
        return
    minimum = schema.get("minimum")
    if _is_number(minimum):
        if schema.get("exclusiveMinimum") and value <= minimum:
            problems.append(f"{where}: must be greater than {minimum}")
        elif value < minimum:
            problems.append(f"{where}: must be greater than or equal to {minimum}")
    maximum = schema.get("maximum")
    if _is_number(maximum):
        if schema.get("exclusiveMaximum") and value >= maximum:
            problems.append(f"{where}: must be less than {maximum}")
        elif value > maximum:
            problems.append(f"{where}: must be less than or equal to {maximum}")
    multiple = schema.get("multipleOf")
    if _is_number(multiple) and multiple > 0 and _multiple_problem(value, multiple):
        problems.append(f"{where}: must be a multiple of {multiple}")


def _string(
    value: str, schema: dict[str, Any], where: str, problems: list[str]
) -> None:
    max_length = schema.get("maxLength")
    if isinstance(max_length, int) and len(value) > max_length:
        problems.append(f"{where}: may not be more than {max_length} chars long")
    min_length = schema.get("minLength")
    if isinstance(min_length, int) and len(value) < min_length:
        problems.append(f"{where}: should be at least {min_length} chars long")
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and pattern:
        try:
            compiled = go_regex(pattern)
        except GoRegexError:
            return  # refused earlier by the structural checks
        if compiled.search(value) is None:
            problems.append(f"{where}: should match {pattern!r}")
    fmt = schema.get("format")
    if isinstance(fmt, str) and schema.get("type") in (None, "string"):
        check = CHECKED_FORMATS.get(fmt.replace("-", ""))
        if check is not None and not check(value):
            problems.append(f"{where}: must be a valid {fmt}")


def _array(
    value: list[Any], schema: dict[str, Any], where: str, problems: list[str]
) -> None:
    min_items = schema.get("minItems")
    if isinstance(min_items, int) and len(value) < min_items:
        problems.append(f"{where}: should have at least {min_items} items")
    max_items = schema.get("maxItems")
    if isinstance(max_items, int) and len(value) > max_items:
        problems.append(f"{where}: must have at most {max_items} items")
    items = schema.get("items")
    if isinstance(items, dict):
        for position, item in enumerate(value):
            _validate(item, items, f"{where}[{position}]", problems)
    list_type = schema.get("x-kubernetes-list-type")
    keys = schema.get("x-kubernetes-list-map-keys")
    if list_type == "set":
        duplicate = first_duplicate(value)
        if duplicate is not None:
            problems.append(f"{where}[{duplicate}]: Duplicate value")
    elif list_type == "map" and isinstance(keys, list) and keys:
        duplicate = first_duplicate([map_key(item, keys) for item in value])
        if duplicate is not None:
            problems.append(f"{where}[{duplicate}]: Duplicate value")


def map_key(item: Any, keys: list[str]) -> Any:
    """The identity of one item of a `map` list: its key fields (missing ones too)."""
    if not isinstance(item, dict):
        return item
    return [item.get(name, _MISSING) for name in keys]


_MISSING = "\x00missing"


def first_duplicate(values: list[Any]) -> int | None:
    """Index of the first value equal to an earlier one, as the server compares them
    (by JSON text, so `1` and `1.0` differ as int64 and float64 do in Go)."""
    seen: set[str] = set()
    for position, value in enumerate(values):
        identity = json.dumps(value, sort_keys=True)
        if identity in seen:
            return position
        seen.add(identity)
    return None


def _object(
    value: dict[str, Any], schema: dict[str, Any], where: str, problems: list[str]
) -> None:
    for name in schema.get("required") or []:
        if name not in value:
            problems.append(f"{where}.{name}: Required value")
    max_properties = schema.get("maxProperties")
    if isinstance(max_properties, int) and len(value) > max_properties:
        problems.append(f"{where}: should have at most {max_properties} properties")
    min_properties = schema.get("minProperties")
    if isinstance(min_properties, int) and len(value) < min_properties:
        problems.append(f"{where}: should have at least {min_properties} properties")
    properties = schema.get("properties") or {}
    additional = schema.get("additionalProperties")
    for name, item in value.items():
        if name in properties:
            _validate(item, properties[name], f"{where}.{name}", problems)
        elif isinstance(additional, dict):
            _validate(item, additional, f"{where}.{name}", problems)
