"""What a CRD's structural schema does to an object before it is stored.

The API server drops the fields the schema does not know (unless
`x-kubernetes-preserve-unknown-fields`), drops nulls where the schema is not
nullable, and fills in `default`s for absent fields; the root's and an
embedded resource's `apiVersion`, `kind` and `metadata` are its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from opgen.testing.memory.answers import Cause
from opgen.testing.memory.perschema import PerSchema
from opgen.testing.memory.scale import read_path
from opgen.testing.memory.store import json_copy

if TYPE_CHECKING:
    from opgen.testing.memory.kinds import Kind

__all__ = ["prune_and_default", "scale_causes"]

_INT32_MAX = 2**31 - 1
_GO_TYPES = {
    str: "string",
    bool: "bool",
    float: "float64",
    dict: "map[string]interface {}",
    list: "[]interface {}",
}

_TYPE_META = ("apiVersion", "kind", "metadata")
_SCALARS = frozenset({str, int, float, bool, type(None)})
"""Values the walk keeps as they are (most of an object's): no copy, no call."""


def prune_and_default(
    schema: Mapping[str, Any],
    obj: dict[str, Any],
    pruned: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """`obj` (a whole custom resource) as the server stores it; `obj` is not changed.

    `pruned`: an object this schema already pruned and defaulted (the stored
    one an update replaces). Pruning and defaulting again changes nothing,
    and what they do to a value depends only on its keys, its nulls and its
    lists' lengths, which equal values share: a field of `obj` equal to the
    same field of `pruned` comes out as it is, unwalked (`obj`'s own value,
    so a `1.0` or `true` where `pruned` has `1` stays for validation to see)."""
    result = _walk(schema, obj, pruned, root=True)
    assert isinstance(result, dict)
    return result


def _walk(
    schema: Mapping[str, Any], value: Any, pruned: Any, *, root: bool = False
) -> Any:
    if type(value) in _SCALARS:
        return value
    if isinstance(value, dict):
        return _object(
            schema,
            value,
            root or bool(schema.get("x-kubernetes-embedded-resource")),
            pruned if type(pruned) is dict else None,
        )
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        items = schema["items"]
        if type(pruned) is not list or len(pruned) != len(value):
            return [_walk(items, item, None) for item in value]
        return [
            item if item == before else _walk(items, item, before)
            for item, before in zip(value, pruned, strict=True)
        ]
    return json_copy(value)  # what the walk does not rebuild is copied


_ABSENT = object()


class _Facts:
    """What `_object` reads of one object schema, read once for every object
    it walks: the properties with a default above all (a wide schema's
    properties are many, its defaults few)."""

    __slots__ = ("additional", "defaults", "keep_unknown", "properties", "schema")

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.schema = schema
        """Held, so the schema's `id` (the key of `_facts`) is not reused."""
        self.properties: Mapping[str, Any] = schema.get("properties") or {}
        self.additional = schema.get("additionalProperties")
        self.keep_unknown = bool(schema.get("x-kubernetes-preserve-unknown-fields"))
        self.defaults = tuple(
            (key, child) for key, child in self.properties.items() if "default" in child
        )


_facts = PerSchema(_Facts)


def _object(
    schema: Mapping[str, Any],
    value: dict[str, Any],
    resource: bool,
    pruned: dict[str, Any] | None,
) -> dict[str, Any]:
    facts = _facts(schema)
    properties = facts.properties
    additional = facts.additional
    keep_unknown = facts.keep_unknown
    result: dict[str, Any] = {}
    for key, item in value.items():
        if resource and key in _TYPE_META:
            result[key] = json_copy(item)
            continue
        before = _ABSENT if pruned is None else pruned.get(key, _ABSENT)
        if key in properties:
            child = properties[key]
            if item is None and (not child.get("nullable") or "default" in child):
                continue
            if type(item) in _SCALARS or item == before:
                result[key] = item
            else:
                result[key] = _walk(child, item, before)
        elif isinstance(additional, Mapping):
            result[key] = item if item == before else _walk(additional, item, before)
        elif keep_unknown or additional is True:
            result[key] = item if item == before else json_copy(item)
    for key, child in facts.defaults:
        if key not in result and not (resource and key in _TYPE_META):
            result[key] = _walk(child, child["default"], None)
    return result


def scale_causes(kind: Kind, obj: dict[str, Any]) -> list[Cause]:
    """The server's check of a CRD's scale paths: each value, when set, is an
    integer from 0 to 2^31-1; the cause names the path as the CRD writes it."""
    causes = []
    for path in kind.scale_paths:
        value = read_path(obj, path)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            go_type = _GO_TYPES.get(type(value), type(value).__name__)
            message = (
                f"Invalid value: 0: {path} accessor error: {value} is of the type "
                f"{go_type}, expected int64"
            )
        elif value < 0:
            message = f"Invalid value: {value}: should be a non-negative integer"
        elif value > _INT32_MAX:
            message = (
                f"Invalid value: {value}: should be less than or equal to {_INT32_MAX}"
            )
        else:
            continue
        causes.append(Cause(path, "FieldValueInvalid", message))
    return causes
