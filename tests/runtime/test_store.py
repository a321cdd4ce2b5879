"""Store, indexes and selectors (no API server)."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from opgen.runtime import selectors
from opgen.runtime import store as store_module
from opgen.runtime.store import (
    NAMESPACE_INDEX,
    OWNER_INDEX,
    Store,
    entry_from_dict,
    entry_from_json,
)


def obj(
    name: str,
    ns: str = "a",
    owner: str | None = None,
    labels: dict[str, str] | None = None,
    rv: str = "1",
) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "name": name,
        "namespace": ns,
        "uid": f"uid-{name}",
        "resourceVersion": rv,
        "labels": labels or {},
        "managedFields": [{"manager": "kubectl"}],
    }
    if owner:
        meta["ownerReferences"] = [
            {
                "apiVersion": "x/v1",
                "kind": "K",
                "name": owner,
                "uid": f"uid-{owner}",
                "controller": True,
            },
            {"apiVersion": "x/v1", "kind": "K", "name": "other", "uid": "uid-other"},
        ]
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": meta,
        "data": {"k": name},
    }


def test_entries_drop_managed_fields_and_keep_metadata() -> None:
    entry = entry_from_dict(obj("x", labels={"app": "web"}))
    assert b"managedFields" not in entry.raw
    assert (
        entry.key == ("a", "x")
        and entry.uid == "uid-x"
        and entry.labels == {"app": "web"}
    )
    assert entry.to_dict()["data"] == {"k": "x"}


def _fields(entry: Any) -> tuple[Any, ...]:
    return (
        entry.namespace,
        entry.name,
        entry.uid,
        entry.resource_version,
        entry.generation,
        dict(entry.labels),
        dict(entry.annotations),
        entry.owner_references,
        entry.finalizers,
        entry.deletion_timestamp,
        msgspec.json.decode(entry.raw),
    )


def _moved_first(data: dict[str, Any], key: str) -> dict[str, Any]:
    return {key: data[key], **{k: v for k, v in data.items() if k != key}}


_SHAPES: dict[str, Any] = {
    "managedFields in the middle": obj("x", owner="p", labels={"app": "web"}),
    "managedFields first": {
        **obj("x"),
        "metadata": _moved_first(obj("x")["metadata"], "managedFields"),
    },
    "managedFields alone": {"metadata": {"managedFields": []}, "data": {}},
    "managedFields null, no kind": {
        "metadata": {"name": "x", "managedFields": None, "generation": 3},
        "spec": {"metadata": {"managedFields": [{"manager": "nested"}]}},
    },
    "no managedFields, nulls": {
        "kind": "ConfigMap",
        "metadata": {"name": "x", "labels": None, "namespace": None},
    },
    "finalizers, deletion": {
        "apiVersion": "v1",
        "metadata": {
            "name": "x",
            "finalizers": ["a/b"],
            "deletionTimestamp": "2026-01-01T00:00:00Z",
            "annotations": {"managedFields": "[]"},
            "managedFields": [{"manager": "m"}],
        },
    },
    "a label that is not a string": {"metadata": {"name": "x", "labels": {"a": 1}}},
    "apiVersion null": {"apiVersion": None, "metadata": {"name": "x"}},
    "no metadata": {"kind": "ConfigMap"},
}


@pytest.mark.parametrize("compact", [True, False], ids=["compact", "spaced"])
@pytest.mark.parametrize("shape", list(_SHAPES))
def test_entries_from_json_are_entries_from_the_decoded_object(
    shape: str, compact: bool
) -> None:
    """`entry_from_json` (the informer's, which cuts managedFields out of the JSON
    text) makes the entry `entry_from_dict` makes of the decoded object with its
    kind filled in, whatever the JSON's shape; spaced JSON (not the API server's)
    goes the dict's way."""
    data = json.loads(json.dumps(_SHAPES[shape]))  # a copy: entry_from_dict pops
    raw = json.dumps(data, separators=(",", ":") if compact else (", ", ": "))
    expected = entry_from_dict({"apiVersion": "v1", "kind": "ConfigMap", **data})
    entry = entry_from_json(raw.encode(), "v1", "ConfigMap")
    assert _fields(entry) == _fields(expected)


