"""Random objects for a CRD schema: valid ones, and ones that break a constraint.

`ObjectMaker` walks a structural schema and draws a wire value for every node
from a Hypothesis `DataObject`, so examples are reproducible and shrinkable.
In `breaking` mode each constraint the node declares (bounds, lengths,
patterns, enums, formats, item and property counts, uniqueness of sets and
map-list keys, required fields, int32 ranges, one-of groups) is broken with a
small probability; every break is recorded. CEL rules are Python's blind spot:
with `repairs` (rule text → repair) each rule is satisfied after its node is
drawn and a rule without a repair is an error; without, they are left alone
(a model that checks a rule in Python refuses what breaks it).
`body_for` draws a whole custom resource.

opgen's own proof tests (tests/proof) and `assert_round_trips`
(opgen.testing.conversion) draw from here.
"""

from __future__ import annotations

import base64
import datetime
import math
import re
import string
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from hypothesis import strategies as st

from opgen.engine.duration import DURATION_PATTERN
from opgen.engine.openapi import CHECKED_FORMATS
from opgen.testing.sampling_regex import matching_text

__all__ = [
    "UNCHECKED_FORMAT_SAMPLES",
    "Node",
    "ObjectMaker",
    "Repair",
    "apply_repairs",
    "body_for",
    "one_of_group",
    "scale_replica_paths",
]

T = TypeVar("T")
Node = dict[str, Any]
Repair = Callable[[Node, Any], Any]

_ASCII = st.characters(min_codepoint=32, max_codepoint=126)
_CONTROL = st.sampled_from("\t\n\x0b")
_PATTERN_BREAKER = st.one_of(_ASCII, _CONTROL)
"""Text that may break a pattern: ASCII (see docs/testing.md, the supported subset)."""
_TEXT = st.one_of(_ASCII, _CONTROL, st.sampled_from("é漢ß"))
_KEY = st.text(string.ascii_lowercase + string.digits + "-._", min_size=1, max_size=8)
_INT64 = (-(2**63), 2**63 - 1)
_INT32 = (-(2**31), 2**31 - 1)
_FLOAT_LIMIT = 1e12
_MAX_LENGTH = 24
_MAX_ITEMS = 4
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(_ASCII, max_size=6),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(_KEY, inner, max_size=3),
    max_leaves=6,
)
_DATE_TIME = st.builds(
    lambda moment, separator, fraction, zone: moment.strftime("%Y-%m-%d").zfill(10)
    + separator
    + moment.strftime("%H:%M:%S")
    + fraction
    + zone,
    st.datetimes(
        min_value=datetime.datetime(1, 1, 1), max_value=datetime.datetime(9999, 12, 31)
    ),
    st.sampled_from("Tt"),
    st.sampled_from(["", ".5", ".123456", ".123456789"]),
    st.sampled_from(["Z", "z", "+02:00", "-05:30", "+00:00"]),
)
"""RFC 3339 in the variants the API server accepts."""
_BAD_DATE_TIMES = st.sampled_from(
    [
        "soon",
        "2024-05-01",
        "2024-05-01T12:00:00",
        "2024-05-01 12:00:00Z",
        "2024-13-01T00:00:00Z",
        "2024-02-30T00:00:00Z",
        "2024-05-01T25:00:00Z",
        "2024-05-01T12:00:60Z",
        "2024-05-01T12:00Z",
    ]
)
_DURATION = st.builds(
    lambda sign, parts: sign + "".join(parts) if parts else "0",
    st.sampled_from(["", "-", "+"]),
    st.lists(
        st.builds(
            lambda number, unit: f"{number}{unit}",
            st.sampled_from(["0", "1", "1.5", ".5", "90", "2."]),
            st.sampled_from(["ns", "us", "µs", "ms", "s", "m", "h"]),
        ),
        max_size=3,
    ),
)
_CHECKED_FORMAT_VALUES: dict[str, st.SearchStrategy[str]] = {
    "byte": st.binary(min_size=1, max_size=9).map(
        lambda data: base64.b64encode(data).decode()
    ),
    "date": st.dates(datetime.date(1, 1, 1)).map(lambda day: day.isoformat().zfill(10)),
    "duration": st.one_of(
        st.sampled_from(["1h", "90s", "1.5h", "3 days", "2 weeks", "5 mins"])
    ),
    "ipv4": st.ip_addresses(v=4).map(str),
    "ipv6": st.ip_addresses(v=6).map(str),
    "uuid": st.uuids().map(str),
    "uuid3": st.builds(uuid.uuid3, st.uuids(), st.text(max_size=5)).map(str),
    "uuid4": st.uuids(version=4).map(str),
    "uuid5": st.builds(uuid.uuid5, st.uuids(), st.text(max_size=5)).map(str),
    "k8sshortname": st.from_regex(r"\A[a-z0-9]([-a-z0-9]{0,8}[a-z0-9])?\Z"),
    "k8slongname": st.from_regex(
        r"\A[a-z0-9]([-a-z0-9]{0,8}[a-z0-9])?(\.[a-z0-9]{1,5})?\Z"
    ),
    "password": st.text(_ASCII, max_size=8),
}
"""Valid values for the string formats Python checks."""
UNCHECKED_FORMAT_SAMPLES: dict[str, tuple[str, ...]] = {
    "uri": ("https://example.com/a?b=c", "/healthz", "urn:isbn:0451450523"),
    "email": ("someone@example.com",),
    "hostname": ("example.com", "node-1"),
    "cidr": ("10.0.0.0/8", "fd00::/64"),
    "mac": ("00:11:22:33:44:55",),
    "isbn": ("0321751043",),
    "isbn10": ("0321751043",),
    "isbn13": ("978-0321751041",),
    "creditcard": ("4111111111111111",),
    "ssn": ("123-45-6789",),
    "hexcolor": ("#ffffff",),
    "rgbcolor": ("rgb(1,2,3)",),
    "bsonobjectid": ("507f1f77bcf86cd799439011",),
}
"""Valid values for the string formats Python does not check (outside the subset)."""


