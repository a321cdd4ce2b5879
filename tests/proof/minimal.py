"""Deterministic objects for a CRD schema: the smallest valid one, and one per broken constraint.

`minimal(node)` builds the smallest value a node accepts (required fields
only, the lower bounds, the shortest string a pattern matches). `violations`
walks the schema from such a valid object and, for every constraint the CRD
declares, returns a body that breaks exactly that constraint together with
the field path and the message fragment the API server must report: the
contract "rejected with the field path and message the CRD declares".
"""

from __future__ import annotations

import copy
import functools
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, find, settings

from opgen.engine.duration import DURATION_PATTERN
from opgen.engine.goregex import go_regex
from opgen.testing.sampling_regex import matching_text
from tests.proof.values import UNCHECKED_FORMAT_SAMPLES, repair_cel

__all__ = ["Violation", "minimal", "violations"]

Node = dict[str, Any]
Setter = Callable[[Any], dict[str, Any]]


@functools.cache
def _shortest_match(pattern: str, low: int, high: int) -> str:
    """The smallest string (Hypothesis' shrinking order) matching a Go pattern."""
    if pattern == DURATION_PATTERN:
        return "1s"
    strategy = matching_text(pattern)
    found: str = find(
        strategy,
        lambda text: low <= len(text) <= high,
        settings=settings(
            database=None, derandomize=True, suppress_health_check=list(HealthCheck)
        ),
    )
    return found


def _number_in(node: Node, *, integer: bool) -> float:
    low = node.get("minimum", -math.inf)
    high = node.get("maximum", math.inf)
    value: float = min(max(0, low), high)
    if node.get("exclusiveMinimum") and value <= low:
        value = low + 1 if integer else low + 0.5
    if node.get("exclusiveMaximum") and value >= high:
        value = high - 1 if integer else high - 0.5
    step = node.get("multipleOf")
    if step:
        value = math.ceil(value / step) * step
    return int(value) if integer else float(value)


def minimal(node: Node) -> Any:
    """The smallest value `node` accepts (CEL rules Python does not check repaired)."""
    return repair_cel(node, _minimal(node))


def _minimal(node: Node) -> Any:
    if "enum" in node:
        return node["enum"][0]
    kind = node.get("type")
    if node.get("x-kubernetes-int-or-string"):
        return _string(node) if node.get("pattern") else 1
    if kind == "string":
        return _string(node)
    if kind == "integer":
        return _number_in(node, integer=True)
    if kind == "number":
        return _number_in(node, integer=False)
    if kind == "boolean":
        return False
    if kind == "array":
        count = int(node.get("minItems", 0))
        return [minimal(node["items"]) for _ in range(count)]
    if kind == "object" or node.get("properties"):
        result: dict[str, Any] = {}
        properties = node.get("properties") or {}
        for name in node.get("required") or []:
            result[name] = minimal(properties[name])
        for name in _one_of_first_members(node):
            result.setdefault(name, minimal(properties[name]))
        for name in properties:  # minProperties on a model: add optional fields
            if len(result) >= int(node.get("minProperties", 0)):
                break
            result.setdefault(name, minimal(properties[name]))
        additional = node.get("additionalProperties")
        if isinstance(additional, dict):
            for position in range(int(node.get("minProperties", 0))):
                result[f"k{position}"] = minimal(additional)
        if node.get("x-kubernetes-embedded-resource"):
            result.update(apiVersion="v1", kind="ConfigMap", metadata={"name": "e"})
        return result
    return {}


_GROUP = re.compile(r"has\(self\.(\w+)\)")


def _one_of_first_members(node: Node) -> list[str]:
    """For each ExactlyOneOf/AtLeastOneOf rule, the first member (set it)."""
    members = []
    for rule in node.get("x-kubernetes-validations") or []:
        text = rule["rule"]
        if text.endswith("== 1") or ("||" in text and text.startswith("has(")):
            found = _GROUP.findall(text)
            if found:
                members.append(found[0])
    return members


