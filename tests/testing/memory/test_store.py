"""The store's copies and deletes: what a reader may change, and what it shares."""

from __future__ import annotations

from typing import Any

from opgen.testing.memory.store import Store, json_copy

KIND = ("", "v1", "configmaps")


def _containers(value: Any) -> list[int]:
    """The ids of every dict and list in `value`."""
    if isinstance(value, dict):
        return [id(value), *(i for item in value.values() for i in _containers(item))]
    if isinstance(value, list):
        return [id(value), *(i for item in value for i in _containers(item))]
    return []


def test_a_copy_is_equal_and_shares_no_dict_or_list() -> None:
    document = {
        "metadata": {"name": "a", "labels": {"x": "1"}},
        "data": {"n": 1, "f": 1.5, "t": True, "none": None, "é": "\ud800"},
        "items": [[1, {"deep": [2]}], {"k": "v"}],
    }
    copied = json_copy(document)
    assert copied == document
    assert not set(_containers(copied)) & set(_containers(document))


def test_a_part_held_twice_is_copied_twice() -> None:
    shared = {"k": "v"}
    copied = json_copy({"a": shared, "b": shared})
    copied["a"]["k"] = "changed"
    assert copied["b"] == {"k": "v"}
    assert shared == {"k": "v"}


def test_what_marshal_cannot_write_is_walked() -> None:
    class Name(str):
        pass

    class Labels(dict[str, str]):
        pass

    document = {"metadata": {"name": Name("a"), "labels": Labels(x="1")}}
    copied = json_copy(document)
    assert copied == document
    assert type(copied["metadata"]["labels"]) is dict
    assert copied["metadata"]["labels"] is not document["metadata"]["labels"]
    assert json_copy(Labels(x="1")) == {"x": "1"}
    assert json_copy("text") == "text"


def test_a_delete_answers_the_last_state_and_leaves_the_stored_one() -> None:
    store = Store()
    stored = store.write(
        KIND,
        {"metadata": {"name": "a", "namespace": "n"}, "data": {"k": "v"}},
        None,
    )
    subscription = store.subscribe(KIND, 0)
    gone = store.remove(KIND, stored)
    assert gone == {
        "metadata": {"name": "a", "namespace": "n", "resourceVersion": "2"},
        "data": {"k": "v"},
    }
    assert stored["metadata"]["resourceVersion"] == "1"  # the stored object unchanged
    assert store.peek(KIND, "n", "a") is None
    added, deleted = subscription.queue.get_nowait(), subscription.queue.get_nowait()
    assert added is not None and deleted is not None
    assert (deleted.type, deleted.revision, deleted.obj) == ("DELETED", 2, gone)
    assert deleted.previous is stored
