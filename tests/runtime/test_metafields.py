"""Single metadata fields read and written in wire form, as the whole conversion would."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from pydantic import ValidationError

from opgen.api import ObjectMeta, OwnerReference
from opgen.api.k8s import ConfigMap
from opgen.runtime import metafields, resources
from tests.runtime.kinds import widget

WIRE_NAMES = [
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "creationTimestamp",
    "deletionTimestamp",
    "managedFields",
    "undeclared",
]


def full() -> ConfigMap:
    return ConfigMap.model_validate(
        {
            "metadata": {
                "name": "c",
                "namespace": "ns",
                "uid": "u-1",
                "resourceVersion": "7",
                "generation": 2,
                "labels": {"a": "b"},
                "annotations": {"n": "v"},
                "ownerReferences": [
                    {
                        "apiVersion": "v1",
                        "kind": "K",
                        "name": "o",
                        "uid": "u-0",
                        "controller": True,
                    }
                ],
                "finalizers": ["f"],
                "creationTimestamp": "2026-01-02T03:04:05Z",
                "deletionTimestamp": "2026-01-02T03:04:06Z",
                "managedFields": [{"manager": "m", "fieldsV1": {"f:data": {}}}],
                "undeclared": {"kept": True},
            }
        }
    )


@pytest.mark.parametrize("name", WIRE_NAMES)
@pytest.mark.parametrize(
    "made", [full, lambda: widget("w", "ns")], ids=["full", "sparse"]
)
def test_a_field_reads_as_the_whole_conversion_reads_it(made: Any, name: str) -> None:
    obj = made()
    assert metafields.get(obj, name) == resources.metadata(obj).get(name)


def test_reads_of_dict_metadata_and_of_none() -> None:
    assert metafields.get({"metadata": {"name": "d"}}, "name") is None  # no attribute
    holder = type("Holder", (), {"metadata": {"name": "d"}})()
    assert metafields.get(holder, "name") == "d"
    assert metafields.get(ConfigMap(), "name") is None


def test_what_is_read_is_a_copy() -> None:
    obj = full()
    metafields.get(obj, "labels")["a"] = "changed"
    metafields.get(obj, "finalizers").append("g")
    assert obj.metadata is not None
    assert obj.metadata.labels == {"a": "b"} and obj.metadata.finalizers == ["f"]


def test_a_write_validates_into_the_model() -> None:
    obj = ConfigMap(metadata=ObjectMeta(name="c"))
    metafields.put(
        obj,
        "ownerReferences",
        [{"apiVersion": "v1", "kind": "K", "name": "o", "uid": "u"}],
    )
    metafields.put(obj, "deletionTimestamp", "2026-01-02T03:04:05Z")
    assert obj.metadata is not None and obj.metadata.owner_references is not None
    assert obj.metadata.owner_references[0].uid == "u"
    assert isinstance(obj.metadata.deletion_timestamp, datetime.datetime)
    with pytest.raises(ValidationError):
        metafields.put(obj, "ownerReferences", [{"kind": "K"}])


def test_a_write_of_an_undeclared_field_goes_through_the_whole_metadata() -> None:
    obj = full()
    metafields.put(obj, "undeclared", {"kept": False})
    assert resources.metadata(obj)["undeclared"] == {"kept": False}
    assert resources.metadata(obj)["labels"] == {"a": "b"}


def test_the_typed_metadata_of_a_kind_is_its_own() -> None:
    obj = full()
    assert metafields.typed(obj) is obj.metadata
    metafields.write_back(obj, metafields.typed(obj), ["ownerReferences"])
    assert obj.metadata is not None and obj.metadata.owner_references is not None


def test_typed_dict_metadata_is_a_validated_copy_written_back() -> None:
    reference = {"apiVersion": "v1", "kind": "K", "name": "o", "uid": "u-0"}
    holder = type(
        "Holder", (), {"metadata": {"name": "d", "ownerReferences": [reference]}}
    )()
    meta = metafields.typed(holder)
    assert meta.name == "d"
    assert meta.owner_references == [OwnerReference.model_validate(reference)]
    plain: dict[str, Any] = {}
    meta = metafields.typed(plain)
    meta.owner_references = [
        OwnerReference(api_version="v1", kind="K", name="p", uid="u-1")
    ]
    meta.labels = {"a": "b"}
    assert plain == {}, "a copy"
    metafields.write_back(plain, meta, ["ownerReferences", "labels"])
    assert plain["metadata"] == {
        "ownerReferences": [
            {"apiVersion": "v1", "kind": "K", "name": "p", "uid": "u-1"}
        ],
        "labels": {"a": "b"},
    }
    assert metafields.typed(ConfigMap()) == ObjectMeta()