def test_namespace_owner_and_custom_indexes_follow_changes() -> None:
    store = Store()
    store.upsert(entry_from_dict(obj("c1", "a", owner="p")))
    store.upsert(entry_from_dict(obj("c2", "b", owner="p")))
    store.upsert(entry_from_dict(obj("c3", "a")))
    store.add_index("data-k", lambda e: [e.to_dict()["data"]["k"]])
    assert [e.name for e in store.by_index(NAMESPACE_INDEX, "a")] == ["c1", "c3"]
    assert [e.name for e in store.by_index(OWNER_INDEX, "uid-p")] == ["c1", "c2"]
    assert (
        store.by_index(OWNER_INDEX, "uid-other") == []
    ), "only the controller owner is indexed"
    assert [e.name for e in store.by_index("data-k", "c3")] == ["c3"]

    store.upsert(entry_from_dict(obj("c1", "a", owner="q", rv="2")))
    assert [e.name for e in store.by_index(OWNER_INDEX, "uid-p")] == ["c2"]
    assert [e.name for e in store.by_index(OWNER_INDEX, "uid-q")] == ["c1"]
    store.delete(("b", "c2"))
    assert store.by_index(OWNER_INDEX, "uid-p") == []
    assert store.by_index(NAMESPACE_INDEX, "b") == []
    assert len(store) == 2


def test_label_selectors() -> None:
    labels = {"app": "web", "tier": "front", "env": "prod"}
    assert selectors.labels_match({"app": "web"}, labels)
    assert not selectors.labels_match({"app": "db"}, labels)
    assert selectors.labels_match("app=web,tier!=back", labels)
    assert selectors.labels_match("env in (prod, staging),!legacy,app", labels)
    assert not selectors.labels_match("env notin (prod)", labels)
    assert not selectors.labels_match("legacy", labels)
    assert selectors.to_query({"b": "2", "a": "1"}) == "a=1,b=2"


def test_field_selectors() -> None:
    data = obj("x")
    assert selectors.fields_match("metadata.name=x", data)
    assert selectors.fields_match({"metadata.namespace": "a"}, data)
    assert not selectors.fields_match("metadata.name!=x", data)


def test_a_replaced_entry_moves_only_in_the_indexes_whose_values_changed() -> None:
    store = Store()
    store.add_index("label-values", lambda e: list(e.labels.values()))
    store.upsert(entry_from_dict(obj("c1", labels={"a": "x", "b": "y", "c": "y"})))
    store.upsert(entry_from_dict(obj("c2", labels={"a": "y"})))
    store.upsert(entry_from_dict(obj("c1", labels={"b": "z", "a": "x"}, rv="2")))
    assert [e.resource_version for e in store.by_index("label-values", "x")] == ["2"]
    assert [e.name for e in store.by_index("label-values", "y")] == ["c2"]
    assert [e.name for e in store.by_index("label-values", "z")] == ["c1"]
    store.upsert(entry_from_dict(obj("c2", labels={"a": "y"}, rv="2")))
    assert [e.resource_version for e in store.by_index("label-values", "y")] == ["2"]
    assert [e.resource_version for e in store.by_index(NAMESPACE_INDEX, "a")] == [
        "2",
        "2",
    ]
    store.delete(("a", "c1"))
    assert store.by_index("label-values", "x") == []
    assert store.by_index("label-values", "z") == []


def test_entries_share_what_repeats_across_objects() -> None:
    """Strings that repeat across a kind's objects (namespace, label keys and
    values, owners' apiVersion and kind) are one string in every entry, an entry
    without annotations holds none of its own, and the store's map and indexes
    hold each entry's one key."""
    first, second = (
        entry_from_json(
            json.dumps(obj(name, "ns-" + "x" * 20, owner="p", labels={"app": "web"}))
            .replace(" ", "")
            .encode(),
            "v1",
            "ConfigMap",
        )
        for name in ("c1", "c2")
    )
    assert first.namespace is second.namespace
    (key_1, value_1), (key_2, value_2) = (
        next(iter(e.labels.items())) for e in (first, second)
    )
    assert (key_1, value_1) == ("app", "web") and key_1 is key_2 and value_1 is value_2
    for field in ("apiVersion", "kind"):
        assert first.owner_references[0][field] is second.owner_references[0][field]
    assert first.annotations == {} and first.annotations is second.annotations
    with pytest.raises(TypeError):
        first.annotations["a"] = "b"  # type: ignore[index]
    store = Store()
    store.upsert(first)
    (key,) = store.keys()
    assert key is first.key
    assert next(iter(store.by_index(OWNER_INDEX, "uid-p"))).key is key


def test_shared_strings_are_bounded() -> None:
    """Label values may be one per object: what the store shares is forgotten past
    a limit, not kept for the process's life."""
    for i in range(store_module._SHARED_MAX + 10):
        entry_from_dict(obj("x", labels={"id": f"value-{i}"}))
        assert len(store_module._SHARED) <= store_module._SHARED_MAX
