"""What a write changes, found without walking the fields it leaves equal."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from opgen.testing.memory.fields import (
    GO_STRUCT,
    Path,
    from_fields_v1,
    members,
    to_fields_v1,
    without_equal,
)

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "replicas": {"type": "integer"},
                "selector": {"type": "object", "x-kubernetes-map-type": "atomic"},
                "labels": {
                    "type": "object",
                    "additionalProperties": {"type": "string"},
                },
                "tags": {
                    "type": "array",
                    "items": {"type": "string"},
                    "x-kubernetes-list-type": "set",
                },
                "args": {"type": "array", "items": {"type": "string"}},
                "ports": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string"},
                            "port": {"type": "integer"},
                            "extra": {"type": "object", "properties": {}},
                        },
                    },
                },
                "template": {
                    "type": "object",
                    GO_STRUCT: True,
                    "properties": {
                        "image": {"type": "string"},
                        "env": {"type": "object", "additionalProperties": {}},
                    },
                },
            },
        },
    },
}

_LEAVES: tuple[object, ...] = (None, 0, 1, "a", "b", True, [], {})


def _value(rng: random.Random, schema: dict[str, Any] | None, depth: int) -> Any:
    if schema is None or depth > 3:
        return rng.choice(_LEAVES)
    if "properties" in schema:
        keys = [*schema["properties"], "unknown"]
        return {
            key: _value(rng, schema["properties"].get(key), depth + 1)
            for key in rng.sample(keys, rng.randint(0, len(keys)))
        }
    if "additionalProperties" in schema:
        return {
            rng.choice("xyz"): rng.choice(_LEAVES) for _ in range(rng.randint(0, 3))
        }
    if schema.get("type") == "array":
        items = schema["items"]
        if schema.get("x-kubernetes-list-type") == "map":
            names = rng.sample("pqr", rng.randint(0, 3))
            return [{"name": n, **_value(rng, items, depth + 1)} for n in names]
        return [rng.choice("abc") for _ in range(rng.randint(0, 3))]
    return rng.choice(_LEAVES)


def _mutated(rng: random.Random, value: Any) -> Any:
    """`value` with a few of its fields changed, added or removed."""
    result = copy.deepcopy(value)
    for _ in range(rng.randint(1, 3)):
        node = result
        while isinstance(node, dict) and node and rng.random() < 0.7:
            child = node[rng.choice(list(node))]
            if not isinstance(child, dict) or not child:
                break
            node = child
        if isinstance(node, dict) and node and rng.random() < 0.5:
            key = rng.choice(list(node))
            if rng.random() < 0.5:
                del node[key]
            else:
                node[key] = rng.choice(_LEAVES)
        elif isinstance(node, dict):
            node[rng.choice("xyz")] = rng.choice(_LEAVES)
    return result


def _changes(old: dict[str, Any], new: dict[str, Any]) -> tuple[set[Path], set[Path]]:
    before = members(old, _SCHEMA, every_node=True)
    after = members(new, _SCHEMA, every_node=True)
    parents = {path[:n] for path in after for n in range(1, len(path))}
    changed = {
        path
        for path, value in after.items()
        if path not in before or (path not in parents and before[path] != value)
    }
    return changed, set(before) - set(after)


def test_the_fields_a_write_leaves_equal_change_nothing_of_what_it_changes() -> None:
    rng = random.Random(25)
    differing = 0
    for _ in range(600):
        old = {"spec": _value(rng, _SCHEMA["properties"]["spec"], 0)}
        new = _mutated(rng, old)
        whole = _changes(old, new)
        assert _changes(*without_equal(_SCHEMA, old, new, root=True)) == whole, (
            old,
            new,
        )
        differing += whole != (set(), set())
    assert differing > 300  # the cases mostly change something


def test_a_struct_whose_only_change_is_a_removed_field_is_not_itself_changed() -> None:
    old = {"spec": {"labels": {"x": "1", "y": "2"}, "replicas": 1}}
    new = {"spec": {"labels": {"x": "1"}, "replicas": 1}}
    pruned_old, pruned_new = without_equal(_SCHEMA, old, new, root=True)
    assert pruned_new == {"spec": {"labels": {"x": None}, "replicas": None}}
    assert _changes(pruned_old, pruned_new) == (
        set(),
        {("f:spec", "f:labels", "f:y")},
    )


def test_a_field_set_is_written_sorted_with_a_parent_member_s_dot_first() -> None:
    paths = {
        ("f:spec", "f:ports", 'k:{"name":"b"}', "f:port"),
        ("f:spec", "f:ports", 'k:{"name":"b"}'),
        ("f:spec", "f:ports", 'k:{"name":"a"}'),
        ("f:metadata", "f:labels", "f:x"),
        ("f:spec",),
    }
    written = to_fields_v1(paths)
    assert json.dumps(written) == json.dumps(
        {
            "f:metadata": {"f:labels": {"f:x": {}}},
            "f:spec": {
                ".": {},
                "f:ports": {
                    'k:{"name":"a"}': {},
                    'k:{"name":"b"}': {".": {}, "f:port": {}},
                },
            },
        }
    )
    assert from_fields_v1(written) == paths


def test_equal_fields_under_other_schemas_have_their_own_paths() -> None:
    # the same bytes under `spec`: a set of tags under one schema, atomic under none
    spec = {"tags": ["a", "b"], "replicas": 2}
    typed = members({"spec": spec}, _SCHEMA, every_node=True)
    untyped = members({"spec": copy.deepcopy(spec)}, None, every_node=True)
    assert ("f:spec", "f:tags", 'v:"a"') in typed
    assert ("f:spec", "f:tags", 'v:"a"') not in untyped
    assert ("f:spec", "f:tags") in untyped
    # and each walk's own: every node only when asked
    assert ("f:spec",) not in members({"spec": spec}, _SCHEMA)
    assert ("f:spec",) in members({"spec": spec}, _SCHEMA, every_node=True)
