"""The store's copies and deletes: what a reader may change, and what it shares."""

from __future__ import annotations

import json
from typing import Any

import pytest

from opgen.testing.memory import MemoryApiServer
from opgen.testing.memory.store import Store, decode, encode, json_copy

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


def test_a_stored_object_is_encoded_once_until_a_write_replaces_it() -> None:
    store = Store()
    first = store.write(KIND, {"metadata": {"name": "a", "namespace": "n"}}, None)
    encoded = store.encoded(first)
    assert json.loads(encoded) == first
    assert store.encoded(first) is encoded  # kept, not encoded again
    second = store.write(
        KIND, {"metadata": {"name": "a", "namespace": "n"}, "data": {"k": "v"}}, first
    )
    assert json.loads(store.encoded(second)) == second
    assert store.encoded(second) is not encoded
    # the replaced object is no longer the store's: encoded afresh, not kept
    assert store.encoded(first) is not store.encoded(first)
    gone = store.remove(KIND, second)
    assert json.loads(store.encoded(second)) == second
    assert store.encoded(gone) is not store.encoded(gone)


def test_a_typed_list_item_is_made_once_and_encoded_as_it_reads() -> None:
    store = Store()
    stored = store.write(
        KIND,
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}},
        None,
    )
    item = store.list_item(stored)
    assert item == {"metadata": stored["metadata"]}
    assert store.list_item(stored) is item
    assert json.loads(store.encoded(item)) == item
    assert store.encoded(item) is store.encoded(item)
    assert store.list_item(dict(stored)) is not item  # not the stored one


async def test_a_list_answer_has_the_bytes_of_its_whole_document() -> None:
    server = MemoryApiServer()
    for name in ("a", "b"):
        body = {"metadata": {"name": name}, "data": {"k": '"é",\n'}}
        await _sent(server, "POST", "/api/v1/namespaces/default/configmaps", body)
    for path in (
        "/api/v1/namespaces/default/configmaps",
        "/api/v1/namespaces/default/configmaps?limit=1",
        "/api/v1/namespaces/nowhere/configmaps",
        "/api/v1/namespaces",
    ):
        answer = await server.transport().send("GET", path)
        code, document = server.handle("GET", path)
        assert (answer.status, answer.body) == (code, encode(document))
    read = "/api/v1/namespaces/default/configmaps/a"
    answer = await server.transport().send("GET", read)
    assert answer.body == encode(server.handle("GET", read)[1])


async def _sent(
    server: MemoryApiServer, method: str, path: str, body: dict[str, Any]
) -> None:
    answer = await server.transport().send(method, path, body=json.dumps(body).encode())
    assert answer.status < 300, answer.body


def test_what_is_made_of_a_stored_object_is_kept_while_it_is_stored() -> None:
    store = Store()
    made: list[str] = []

    def make(obj: dict[str, Any]) -> str:
        made.append(obj["metadata"]["resourceVersion"])
        return f"made of {obj['metadata']['resourceVersion']}"

    first = store.write(KIND, {"metadata": {"name": "a"}}, None)
    assert (
        store.kept(first, "key", make) == store.kept(first, "key", make) == "made of 1"
    )
    assert made == ["1"]
    store.kept(first, "other key", make)
    assert made == ["1", "1"]
    second = store.write(KIND, {"metadata": {"name": "a"}}, first)
    assert store.kept(second, "key", make) == "made of 2"
    store.kept(first, "key", make)  # no longer stored: made each time
    store.kept(first, "key", make)
    assert made == ["1", "1", "2", "1", "1"]


def test_answers_are_utf8_and_what_msgspec_refuses_is_written_by_json() -> None:
    document = {"name": "é", "big": 2**70, "f": 1.5, "n": None, "list": [True]}
    assert json.loads(encode(document)) == document
    assert "é".encode() in encode(document), "UTF-8, as Go writes it"
    # a lone surrogate, and keys msgspec will not write: the json module's bytes
    for refused in ({"s": "\ud800"}, {True: 1, None: 2}):
        assert encode(refused) == json.dumps(refused, separators=(",", ":")).encode()


def test_a_body_msgspec_refuses_is_read_by_json() -> None:
    assert decode(b'{"a": [1, 2.5, "\\u00e9"]}') == {"a": [1, 2.5, "é"]}
    assert decode(b'{"s": "\\ud800"}') == {"s": "\ud800"}
    for constant in (b"NaN", b"Infinity", b"-Infinity"):
        with pytest.raises(ValueError, match="invalid character"):
            decode(b'{"x": ' + constant + b"}")
    with pytest.raises(ValueError, match="Expecting property name"):
        decode(b"{")


def test_an_invalid_body_is_answered_400_with_json_s_message() -> None:
    server = MemoryApiServer()
    code, answer = server.handle("POST", "/api/v1/namespaces/default/configmaps", b"{")
    assert code == 400 and answer is not None
    assert "not valid JSON: Expecting property name" in answer["message"]


def test_nan_in_a_body_is_answered_400_as_the_api_server_does() -> None:
    server = MemoryApiServer()
    body = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"x":NaN}}'
    code, answer = server.handle("POST", "/api/v1/namespaces/default/configmaps", body)
    assert code == 400 and answer is not None
    assert "invalid character 'N'" in answer["message"]
