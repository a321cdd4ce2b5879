"""The memory server's garbage collector, on the memory server alone: the kind
defaults and the switch that the agreement tests cannot show on envtest
(`test_collection_agreement.py` holds the collector to kube-controller-manager)."""

from __future__ import annotations

import json
from typing import Any

from opgen.testing.memory import MemoryApiServer

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
JOBS = "/apis/batch/v1/namespaces/default/jobs"
EVENTS = "/api/v1/namespaces/default/events"


def _send(
    server: MemoryApiServer, method: str, path: str, body: Any = None
) -> tuple[int, dict[str, Any]]:
    data = None if body is None else json.dumps(body).encode()
    code, document = server.handle(method, path, data, "application/json")
    return code, document or {}


def _owned_configmap(server: MemoryApiServer, owner: dict[str, Any]) -> None:
    reference = {
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
    }
    child = {"metadata": {"name": "child", "ownerReferences": [reference]}}
    assert _send(server, "POST", CONFIGMAPS, child)[0] == 201


def test_dependents_go_with_their_owner_before_the_next_request() -> None:
    server = MemoryApiServer()
    _, owner = _send(server, "POST", CONFIGMAPS, {"metadata": {"name": "owner"}})
    _owned_configmap(server, {**owner, "apiVersion": "v1", "kind": "ConfigMap"})
    assert _send(server, "DELETE", CONFIGMAPS + "/owner")[0] == 200
    assert _send(server, "GET", CONFIGMAPS + "/child")[0] == 404


def test_without_garbage_collection_dependents_stay_as_on_envtest_alone() -> None:
    server = MemoryApiServer(garbage_collection=False)
    _, owner = _send(server, "POST", CONFIGMAPS, {"metadata": {"name": "owner"}})
    _owned_configmap(server, {**owner, "apiVersion": "v1", "kind": "ConfigMap"})
    _send(server, "DELETE", CONFIGMAPS + "/owner", {"propagationPolicy": "Orphan"})
    code, owner = _send(server, "GET", CONFIGMAPS + "/owner")
    assert (code, owner["metadata"]["finalizers"]) == (200, ["orphan"])
    code, child = _send(server, "GET", CONFIGMAPS + "/child")
    assert code == 200 and child["metadata"]["ownerReferences"]


def test_a_batch_v1_job_orphans_its_dependents_by_default() -> None:
    server = MemoryApiServer()
    job = {
        "metadata": {"name": "job"},
        "spec": {
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "c", "image": "busybox"}],
                }
            }
        },
    }
    code, created = _send(server, "POST", JOBS, job)
    assert code == 201, created
    _owned_configmap(server, {**created, "apiVersion": "batch/v1", "kind": "Job"})
    _send(server, "DELETE", JOBS + "/job")
    assert _send(server, "GET", JOBS + "/job")[0] == 404
    code, child = _send(server, "GET", CONFIGMAPS + "/child")
    assert code == 200 and "ownerReferences" not in child["metadata"]


def test_an_event_takes_no_propagation_policy() -> None:
    server = MemoryApiServer(garbage_collection=False)
    event = {
        "metadata": {"name": "e"},
        "involvedObject": {"kind": "ConfigMap", "name": "c", "namespace": "default"},
    }
    assert _send(server, "POST", EVENTS, event)[0] == 201
    code, answer = _send(
        server, "DELETE", EVENTS + "/e", {"propagationPolicy": "Orphan"}
    )
    assert (code, answer["status"]) == (200, "Success")
    assert _send(server, "GET", EVENTS + "/e")[0] == 404


async def test_watchers_see_the_collectors_writes_after_the_delete() -> None:
    server = MemoryApiServer()
    _, owner = _send(server, "POST", CONFIGMAPS, {"metadata": {"name": "owner"}})
    _owned_configmap(server, {**owner, "apiVersion": "v1", "kind": "ConfigMap"})
    since = server.store.revision
    watch = server.open_watch(f"{CONFIGMAPS}?watch=true&resourceVersion={since}")
    _send(server, "DELETE", CONFIGMAPS + "/owner")
    assert watch.subscription is not None
    queue = watch.subscription.queue
    events = [queue.get_nowait() for _ in range(queue.qsize())]
    assert [(e.type, e.obj["metadata"]["name"]) for e in events if e] == [
        ("DELETED", "owner"),
        ("DELETED", "child"),
    ]
