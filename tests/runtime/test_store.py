"""Store, indexes and selectors (no API server)."""

from __future__ import annotations

from typing import Any

from opgen.runtime import selectors
from opgen.runtime.store import NAMESPACE_INDEX, OWNER_INDEX, Store, entry_from_dict


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
