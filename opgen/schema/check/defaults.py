"""Default values must validate against their own schema and be pruned.

The API server (`defaulting.ValidateDefaults`) refuses a CRD whose `default`
would be refused as a value, or would lose fields to pruning. Defaults under
`additionalProperties` are not checked (the server does not either); defaults
inside embedded object metadata are refused earlier by the OpenAPI rules.
CEL rules are not evaluated here.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import ipaddress
import re
import uuid
from collections.abc import Callable
from typing import Any

from opgen.api._duration import parse_go_duration
from opgen.schema.check.report import Report, child, key

__all__ = ["check_defaults", "prune", "validate_value"]

_META_FIELDS = frozenset({"apiVersion", "kind", "metadata"})


def check_defaults(schema: dict[str, Any], path: str, report: Report) -> None:
    """Check every `default` in one version's openAPIV3Schema."""
    _walk(schema, path, report, embedded=True, inside_meta=False)


def _walk(
    node: Any, path: str, report: Report, *, embedded: bool, inside_meta: bool
) -> None:
    if not isinstance(node, dict):
        return
    embedded = embedded or bool(node.get("x-kubernetes-embedded-resource"))
    if "default" in node and not inside_meta:
        value = node["default"]
        pruned = prune(
            value, node, embedded=bool(node.get("x-kubernetes-embedded-resource"))
        )
        if pruned != value:
            report.error(
                child(path, "default"),
                f"Invalid value: {value!r}: must not have unknown fields",
                node,
                hint="the default holds fields the schema does not describe",
            )
        else:
            for problem in validate_value(value, node, "default"):
                report.error(
                    child(path, "default"), f"Invalid value: {value!r}: {problem}", node
                )
    if isinstance(node.get("items"), dict):
        _walk(
            node["items"],
            child(path, "items"),
            report,
            embedded=False,
            inside_meta=inside_meta,
        )
    for name, value in (node.get("properties") or {}).items():
        sub_meta = inside_meta or (embedded and name in _META_FIELDS)
        _walk(
            value,
            key(child(path, "properties"), name),
            report,
            embedded=False,
            inside_meta=sub_meta,
        )


def prune(value: Any, schema: Any, *, embedded: bool = False) -> Any:
    """`value` without the fields `schema` does not describe (the server's pruning)."""
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict):
        if schema.get("x-kubernetes-int-or-string"):
            return value
        preserve = bool(schema.get("x-kubernetes-preserve-unknown-fields"))
        properties = schema.get("properties") or {}
        additional = schema.get("additionalProperties")
        result: dict[str, Any] = {}
        for name, item in value.items():
            if name in properties:
                result[name] = prune(item, properties[name])
            elif isinstance(additional, dict):
                result[name] = prune(item, additional)
            elif additional is True or preserve or (embedded and name in _META_FIELDS):
                result[name] = item
        return result
    if isinstance(value, list):
        items = schema.get("items")
        return (
            [prune(item, items) for item in value] if isinstance(items, dict) else value
        )
    return value


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": _is_integer,
    "number": _is_number,
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def validate_value(value: Any, schema: dict[str, Any], where: str) -> list[str]:
    """Why `value` does not satisfy `schema` (empty when it does)."""
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
    if isinstance(enum, list) and value not in enum:
        problems.append(f"{where}: must be one of {enum!r}")
    if isinstance(value, int | float) and not isinstance(value, bool):
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


def _numeric(
    value: float, schema: dict[str, Any], where: str, problems: list[str]
) -> None:
    minimum = schema.get("minimum")
    if isinstance(minimum, int | float):
        if schema.get("exclusiveMinimum") and value <= minimum:
            problems.append(f"{where}: must be greater than {minimum}")
        elif value < minimum:
            problems.append(f"{where}: must be greater than or equal to {minimum}")
    maximum = schema.get("maximum")
    if isinstance(maximum, int | float):
        if schema.get("exclusiveMaximum") and value >= maximum:
            problems.append(f"{where}: must be less than {maximum}")
        elif value > maximum:
            problems.append(f"{where}: must be less than or equal to {maximum}")
    multiple = schema.get("multipleOf")
    if isinstance(multiple, int | float) and multiple > 0:
        quotient = value / multiple
        if abs(quotient - round(quotient)) > 1e-9:
            problems.append(f"{where}: must be a multiple of {multiple}")


def _string(
    value: str, schema: dict[str, Any], where: str, problems: list[str]
) -> None:
    min_length = schema.get("minLength")
    if isinstance(min_length, int) and len(value) < min_length:
        problems.append(f"{where}: should be at least {min_length} chars long")
    max_length = schema.get("maxLength")
    if isinstance(max_length, int) and len(value) > max_length:
        problems.append(f"{where}: may not be more than {max_length} chars long")
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        try:
            if re.search(pattern, value) is None:
                problems.append(f"{where}: should match {pattern!r}")
        except re.error:
            pass  # reported by the structural checks
    fmt = schema.get("format")
    if (
        isinstance(fmt, str)
        and schema.get("type") == "string"
        and not _format_ok(fmt, value)
    ):
        problems.append(f"{where}: must be a valid {fmt}")


def _format_ok(fmt: str, value: str) -> bool:
    checks: dict[str, Callable[[str], bool]] = {
        "date-time": _date_time,
        "datetime": _date_time,
        "date": _date,
        "byte": _base64,
        "uuid": _uuid,
        "ipv4": _ipv4,
        "ipv6": _ipv6,
        "duration": _duration,
    }
    check = checks.get(fmt)
    return True if check is None else check(value)


def _date_time(value: str) -> bool:
    try:
        datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return "T" in value or " " in value


def _date(value: str) -> bool:
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return False
    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _base64(value: str) -> bool:
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def _ipv4(value: str) -> bool:
    try:
        return ipaddress.ip_address(value).version == 4
    except ValueError:
        return False


def _ipv6(value: str) -> bool:
    try:
        return ipaddress.ip_address(value).version == 6
    except ValueError:
        return False


def _duration(value: str) -> bool:
    try:
        parse_go_duration(value)
    except ValueError:
        return False
    return True


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


def _object(
    value: dict[str, Any], schema: dict[str, Any], where: str, problems: list[str]
) -> None:
    for name in schema.get("required") or []:
        if name not in value:
            problems.append(f"{where}.{name}: Required value")
    min_properties = schema.get("minProperties")
    if isinstance(min_properties, int) and len(value) < min_properties:
        problems.append(f"{where}: should have at least {min_properties} properties")
    max_properties = schema.get("maxProperties")
    if isinstance(max_properties, int) and len(value) > max_properties:
        problems.append(f"{where}: should have at most {max_properties} properties")
    properties = schema.get("properties") or {}
    additional = schema.get("additionalProperties")
    for name, item in value.items():
        if name in properties:
            _validate(item, properties[name], f"{where}.{name}", problems)
        elif isinstance(additional, dict):
            _validate(item, additional, f"{where}.{name}", problems)