def _string(node: Node) -> str:
    low = int(node.get("minLength", 0))
    high = int(node.get("maxLength", low + 64))
    fmt = str(node.get("format", "")).replace("-", "")
    if fmt in UNCHECKED_FORMAT_SAMPLES:
        return UNCHECKED_FORMAT_SAMPLES[fmt][0]
    if fmt == "datetime":
        return "2024-05-01T12:00:00Z"
    if fmt == "byte":
        return "aGk="
    if node.get("pattern"):
        return _shortest_match(str(node["pattern"]), low, high)
    return "x" * max(low, 1 if high > 0 else 0)


@dataclass(frozen=True)
class Violation:
    """A body that breaks one constraint, and what the server must say about it."""

    constraint: str
    path: str
    """The JSON path of the broken field, as the server writes `cause.field`."""
    fragment: str
    """Text the server's message for that field must contain."""
    body: dict[str, Any]
    field: str | None = None
    """The cause's field when the server names another one (int32: `<nil>`)."""

    def __str__(self) -> str:
        return f"{self.path}: {self.constraint}"


def _number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


def _put(container: Any, key: Any, value: Any) -> Any:
    result = copy.deepcopy(container)
    result[key] = value
    return result


def _set_in(setter: Setter, container: Any, key: Any, value: Any) -> dict[str, Any]:
    return setter(_put(container, key, value))


def violations(
    schema: Node, base: dict[str, Any], skip: frozenset[str] = frozenset()
) -> list[Violation]:
    """One violation per constraint of `schema`, starting from the valid `base`."""
    found: list[Violation] = []
    for name, node in (schema.get("properties") or {}).items():
        if name in ("apiVersion", "kind", "metadata") or name in skip:
            continue
        current = base.get(name, minimal(node))
        found.extend(
            _walk(
                node,
                current,
                name,
                functools.partial(_put, base, name),
                skip,
            )
        )
    return found


def _walk(
    node: Node, current: Any, path: str, setter: Setter, skip: frozenset[str]
) -> Iterator[Violation]:
    yield from _own(node, current, path, setter)
    if node.get("type") == "object" or node.get("properties"):
        properties: dict[str, Node] = node.get("properties") or {}
        obj = current if isinstance(current, dict) else {}
        for name, child in properties.items():
            child_path = f"{path}.{name}"
            if child_path in skip or child.get("x-kubernetes-preserve-unknown-fields"):
                continue
            yield from _walk(
                child,
                obj.get(name, minimal(child)),
                child_path,
                functools.partial(_set_in, setter, obj, name),
                skip,
            )
        additional = node.get("additionalProperties")
        if isinstance(additional, dict) and "maxProperties" not in node:
            yield from _walk(
                additional,
                minimal(additional),
                f"{path}.k",  # the server writes map keys as fields
                lambda value: setter(_put(obj, "k", value)),
                skip,
            )
    items = node.get("items")
    if node.get("type") == "array" and isinstance(items, dict):
        listed = current if isinstance(current, list) and current else [minimal(items)]
        if len(listed) == 1 and int(node.get("maxItems", 1)) >= 1:
            yield from _walk(
                items,
                listed[0],
                f"{path}[0]",
                lambda value: setter([value]),
                skip,
            )


def _own(node: Node, current: Any, path: str, setter: Setter) -> Iterator[Violation]:
    """Violations of the node's own keywords."""
    if "enum" in node:
        bad = "not-in-enum" if all(isinstance(v, str) for v in node["enum"]) else 987654
        yield Violation("enum", path, "Unsupported value", setter(bad))
        return
    kind = node.get("type")
    if kind in ("integer", "number"):
        yield from _numeric(node, path, setter, integer=kind == "integer")
    if kind == "string" or node.get("x-kubernetes-int-or-string"):
        yield from _textual(node, path, setter)
    if kind == "array":
        yield from _listed(node, current, path, setter)
    if kind == "object":
        yield from _keyed(node, current, path, setter)