@dataclass
class ObjectMaker:
    """Draws wire values for schema nodes; `breaks` says what was broken where."""

    data: st.DataObject
    breaking: bool
    rate: int = 20
    """Per constraint, the chance in percent of breaking it (in breaking mode)."""
    required_rate: int = 4
    """The same for leaving out a required field (objects have many of them)."""
    omit: frozenset[str] = frozenset()
    """Optional fields never drawn (outside the supported subset)."""
    always: frozenset[str] = frozenset()
    """Optional fields always drawn."""
    keep: frozenset[str] = frozenset()
    """`path: constraint` pairs never broken (`path: null`: never null)."""
    fixed: dict[str, Any] = field(default_factory=dict)
    """Fields always given this value."""
    repairs: Mapping[str, Repair] | None = None
    """How to satisfy each CEL rule (None: rules are left alone)."""
    int32: frozenset[str] = frozenset()
    """Integer fields held to int32 without saying so in their schema (the scale
    subresource's replica paths: `scale_replica_paths`)."""
    breaks: list[str] = field(default_factory=list)

    def repair(self, node: Node, value: Any) -> Any:
        """`value` with `node`'s CEL rules satisfied by `repairs`, when given."""
        if self.repairs is None:
            return value
        return apply_repairs(self.repairs, node, value)

    def _draw(self, strategy: st.SearchStrategy[T]) -> T:
        return self.data.draw(strategy)

    def _break(self, path: str, what: str) -> bool:
        if not self.breaking or f"{_generic(path)}: {what}" in self.keep:
            return False
        rate = self.required_rate if what == "required" else self.rate
        if self._draw(st.integers(0, 99)) >= rate:
            return False
        self.breaks.append(f"{path}: {what}")
        return True

    def _one_of(self, node: Node, path: str, value: dict[str, Any]) -> dict[str, Any]:
        """`value` with each one-of group of `node` (op.ExactlyOneOf, AtMostOneOf,
        AtLeastOneOf) satisfied, unless this draw breaks it."""
        properties: dict[str, Node] = node.get("properties") or {}
        for rule in node.get("x-kubernetes-validations") or []:
            group = one_of_group(str(rule.get("rule", "")))
            if group is None:
                continue
            names, at_least, at_most = group
            present = [name for name in names if name in value]
            if at_most and len(present) > 1 and not self._break(path, "oneOf"):
                value = {k: v for k, v in value.items() if k not in present[1:]}
            elif at_least and not present and not self._break(path, "oneOf"):
                first = names[0]
                value = {
                    **value,
                    first: self.value(properties[first], f"{path}.{first}"),
                }
        return value

    def value(self, node: Node, path: str) -> Any:
        if _generic(path) in self.fixed:
            return self.fixed[_generic(path)]
        if "enum" in node:
            value = self._enum(node, path)
        elif node.get("x-kubernetes-int-or-string"):
            value = self._int_or_string(node, path)
        else:
            kind = node.get("type")
            if kind == "object" or (kind is None and node.get("properties")):
                value = self._one_of(node, path, self._object(node, path))
            elif kind == "array":
                value = self._array(node, path)
            elif kind == "string":
                value = self._string(node, path)
            elif kind == "integer":
                value = self._integer(node, path)
            elif kind == "number":
                value = self._number(node, path)
            elif kind == "boolean":
                value = self._draw(st.booleans())
            else:
                value = self._draw(_JSON)
        if (
            node.get("nullable")
            and f"{_generic(path)}: null" not in self.keep
            and self._draw(st.integers(0, 9)) == 0
        ):
            return None
        return self.repair(node, value)

    # --- scalars -------------------------------------------------------------

    def _enum(self, node: Node, path: str) -> Any:
        values = node["enum"]
        if self._break(path, "enum"):
            if all(isinstance(v, str) for v in values):
                return self._draw(
                    st.text(_ASCII, max_size=6).filter(lambda t: t not in values)
                )
            return self._draw(st.integers(-5, 50).filter(lambda n: n not in values))
        return self._draw(st.sampled_from(values))

    def _int_or_string(self, node: Node, path: str) -> Any:
        if node.get("pattern"):  # a quantity: numbers, or strings matching it
            if self._draw(st.booleans()):
                return self._draw(st.integers(0, 10**6))
            return self._string(node, path)
        if self._draw(st.booleans()):
            return self._draw(st.integers(-(10**6), 10**6))
        return self._string(node, path)

    def _string(self, node: Node, path: str) -> str:
        low = int(node.get("minLength", 0))
        high = min(int(node.get("maxLength", low + _MAX_LENGTH)), low + _MAX_LENGTH)
        if "maxLength" in node and self._break(path, "maxLength"):
            return "x" * (int(node["maxLength"]) + self._draw(st.integers(1, 3)))
        if low > 0 and self._break(path, "minLength"):
            return self._draw(st.text(_ASCII, max_size=low - 1))
        pattern = node.get("pattern")
        if pattern and self._break(path, "pattern"):
            return self._draw(st.text(_PATTERN_BREAKER, min_size=low, max_size=high))
        fmt = str(node.get("format", "")).replace("-", "")
        if fmt in UNCHECKED_FORMAT_SAMPLES:
            return str(self._draw(st.sampled_from(UNCHECKED_FORMAT_SAMPLES[fmt])))
        if fmt == "datetime":
            if self._break(path, "format"):
                return str(self._draw(_BAD_DATE_TIMES))
            return str(self._draw(_DATE_TIME))
        if fmt in CHECKED_FORMATS and fmt != "password":
            if self._break(path, "format"):
                return str(self._draw(st.text(_ASCII, max_size=6)))
            return str(self._draw(_CHECKED_FORMAT_VALUES[fmt]))
        if pattern == DURATION_PATTERN:
            return str(self._draw(_DURATION))
        if pattern:
            matching = matching_text(pattern)
            return str(
                self._draw(matching.filter(lambda text: low <= len(text) <= high))
            )
        alphabet = _TEXT if not fmt else _ASCII
        return str(self._draw(st.text(alphabet, min_size=low, max_size=high)))

    def _bounds(self, node: Node, low: float, high: float) -> tuple[float, float]:
        if "minimum" in node:
            low = max(low, node["minimum"])
        if "maximum" in node:
            high = min(high, node["maximum"])
        return low, high

    def _integer(self, node: Node, path: str) -> int:
        limits = (
            _INT32
            if node.get("format") == "int32" or _generic(path) in self.int32
            else _INT64
        )
        if node.get("format") == "int32" and self._break(path, "int32"):
            return int(self._draw(st.sampled_from([2**31, -(2**31) - 1, 2**40])))
        low_f, high_f = self._bounds(node, limits[0], limits[1])
        low, high = math.ceil(low_f), math.floor(high_f)
        if node.get("exclusiveMinimum") and low == node.get("minimum"):
            low += 1
        if node.get("exclusiveMaximum") and high == node.get("maximum"):
            high -= 1
        if "minimum" in node and self._break(path, "minimum"):
            return int(low) - self._draw(st.integers(1, 3))
        if "maximum" in node and self._break(path, "maximum"):
            return int(high) + self._draw(st.integers(1, 3))
        step = node.get("multipleOf")
        if step:
            step = int(step)
            if self._break(path, "multipleOf"):
                return step * self._draw(st.integers(-20, 20)) + 1
            return step * int(self._draw(st.integers(-(low // -step), high // step)))
        return int(self._draw(st.integers(low, high)))

    def _number(self, node: Node, path: str) -> float:
        low, high = self._bounds(node, -_FLOAT_LIMIT, _FLOAT_LIMIT)
        exclusive_low = bool(node.get("exclusiveMinimum")) and low == node.get(
            "minimum"
        )
        exclusive_high = bool(node.get("exclusiveMaximum")) and high == node.get(
            "maximum"
        )
        if "minimum" in node and self._break(path, "minimum"):
            return float(low) - self._draw(st.sampled_from([0.5, 1.0, 100.0]))
        if "maximum" in node and self._break(path, "maximum"):
            return float(high) + self._draw(st.sampled_from([0.5, 1.0, 100.0]))
        step = node.get("multipleOf")
        if step:
            factor = self._draw(st.integers(-40, 40))
            if self._break(path, "multipleOf"):
                return float(factor * step + step / 2)
            candidate = float(factor * step)
            if low <= candidate <= high:
                return candidate
            return float(math.ceil(low / step) * step)
        return float(
            self._draw(
                st.floats(
                    low,
                    high,
                    allow_nan=False,
                    allow_infinity=False,
                    exclude_min=exclusive_low,
                    exclude_max=exclusive_high,
                )
            )
        )

    # --- collections ---------------------------------------------------------

    def _array(self, node: Node, path: str) -> list[Any]:
        items = node.get("items") or {}
        low = int(node.get("minItems", 0))
        high = min(int(node.get("maxItems", low + _MAX_ITEMS)), low + _MAX_ITEMS)
        count = self._draw(st.integers(low, max(low, high)))
        if low > 0 and self._break(path, "minItems"):
            count = low - 1
        elif "maxItems" in node and self._break(path, "maxItems"):
            count = int(node["maxItems"]) + 1
        values: list[Any] = []
        list_type = node.get("x-kubernetes-list-type")
        keys = node.get("x-kubernetes-list-map-keys") or []
        seen: list[Any] = []
        attempts = 0
        while len(values) < count and attempts < count * 6:
            attempts += 1
            item = self.value(items, f"{path}[{len(values)}]")
            identity = _identity(item, list_type, keys)
            if identity is not None and identity in seen:
                continue
            if identity is not None:
                seen.append(identity)
            values.append(item)
        if list_type in ("set", "map") and values and self._break(path, "duplicate"):
            values.append(values[0])
        return values

    def _object(self, node: Node, path: str) -> dict[str, Any]:
        properties: dict[str, Node] = node.get("properties") or {}
        required = set(node.get("required") or ())
        result: dict[str, Any] = {}
        for name, child in properties.items():
            child_path = f"{path}.{name}"
            generic = _generic(child_path)
            if generic in self.omit:
                continue
            if name in required:
                if self._break(child_path, "required"):
                    continue
            elif generic not in self.always and not self._draw(st.booleans()):
                continue
            result[name] = self.value(child, child_path)
        additional = node.get("additionalProperties")
        if isinstance(additional, dict):
            low = int(node.get("minProperties", 0))
            high = min(int(node.get("maxProperties", low + 3)), low + 3)
            count = self._draw(st.integers(low, max(low, high)))
            if low > 0 and self._break(path, "minProperties"):
                count = low - 1
            elif "maxProperties" in node and self._break(path, "maxProperties"):
                count = int(node["maxProperties"]) + 1
            keys = self._draw(
                st.lists(_KEY, min_size=count, max_size=count, unique=True)
            )
            for key in keys:
                value = self.value(additional, f"{path}[{key}]")
                if value is None and not additional.get("nullable"):
                    # The server prunes a null map value; the models keep it
                    # (docs/testing.md: outside the property test's subset).
                    continue
                result[key] = value
        elif node.get("x-kubernetes-preserve-unknown-fields") and not properties:
            result.update(self._draw(st.dictionaries(_KEY, _JSON, max_size=3)))
        elif (
            properties
            and "minProperties" in node
            and self._break(path, "minProperties")
        ):
            return {}
        if node.get("x-kubernetes-embedded-resource"):
            result.setdefault("apiVersion", "v1")
            result.setdefault("kind", "ConfigMap")
            result.setdefault("metadata", {"name": "embedded"})
        return result


def _generic(path: str) -> str:
    """`spec.groups[2].name` → `spec.groups[*].name` (how overrides name paths)."""
    return re.sub(r"\[[^\]]*\]", "[*]", path)


def _identity(item: Any, list_type: Any, keys: list[str]) -> Any:
    if list_type == "set":
        return item
    if list_type == "map" and isinstance(item, dict):
        return [item.get(key) for key in keys]
    return None


# --- CEL rules Python does not evaluate -----------------------------------------

_ONE_OF = re.compile(
    r"^\(has\(self\.\w+\)\?1:0\)(\+\(has\(self\.\w+\)\?1:0\))+ (<=|==) 1$|^has\(self\.\w+\)(\|\|has\(self\.\w+\))+$"
)
_HAS = re.compile(r"has\(self\.(\w+)\)")


def one_of_group(rule: str) -> tuple[list[str], bool, bool] | None:
    """The fields of an op.*OneOf rule, whether at least one and whether at most
    one must be set; None for any other rule."""
    if not _ONE_OF.match(rule):
        return None
    names = _HAS.findall(rule)
    if "||" in rule:
        return names, True, False
    return names, rule.endswith("== 1"), True


def scale_replica_paths(version: Mapping[str, Any]) -> frozenset[str]:
    """The wire paths a CRD version's scale subresource reads replicas from
    (`spec.replicas`): the server holds them to int32 whatever their schema says."""
    scale = (version.get("subresources") or {}).get("scale") or {}
    paths = (scale.get(key) for key in ("specReplicasPath", "statusReplicasPath"))
    return frozenset(path.lstrip(".") for path in paths if path)


def apply_repairs(repairs: Mapping[str, Repair], node: Node, value: Any) -> Any:
    """`value` after the repair of each CEL rule of `node` (KeyError: a rule without
    one). Transition rules (not evaluated on create) and one-of rules (Python
    enforces them) need none."""
    for rule in node.get("x-kubernetes-validations") or []:
        text = rule["rule"]
        if "oldSelf" in text and not rule.get("optionalOldSelf"):
            continue  # transition rules are not evaluated on create
        if _ONE_OF.match(text):
            continue  # op.*OneOf: Python enforces these
        repair = repairs.get(text)
        if repair is None:
            raise KeyError(f"no repair for the CEL rule {text!r}")
        value = repair(node, value)
    return value


def body_for(
    maker: ObjectMaker,
    schema: Node,
    *,
    api_version: str,
    kind: str,
    name: str,
    skip: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """A whole custom resource: apiVersion, kind, metadata.name and drawn fields."""
    body: dict[str, Any] = {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": name},
    }
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    for field_name, node in properties.items():
        if field_name in ("apiVersion", "kind", "metadata") or field_name in skip:
            continue
        if field_name not in required and not maker.data.draw(st.booleans()):
            continue
        body[field_name] = maker.value(node, field_name)
    repaired: dict[str, Any] = maker.repair(schema, body)
    return repaired
