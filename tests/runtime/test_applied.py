"""When an object already is what would be applied (`rt.apply_if_changed`).

The live objects here are what the API server answers for an applied
Deployment: the applied fields, plus its defaults and canonical quantities.
The envtest test at the end, and the example's controller tests, prove the
same against a real server.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

import opgen.api as op
from opgen import runtime as rt
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
    container = live.spec.template.spec.containers[0]
    assert container.command is None, "a field the apply no longer sets is dropped"
