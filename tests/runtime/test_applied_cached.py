"""`rt.apply_if_changed` on a live object a cached read handed out: it compares
the JSON the read made the object from, and must answer as it does for the
object validated from that JSON, whatever the JSON holds."""

from __future__ import annotations

import copy
import gc
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

import opgen.api as op
from opgen.runtime import decoding, resources, store
from opgen.runtime.applied import stamp, up_to_date
from opgen.runtime.resources import resource_type
from tests.runtime.test_applied import APPLIED_HASH, DESIRED, served, wire

Deployment = op.k8s.Deployment
Change = Callable[[dict[str, Any]], None]


def cached_read(body: dict[str, Any]) -> Deployment:
    """`body` read as the cache reads it: an informer's entry, decoded on read."""
    entry = store.entry_from_dict(copy.deepcopy(body))
    return decoding.Decoder(resource_type(Deployment)).read(entry)


def desired_with(change: Change | None = None) -> Deployment:
    data = copy.deepcopy(DESIRED)
    data["metadata"]["selfLink"] = "/apis/apps/v1/x"  # an extra of the metadata
    if change is not None:
        change(data)
    desired = Deployment.model_validate(data)
    stamp(desired, APPLIED_HASH)
    return desired


def _container(data: dict[str, Any]) -> dict[str, Any]:
    return data["spec"]["template"]["spec"]["containers"][0]  # type: ignore[no-any-return]


CHANGES: dict[str, Change] = {
    "nothing": lambda data: None,
    "replicas scaled": lambda data: data["spec"].update(replicas=5),
    "labels": lambda data: data["metadata"].update(labels={"a": "c"}),
    "a label added": lambda data: data["metadata"]["labels"].update(x="y"),
    "the stamp": lambda data: data["metadata"].update(
        annotations={APPLIED_HASH: "0000000000000000"}
    ),
    "the stamp gone": lambda data: data["metadata"].pop("annotations"),
    "the metadata's extra": lambda data: data["metadata"].update(selfLink="/y"),
    "an image": lambda data: _container(data).update(image="ray:2.10"),
    "a quantity, same value": lambda data: _container(data)["resources"][
        "requests"
    ].update(cpu="1000m"),
    "a quantity, other value": lambda data: _container(data)["resources"][
        "requests"
    ].update(cpu="2"),
    "a null list": lambda data: _container(data).update(ports=None),
    "a field the model does not know": lambda data: data["spec"].update(newField=1),
    "status": lambda data: data.update(status={"replicas": 3}),
    "the template's labels gone": lambda data: data["spec"]["template"].pop("metadata"),
}


@pytest.mark.parametrize("name", list(CHANGES))
@pytest.mark.parametrize("stopped_setting", [False, True])
def test_a_cached_live_object_is_judged_as_the_validated_one(
    name: str, stopped_setting: bool
) -> None:
    """For each change to the served object (and with a command the operator no
    longer sets), the answer on the cache's object is the answer on the object
    validated from the same JSON; the converged object is up to date."""
    old = desired_with(
        (lambda data: _container(data).update(command=["ray"]))
        if stopped_setting
        else None
    )
    body = served(wire(old))
    CHANGES[name](body)
    desired = desired_with()
    live = cached_read(body)
    assert resources.read_from(live) is not None
    expected = up_to_date(Deployment.model_validate(body), desired, APPLIED_HASH)
    assert up_to_date(live, desired, APPLIED_HASH) is expected
    if name in ("nothing", "status", "a field the model does not know"):
        assert expected is not stopped_setting


def test_only_objects_a_cached_read_made_are_known_and_only_while_alive() -> None:
    body = served(wire(desired_with()))
    live = cached_read(body)
    raw = resources.read_from(live)
    assert raw is not None and msgspec.json.decode(raw)["metadata"]["name"] == (
        "my-ray-head"
    )
    assert resources.read_from(Deployment.model_validate(body)) is None
    assert resources.read_from(copy.deepcopy(live)) is None
    key = id(live)
    assert key in resources._READS
    del live
    gc.collect()
    assert key not in resources._READS


def test_changes_to_the_read_copy_are_not_compared_a_changed_stamp_is() -> None:
    """The comparison is with the object as the API server sent it: what the apply
    would change. A stamp changed in the copy still makes it apply."""
    desired = desired_with()
    live = cached_read(served(wire(desired)))
    assert live.spec is not None
    live.spec.replicas = 7
    assert up_to_date(live, desired, APPLIED_HASH)
    assert live.metadata.annotations is not None
    live.metadata.annotations[APPLIED_HASH] = "0000000000000000"
    assert not up_to_date(live, desired, APPLIED_HASH)


def test_a_write_that_refreshes_the_read_copy_is_compared_as_answered() -> None:
    """A write's answer refreshes the object in place: the comparison is then with
    the answer, not with the JSON of the read before it."""
    desired = desired_with()
    body = served(wire(desired))
    live = cached_read(body)
    rtype = resource_type(Deployment)
    answer = copy.deepcopy(body)
    answer["spec"]["replicas"] = 5  # what an update of the copy wrote
    decoding.refresh(live, rtype, msgspec.json.encode(answer))
    assert resources.read_from(live) == msgspec.json.encode(answer)
    assert not up_to_date(live, desired, APPLIED_HASH)
    decoding.refresh(live, rtype, msgspec.json.encode(body))
    assert up_to_date(live, desired, APPLIED_HASH)
    resources.assign(live, Deployment.model_validate(answer))
    assert resources.read_from(live) is None
    assert not up_to_date(live, desired, APPLIED_HASH)
