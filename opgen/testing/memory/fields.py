"""Field sets as server-side apply sees them: paths into an object, typed by its schema.

A path is a tuple of `fieldsV1` elements: `f:<field>` for a field or map
key, `k:<json of the key fields>` for an item of a list of type `map`,
`v:<json>` for an item of a list of type `set`. How a value is walked
follows the schema: objects with `properties` are structs, objects with
`additionalProperties` are maps, arrays are atomic unless
`x-kubernetes-list-type` says `map` or `set`, and `x-kubernetes-map-type:
atomic` makes an object one field. A built-in of `op.k8s` has the schema
`builtin_schema` derives from its model: structs, maps and atomic lists (its
Go patch-merge keys and list types are not known here). `metadata` has
ObjectMeta's own shape.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from opgen.testing.memory.perschema import PerSchema
from opgen.testing.memory.store import json_copy

__all__ = [
    "GO_STRUCT",
    "Path",
    "from_fields_v1",
    "members",
    "merge",
    "numeric_problem",
    "path_text",
    "remove",
    "to_fields_v1",
    "without_equal",
]

Path = tuple[str, ...]

_STRING_MAP = {"type": "object", "additionalProperties": {"type": "string"}}
_OBJECT_META: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "labels": _STRING_MAP,
        "annotations": _STRING_MAP,
        "finalizers": {
            "type": "array",
            "items": {"type": "string"},
            "x-kubernetes-list-type": "set",
        },
        "ownerReferences": {
            "type": "array",
            # an OwnerReference is an atomic struct: its item is one field
            "items": {"type": "object", "x-kubernetes-map-type": "atomic"},
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["uid"],
        },
    },
}


def _shape(schema: Mapping[str, Any] | None, value: Any) -> str:
    if schema is None:
        return "struct" if isinstance(value, dict) else "leaf"
    if isinstance(value, dict):
        if schema.get("x-kubernetes-map-type") == "atomic":
            return "leaf"
        if isinstance(schema.get("additionalProperties"), Mapping):
            return "map"
        return "struct"
    if isinstance(value, list):
        return {"map": "listmap", "set": "set"}.get(
            str(schema.get("x-kubernetes-list-type")), "leaf"
        )
    return "leaf"


GO_STRUCT = "x-opgen-go-struct"
"""Marks a built-in's struct: an update that adds one does not record it
(a custom resource's object is recorded)."""


def _go_struct(schema: Mapping[str, Any] | None) -> bool:
    return schema is not None and bool(schema.get(GO_STRUCT))


def _child(
    schema: Mapping[str, Any] | None, key: str, root: bool
) -> tuple[Mapping[str, Any] | None, bool]:
    """The schema of field `key` and whether it is a known field (not a map key)."""
    if root and key == "metadata":
        return _OBJECT_META, True
    if schema is None:
        return None, True
    properties = schema.get("properties") or {}
    if key in properties:
        return properties[key], True
    additional = schema.get("additionalProperties")
    if isinstance(additional, Mapping):
        return additional, False
    return None, False


def _key_element(schema: Mapping[str, Any], item: Any) -> str:
    """An item's `k:` element: its key fields, an absent one at its default."""
    keys = schema.get("x-kubernetes-list-map-keys") or []
    fields = (schema.get("items") or {}).get("properties") or {}
    named = {}
    for key in keys:
        if isinstance(item, dict) and key in item:
            named[key] = item[key]
        elif "default" in (fields.get(key) or {}):
            named[key] = fields[key]["default"]
    return "k:" + json.dumps(named, sort_keys=True, separators=(",", ":"))


def _value_element(item: Any) -> str:
    return "v:" + json.dumps(item, sort_keys=True, separators=(",", ":"))


def members(
    obj: dict[str, Any], schema: Mapping[str, Any] | None, *, every_node: bool = False
) -> dict[Path, Any]:
    """The fields `obj` sets, each with its value: an apply's field set. With
    `every_node`, every struct, map and list is a field too, as an update sees
    them (one it adds is recorded as its manager's).

    Each top-level field's paths are its own (a walk of the object is one of
    each of its fields) and, but for `metadata`'s, worked out once for values
    of equal bytes: a test writes the same objects again and again (a
    reconciler applies the same configuration each pass), in namespaces and
    under names and owners (metadata) of its own. The values are then an
    equal object's: only to compare."""
    found: dict[Path, Any] = {}
    for key, value in obj.items():
        if key == "metadata" or not isinstance(value, dict | list) or not value:
            _visit(schema, {key: value}, (), found, every_node, root=True)
            continue
        found.update(_field_members(schema, key, value, every_node))
    return found


_MEMBERS: dict[
    tuple[int, str, bool, bytes], tuple[Mapping[str, Any] | None, dict[Path, Any]]
] = {}
"""`members` of one top-level field, by the schema's `id` (the schema is held,
so its `id` is not reused), the field, `every_node` and the value's bytes."""
_MOST_MEMBERS = 4096
"""Entries `_MEMBERS` holds at most (emptied when full: values that do not recur)."""


def _field_members(
    schema: Mapping[str, Any] | None, key: str, value: Any, every_node: bool
) -> dict[Path, Any]:
    try:
        encoded = msgspec.json.encode(value)
    except (TypeError, ValueError):
        found: dict[Path, Any] = {}
        _visit(schema, {key: value}, (), found, every_node, root=True)
        return found
    remembered = (id(schema), key, every_node, encoded)
    known = _MEMBERS.get(remembered)
    if known is None or known[0] is not schema:
        if len(_MEMBERS) >= _MOST_MEMBERS:
            _MEMBERS.clear()
        found = {}
        _visit(schema, {key: value}, (), found, every_node, root=True)
        known = _MEMBERS[remembered] = (schema, found)
    return known[1]


def without_equal(
    schema: Mapping[str, Any] | None, old: Any, new: Any, *, root: bool = False
) -> tuple[Any, Any]:
    """`old` and `new` with each field of a struct or map equal in both (compared
    whole, in C) made None in both: walked by `members`, it gives the same path
    with the same value on both sides, so the paths that differ are the same as
    the whole objects', and a struct or map stays a parent of its fields. What a
    write changes is small beside a pod template, which is then not walked."""
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return old, new
    if _shape(schema, new) not in ("struct", "map"):
        return old, new
    old_part: dict[str, Any] = {}
    new_part: dict[str, Any] = {}
    for key, value in old.items():
        if key not in new:
            old_part[key] = value
            continue
        other = new[key]
        if value == other:
            old_part[key] = new_part[key] = None
        else:
            child, _ = _child(schema, key, root)
            old_part[key], new_part[key] = without_equal(child, value, other)
    for key, other in new.items():
        if key not in old:
            new_part[key] = other
    return old_part, new_part


class _Node:
    """What `_visit` reads of one schema, read once for every value it walks."""

    __slots__ = (
        "additional",
        "atomic",
        "go_struct",
        "items",
        "list_type",
        "properties",
        "schema",
    )

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.schema = schema
        """Held, so the schema's `id` (the key of `_NODES`) is not reused."""
        self.atomic = schema.get("x-kubernetes-map-type") == "atomic"
        additional = schema.get("additionalProperties")
        self.additional = additional if isinstance(additional, Mapping) else None
        self.properties: Mapping[str, Any] = schema.get("properties") or {}
        self.go_struct = bool(schema.get(GO_STRUCT))
        self.list_type = {"map": "listmap", "set": "set"}.get(
            str(schema.get("x-kubernetes-list-type")), "leaf"
        )
        self.items = schema.get("items")


_node = PerSchema(_Node)
_NODES = _node.held


def _visit(
    schema: Mapping[str, Any] | None,
    value: Any,
    path: Path,
    found: dict[Path, Any],
    every_node: bool,
    *,
    root: bool = False,
) -> None:
    # `_shape` and `_child`, with what they read of a schema read once (`_Node`;
    # `_node` inlined: every node of every walk asks)
    node = None
    if schema is not None:
        node = _NODES.get(id(schema))
        if node is None or node.schema is not schema:
            node = _node(schema)
    if isinstance(value, dict) and (node is None or not node.atomic):
        if (
            every_node
            and path
            and (node is None or not node.go_struct or node.additional is not None)
        ):
            found[path] = value
        if not value and path:
            found[path] = value
            return
        properties = None if node is None else node.properties
        additional = None if node is None else node.additional
        for key, child in value.items():
            if root and key == "metadata":
                child_schema: Mapping[str, Any] | None = _OBJECT_META
                known = True
            elif properties is None:
                child_schema, known = None, True
            elif key in properties:
                child_schema, known = properties[key], True
            else:
                child_schema, known = additional, False
            child_path = (*path, "f:" + key)
            if isinstance(child, dict | list):
                _visit(child_schema, child, child_path, found, every_node)
            else:  # a scalar is a leaf whatever its schema: `_visit`'s last case
                found[child_path] = child
            if child is None or child == {} or not known:
                found[child_path] = child
        return
    if node is None or not isinstance(value, list) or node.list_type == "leaf":
        found[path] = value
        return
    if every_node and path:
        found[path] = value
    items = node.items
    listmap = node.list_type == "listmap"
    for item in value:
        if listmap:
            item_path = (*path, _key_element(node.schema, item))
            _visit(items, item, item_path, found, every_node)
        else:
            item_path = (*path, _value_element(item))
        found[item_path] = item


def merge(schema: Mapping[str, Any] | None, live: Any, config: Any) -> Any:
    """`config` merged into `live` as an apply merges them: structs and maps key
    by key, lists of type `map` item by item (by their keys), sets as unions,
    anything else replaced."""
    # a new value, sharing nothing with `live` or `config`: what either gives
    # is copied where it is taken, each part once (a merged part is already new)
    shape = _shape(schema, config)
    if shape in ("struct", "map") and isinstance(live, dict):
        result = {}
        for key, value in live.items():
            if key in config:
                child, _ = _child(schema, key, root=False)
                result[key] = merge(child, value, config[key])
            else:
                result[key] = json_copy(value)
        for key, value in config.items():
            if key not in live:
                result[key] = json_copy(value)
        return result
    if shape == "listmap" and isinstance(live, list) and schema is not None:
        items = schema.get("items")
        merged = list(live)
        index = {_key_element(schema, item): n for n, item in enumerate(live)}
        new: set[int] = set()
        for item in config:
            at = index.get(_key_element(schema, item))
            if at is None:
                new.add(len(merged))
                merged.append(json_copy(item))
            else:
                new.add(at)
                merged[at] = merge(items, live[at], item)
        return [item if n in new else json_copy(item) for n, item in enumerate(merged)]
    if shape == "set" and isinstance(live, list):
        return json_copy(live + [item for item in config if item not in live])
    return json_copy(config)


def remove(
    schema: Mapping[str, Any] | None, obj: dict[str, Any], paths: Iterable[Path]
) -> dict[str, Any]:
    """`obj` without the fields at `paths` (`obj` is not changed); a map or list
    the removal empties goes too."""
    result = json_copy(obj)
    for path in sorted(paths, key=len):  # an item before its key fields
        _remove_one(schema, result, path, root=True)
    return result


def _remove_one(
    schema: Mapping[str, Any] | None, value: Any, path: Path, *, root: bool = False
) -> None:
    head, rest = path[0], path[1:]
    if isinstance(value, dict) and head.startswith("f:"):
        key = head[2:]
        if key not in value:
            return
        if not rest:
            del value[key]
            return
        child, _ = _child(schema, key, root)
        _remove_one(child, value[key], rest)
        if value[key] in ({}, []):
            del value[key]
    elif isinstance(value, list) and schema is not None:
        for position, item in enumerate(value):
            element = (
                _key_element(schema, item)
                if head.startswith("k:")
                else _value_element(item)
            )
            if element != head:
                continue
            if not rest:
                del value[position]
            else:
                _remove_one(schema.get("items"), item, rest)
            return


def path_text(path: Path) -> str:
    """A path as the server's conflict causes write it: `.spec.ports[name="a"]`."""
    text = ""
    for element in path:
        kind, body = element[:2], element[2:]
        if kind == "f:":
            text += f".{body}"
        elif kind == "k:":
            named = json.loads(body)
            text += "[" + ",".join(f"{k}={json.dumps(v)}" for k, v in named.items())
            text += "]"
        elif kind == "i:":
            text += f"[{body}]"
        else:
            text += f"[={body}]"
    return text


def to_fields_v1(paths: Iterable[Path]) -> dict[str, Any]:
    """A field set as `managedFields[].fieldsV1`: a member with children says so with `.`."""
    # In sorted order a path comes before its members, and each node's
    # elements arrive sorted, "." (before every letter) first: the tree is
    # built in the order it is written, each member marked when it is made
    # and unmarked at the end if it has no member of its own.
    tree: dict[str, Any] = {}
    chosen: list[dict[str, Any]] = []
    for path in sorted(set(paths)):
        node = tree
        for element in path:
            node = node.setdefault(element, {})
        node["."] = {}
        chosen.append(node)
    for node in chosen:
        if len(node) == 1:
            del node["."]
    return tree


def from_fields_v1(tree: Mapping[str, Any], prefix: Path = ()) -> set[Path]:
    """The paths a `fieldsV1` tree holds."""
    found: set[Path] = set()
    _fields_v1_paths(tree, prefix, found)
    return found


def _fields_v1_paths(tree: Mapping[str, Any], prefix: Path, found: set[Path]) -> None:
    if prefix and (not tree or "." in tree):
        found.add(prefix)
    for element, child in tree.items():
        if element != ".":
            _fields_v1_paths(child, (*prefix, element), found)


_GO_KINDS = {str: "string", bool: "bool", dict: "map[string]interface {}"}


def numeric_problem(
    schema: Mapping[str, Any] | None, value: Any, path: Path = ()
) -> str | None:
    """Where `value` has something else than a number for a schema's integer
    or number, as the server says it when it types an apply configuration."""
    if schema is None:
        return None
    if schema.get("type") in ("integer", "number") and value is not None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            got = _GO_KINDS.get(type(value), "[]interface {}")
            return f"{path_text(path)}: expected numeric (int or float), got {got}"
        return None
    if isinstance(value, dict):
        for key, child in value.items():
            child_schema, _ = _child(schema, key, root=not path)
            found = numeric_problem(child_schema, child, (*path, f"f:{key}"))
            if found:
                return found
    elif isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        for position, item in enumerate(value):
            found = numeric_problem(schema["items"], item, (*path, f"i:{position}"))
            if found:
                return found
    return None