def _numeric(
    node: Node, path: str, setter: Setter, *, integer: bool
) -> Iterator[Violation]:
    step = 1 if integer else 0.5
    if "minimum" in node:
        low = node["minimum"]
        if node.get("exclusiveMinimum"):
            yield Violation(
                "exclusiveMinimum",
                path,
                f"should be greater than {_number_text(low)}",
                setter(low),
            )
        else:
            yield Violation(
                "minimum",
                path,
                f"should be greater than or equal to {_number_text(low)}",
                setter(low - step),
            )
    if "maximum" in node:
        high = node["maximum"]
        if node.get("exclusiveMaximum"):
            yield Violation(
                "exclusiveMaximum",
                path,
                f"should be less than {_number_text(high)}",
                setter(high),
            )
        else:
            yield Violation(
                "maximum",
                path,
                f"should be less than or equal to {_number_text(high)}",
                setter(high + step),
            )
    if "multipleOf" in node:
        factor = node["multipleOf"]
        value = _number_in(node, integer=integer) + (1 if integer else factor / 2)
        if "maximum" not in node or value <= node["maximum"]:
            yield Violation(
                "multipleOf",
                path,
                f"should be a multiple of {_number_text(factor)}",
                setter(int(value) if integer else float(value)),
            )
    if node.get("format") == "int32" and "maximum" not in node:
        yield Violation(
            "int32",
            path,
            f"must be of type integer with format int32 in {path}",
            setter(2**31),
            field="<nil>",
        )


def _textual(node: Node, path: str, setter: Setter) -> Iterator[Violation]:
    if "maxLength" in node:
        count = int(node["maxLength"])
        yield Violation(
            "maxLength",
            path,
            f"may not be more than {count} bytes",
            setter("x" * (count + 1)),
        )
    if int(node.get("minLength", 0)) > 0:
        count = int(node["minLength"])
        yield Violation(
            "minLength",
            path,
            f"should be at least {count} chars long",
            setter("x" * (count - 1)),
        )
    pattern = node.get("pattern")
    if pattern:
        low = int(node.get("minLength", 1))
        high = int(node.get("maxLength", low + 8))
        candidates = (
            char * size for size in range(max(low, 1), high + 1) for char in "! \n~-"
        )
        bad = next(
            (text for text in candidates if go_regex(pattern).search(text) is None),
            None,
        )
        if bad is not None:
            yield Violation("pattern", path, f"should match '{pattern}'", setter(bad))
    fmt = str(node.get("format", "")).replace("-", "")
    if fmt == "datetime":
        yield Violation(
            "format", path, "must be of type date-time", setter("not-a-time")
        )


def _listed(node: Node, current: Any, path: str, setter: Setter) -> Iterator[Violation]:
    items = node["items"]
    if int(node.get("minItems", 0)) > 0:
        count = int(node["minItems"])
        yield Violation(
            "minItems",
            path,
            f"should have at least {count} items",
            setter([minimal(items) for _ in range(count - 1)]),
        )
    list_type = node.get("x-kubernetes-list-type")
    if "maxItems" in node and list_type not in ("set", "map"):
        count = int(node["maxItems"])
        yield Violation(
            "maxItems",
            path,
            f"must have at most {count} items",
            setter([minimal(items) for _ in range(count + 1)]),
        )
    if list_type in ("set", "map") and int(node.get("maxItems", 2)) >= 2:
        item = minimal(items)
        yield Violation(
            f"{list_type} duplicate",
            f"{path}[1]",
            "Duplicate value",
            setter([item, item]),
        )


def _keyed(node: Node, current: Any, path: str, setter: Setter) -> Iterator[Violation]:
    properties: dict[str, Node] = node.get("properties") or {}
    obj = current if isinstance(current, dict) else {}
    for name in node.get("required") or []:
        if "default" in properties.get(name, {}):
            continue  # the server fills it in before it checks `required`
        missing = {key: value for key, value in obj.items() if key != name}
        yield Violation("required", f"{path}.{name}", "Required value", setter(missing))
    additional = node.get("additionalProperties")
    if not isinstance(additional, dict):
        return
    if int(node.get("minProperties", 0)) > 0:
        count = int(node["minProperties"])
        yield Violation(
            "minProperties",
            path,
            f"should have at least {count} properties",
            setter({f"k{i}": minimal(additional) for i in range(count - 1)}),
        )
    if "maxProperties" in node:
        count = int(node["maxProperties"])
        yield Violation(
            "maxProperties",
            path,
            f"must have at most {count} items",
            setter({f"k{i}": minimal(additional) for i in range(count + 1)}),
        )
