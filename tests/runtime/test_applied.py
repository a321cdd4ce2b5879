"""When an object already is what would be applied (`rt.apply_if_changed`).

The live objects here are what the API server answers for an applied
Deployment: the applied fields, plus its defaults and canonical quantities.
The envtest test at the end, and the example's controller tests, prove the
same against a real server.
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

import pytest

import opgen.api as op
from opgen import runtime as rt
from opgen.runtime import resources as rt_resources
from opgen.runtime.applied import holds, stamp, up_to_date
from opgen.testing import recording_writes

Deployment = op.k8s.Deployment
APPLIED_HASH = "example.com/applied-hash"


def wire(obj: Deployment) -> dict[str, Any]:
    return obj.model_dump(mode="json", by_alias=True, exclude_none=True)


def is_current(live: Deployment, desired: Deployment) -> bool:
    return up_to_date(live, desired, APPLIED_HASH)


DESIRED: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "my-ray-head", "namespace": "prod", "labels": {"a": "b"}},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"a": "b"}},
        "template": {
            "metadata": {"labels": {"a": "b"}},
            "spec": {
                "containers": [
                    {
                        "name": "ray-head",
                        "image": "rayproject/ray:2.9.0",
                        "resources": {"requests": {"cpu": "1000m", "memory": "1Gi"}},
                    }
                ]
            },
        },
    },
}


def served(body: dict[str, Any]) -> dict[str, Any]:
    """`body` as the API server stores it: defaults added, quantities canonical."""
    live = copy.deepcopy(body)
    live["metadata"].update(uid="u", resourceVersion="7", generation=1)
    spec = live["spec"]
    spec.update(progressDeadlineSeconds=600, revisionHistoryLimit=10)
    pod = spec["template"]["spec"]
    pod.update(
        dnsPolicy="ClusterFirst",
        restartPolicy="Always",
        schedulerName="default-scheduler",
    )
    for container in pod["containers"]:
        container.update(
            terminationMessagePath="/dev/termination-log",
            imagePullPolicy="IfNotPresent",
        )
        requests = container.get("resources", {}).get("requests", {})
        if requests.get("cpu") == "1000m":
            requests["cpu"] = "1"
    live["status"] = {"observedGeneration": 1}
    return live


def stamped() -> Deployment:
    desired = Deployment.model_validate(copy.deepcopy(DESIRED))
    stamp(desired, APPLIED_HASH)
    return desired


def test_a_served_copy_of_what_was_applied_is_up_to_date() -> None:
    desired = stamped()
    live = Deployment.model_validate(served(wire(desired)))
    assert is_current(live, desired)


def test_the_stamp_is_the_same_for_the_same_object_and_ignores_itself() -> None:
    first, second = stamped(), stamped()
    assert first.metadata.annotations == second.metadata.annotations
    stamp(first, APPLIED_HASH)  # again, on an object that has the stamp already
    assert first.metadata.annotations == second.metadata.annotations
    assert APPLIED_HASH in (first.metadata.annotations or {})


def test_a_change_to_a_field_the_operator_sets_is_seen() -> None:
    desired = stamped()
    live = served(wire(desired))
    live["spec"]["replicas"] = 5  # kubectl scale deployment my-ray-head --replicas=5
    assert not is_current(Deployment.model_validate(live), desired)


def test_a_field_the_operator_stopped_setting_is_seen_through_the_stamp() -> None:
    before = copy.deepcopy(DESIRED)
    before["spec"]["template"]["spec"]["containers"][0]["command"] = ["ray", "start"]
    old = Deployment.model_validate(before)
    stamp(old, APPLIED_HASH)
    live = Deployment.model_validate(served(wire(old)))
    desired = stamped()  # the same, without the command
    # The live spec has more, as it has defaults: only the stamp tells them apart.
    assert holds(wire(live)["spec"], wire(desired)["spec"])
    assert not is_current(live, desired)


def test_an_object_without_the_stamp_is_not_up_to_date() -> None:
    desired = stamped()
    live = Deployment.model_validate(served(DESIRED))
    assert not is_current(live, desired)


def test_holds_compares_the_fields_of_desired() -> None:
    assert holds({"a": 1, "b": 2}, {"a": 1})
    assert not holds({"a": 1}, {"a": 2})
    assert not holds({"a": [1, 2]}, {"a": [1]})  # lists: same length
    assert holds({"a": [{"x": 1, "y": 2}]}, {"a": [{"x": 1}]})
    assert holds({}, {"a": [], "b": {}, "c": "", "d": 0, "e": False, "f": None})
    assert not holds({"a": True}, {"a": False})
    assert not holds({"replicas": 3}, {"replicas": 0})


def test_quantities_compare_by_value_in_resource_maps_only() -> None:
    assert holds({"requests": {"cpu": "1"}}, {"requests": {"cpu": "1000m"}})
    assert holds({"limits": {"memory": "1Gi"}}, {"limits": {"memory": "1024Mi"}})
    assert not holds({"requests": {"cpu": "2"}}, {"requests": {"cpu": "1000m"}})
    assert not holds({"env": "1"}, {"env": "1000m"})


def json_hash(obj: Deployment) -> str:
    """The stamp as it has always been computed: sha256 of `json.dumps` of the wire
    form, keys sorted, the stamp left out."""
    body = wire(obj)
    annotations = dict(body["metadata"].get("annotations") or {})
    annotations.pop(APPLIED_HASH, None)
    body["metadata"]["annotations"] = annotations
    body["apiVersion"], body["kind"] = "apps/v1", "Deployment"
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@pytest.mark.parametrize(
    "values",
    [
        {"text": "plain", "n": 3, "yes": True},
        {"text": "caf\u00e9 \u2603 \U0001f600"},  # escaped by json.dumps
        {"text": "tab\there\x01\x7f", "quote": 'say "hi" \\ back'},
        {"ratio": 0.5, "big": 1e16, "tiny": 1e-7, "whole": 2.0},
        {"nan": float("nan"), "inf": float("inf")},
        {"none": None, "nested": [None, {"deep": None}]},
        {"huge": 10**30, "negative": -7},
        {"text": "null true false 1.5e3"},  # tokens inside strings only
    ],
)
def test_the_stamp_is_the_hash_of_the_sorted_json_whatever_the_values(
    values: dict[str, Any],
) -> None:
    """The stamp of an object is the same in every release: a changed hash would
    re-apply every child once after an upgrade."""
    data = copy.deepcopy(DESIRED)
    data["metadata"]["annotations"] = {"note": str(values.get("text", "-"))}
    data["metadata"]["managedFields"] = [{"manager": "m", "fieldsV1": values}]
    desired = Deployment.model_validate(data)
    stamp(desired, APPLIED_HASH)
    assert (desired.metadata.annotations or {})[APPLIED_HASH] == json_hash(desired)


def test_stamping_leaves_metadata_shared_with_another_object_alone() -> None:
    meta = op.ObjectMeta(name="a", namespace="prod", labels={"a": "b"})
    first = Deployment(metadata=meta)
    second = Deployment(
        metadata=meta,
        spec=op.k8s.DeploymentSpec(
            replicas=2,
            selector=op.k8s.LabelSelector(),
            template=op.k8s.PodTemplateSpec(),
        ),
    )
    stamp(first, APPLIED_HASH)
    stamp(second, APPLIED_HASH)
    assert meta.annotations is None
    assert first.metadata.annotations != second.metadata.annotations
    assert first.metadata.annotations == {APPLIED_HASH: json_hash(first)}
    assert resources_applied(first)["metadata"] == {
        "name": "a",
        "namespace": "prod",
        "labels": {"a": "b"},
        "annotations": {APPLIED_HASH: json_hash(first)},
    }


def resources_applied(obj: Deployment) -> dict[str, Any]:
    """The body a server-side apply sends (the fields set)."""
    return rt_resources.resource_type(Deployment).encode_obj(obj, exclude_unset=True)


def test_only_what_desired_sets_is_compared_status_and_times_aside() -> None:
    desired = stamped()
    live = served(wire(desired))
    live["metadata"]["creationTimestamp"] = "2026-12-01T21:00:00Z"
    live["status"]["conditions"] = [
        {
            "type": "Available",
            "status": "True",
            "lastUpdateTime": "2026-12-01T21:00:05Z",
        }
    ]
    assert is_current(Deployment.model_validate(live), desired)
    relabelled = copy.deepcopy(live)
    relabelled["metadata"]["labels"] = {"a": "c"}
    assert not is_current(Deployment.model_validate(relabelled), desired)
    disowned = copy.deepcopy(live)
    disowned["metadata"]["ownerReferences"] = [
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "x", "uid": "u"}
    ]
    owned = copy.deepcopy(DESIRED)
    owned["metadata"]["ownerReferences"] = [
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "x", "uid": "v"}
    ]
    want = Deployment.model_validate(owned)
    stamp(want, APPLIED_HASH)
    assert not is_current(Deployment.model_validate(disowned), want)


def test_metadata_fields_beyond_the_model_are_compared_too() -> None:
    data = copy.deepcopy(DESIRED)
    data["metadata"]["selfLink"] = "/apis/apps/v1/x"  # kept as an extra
    desired = Deployment.model_validate(data)
    stamp(desired, APPLIED_HASH)
    live = served(wire(desired))
    assert is_current(Deployment.model_validate(live), desired)
    live["metadata"]["selfLink"] = "/apis/apps/v1/y"
    assert not is_current(Deployment.model_validate(live), desired)


@pytest.mark.envtest
async def test_apply_if_changed_writes_once_then_reads_only(
    rest: Any, namespace: str
) -> None:
    """Against the API server: the first call creates, the second (the server's
    defaults and canonical quantities in the live object) writes nothing, a
    change applies, and a field no longer set is dropped."""
    client = rt.Client(rest)
    body = copy.deepcopy(DESIRED)
    body["metadata"]["namespace"] = namespace

    def desired(command: list[str] | None = None, **changes: Any) -> Deployment:
        """Built afresh each time, as a reconciler builds it."""
        data = copy.deepcopy(body)
        data["spec"].update(changes)
        if command is not None:
            data["spec"]["template"]["spec"]["containers"][0]["command"] = command
        return Deployment.model_validate(data)

    created, operation = await rt.apply_if_changed(
        client,
        desired(["ray", "start"]),
        annotation=APPLIED_HASH,
        field_manager="test",
    )
    assert operation is rt.Operation.CREATED and created.metadata.uid
    with recording_writes(client) as writes:
        _, operation = await rt.apply_if_changed(
            client,
            desired(["ray", "start"]),
            annotation=APPLIED_HASH,
            field_manager="test",
        )
    assert (operation, writes) == (rt.Operation.UNCHANGED, [])

    _, operation = await rt.apply_if_changed(
        client, desired(replicas=2), annotation=APPLIED_HASH, field_manager="test"
    )
    assert operation is rt.Operation.UPDATED
    live = await client.get(Deployment, "my-ray-head", namespace)
    assert live.spec is not None and live.spec.replicas == 2
    assert live.spec.template.spec is not None
    container = live.spec.template.spec.containers[0]
    assert container.command is None, "a field the apply no longer sets is dropped"
