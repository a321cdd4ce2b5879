"""Strategic merge patch scenarios the agreement tests run on envtest and on the
memory server: built-ins' lists merged by their patch-merge keys, the
directives, the errors, and custom resources' refusal (415).

Where Go code defaults a kind's fields (a PodTemplate's containers, a
Deployment's spec), the scenario compares the fields it patched
(`project`), not the whole object.
"""

from __future__ import annotations

from typing import Any

from tests.testing.memory.backends import Api, Scenario
from tests.testing.memory.scenarios import CONFIGMAPS, WIDGETS, deployment, widget

__all__ = ["STRATEGIC_SCENARIOS"]

STRATEGIC = "application/strategic-merge-patch+json"
PODTEMPLATES = "/api/v1/namespaces/{ns}/podtemplates"
DEPLOYMENTS = "/apis/apps/v1/namespaces/{ns}/deployments"
FAKE_UID = "00000000-0000-4000-8000-00000000000{}"


def _owner(number: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "name": f"owner-{number}",
        "uid": FAKE_UID.format(number),
    }


async def _patch(api: Api, path: str, patch: Any, note: str) -> dict[str, Any]:
    return await api.send("PATCH", path, patch, STRATEGIC, note=note)


def project(api: Api, note: str, document: dict[str, Any], **fields: Any) -> None:
    """Keep `fields` (values computed from an answer) as one more outcome."""
    api.outcomes.append({"request": f"{note} (projected)", **fields})


async def strategic_configmaps(api: Api) -> None:
    path = CONFIGMAPS + "/s"
    made = {
        "metadata": {
            "name": "s",
            "labels": {"a": "1", "b": "2"},
            "finalizers": ["test/one", "test/two"],
            "ownerReferences": [_owner(1), _owner(2)],
        },
        "data": {"k": "v", "l": "w"},
    }
    await api.send("POST", CONFIGMAPS, made)
    await _patch(
        api,
        path,
        {"metadata": {"finalizers": ["test/three"], "labels": {"a": None, "c": "3"}}},
        "finalizers merge, labels merge",
    )
    await _patch(
        api,
        path,
        {"metadata": {"$deleteFromPrimitiveList/finalizers": ["test/one"]}},
        "delete from a primitive list",
    )
    await _patch(
        api,
        path,
        {
            "metadata": {
                "$setElementOrder/finalizers": ["test/two", "test/four", "test/three"],
                "finalizers": ["test/four"],
            }
        },
        "set the order",
    )
    await _patch(
        api,
        path,
        {
            "metadata": {
                "ownerReferences": [{"$patch": "delete", "uid": FAKE_UID.format(1)}]
            }
        },
        "delete an owner by uid",
    )
    await _patch(
        api,
        path,
        {"metadata": {"ownerReferences": [{**_owner(3), "controller": True}]}},
        "add an owner",
    )
    await _patch(api, path, {"data": {"$patch": "replace", "n": "1"}}, "replace a map")
    await _patch(api, path, {"data": {"n": None, "o": "2"}}, "null removes")
    await _patch(
        api,
        path,
        {"metadata": {"finalizers": [{"$patch": "delete"}]}},
        "maps in a list of strings",
    )
    await _patch(
        api,
        path,
        {"metadata": {"ownerReferences": [{"name": "no-uid"}]}},
        "no merge key",
    )
    await _patch(
        api,
        path,
        {"metadata": {"$setElementOrder": ["test/two"]}},
        "an order without a list",
    )
    await _patch(
        api,
        path,
        {"metadata": {"finalizers": [["nested"]]}},
        "a list of lists",
    )
    await _patch(api, path, {"data": {"$patch": "sideways"}}, "an unknown directive")
    await _patch(
        api, path, {"$retainKeys": "data", "data": {}}, "retainKeys not a list"
    )
    await _patch(api, path, ["not", "an", "object"], "not an object")
    await _patch(api, CONFIGMAPS + "/missing", {"data": {}}, "missing")
    await api.send("POST", WIDGETS, widget("w"))
    await _patch(api, WIDGETS + "/w", {"spec": {"replicas": 3}}, "a custom resource")
    await _patch(api, WIDGETS + "/gone", {"spec": {}}, "a missing custom resource")
    await api.send("GET", path, note="at the end")


def _container(name: str, image: str, *env: str, **more: Any) -> dict[str, Any]:
    found: dict[str, Any] = {"name": name, "image": image, **more}
    if env:
        found["env"] = [{"name": e, "value": e.lower()} for e in env]
    return found


def _containers(document: dict[str, Any], field: str = "template") -> list[Any]:
    spec = document.get(field, {}).get("spec", {})
    return [
        (
            c.get("name"),
            c.get("image"),
            [(e.get("name"), e.get("value")) for e in c.get("env") or []],
            [p.get("containerPort") for p in c.get("ports") or []],
        )
        for c in spec.get("containers") or []
    ]


def _volumes(document: dict[str, Any]) -> list[Any]:
    spec = document.get("template", {}).get("spec", {})
    return [
        (v.get("name"), sorted(k for k in v if k != "name"))
        for v in spec.get("volumes") or []
    ]


async def strategic_podtemplates(api: Api) -> None:
    api.go_defaulted = frozenset({"PodTemplate"})
    path = PODTEMPLATES + "/t"
    body = {
        "metadata": {"name": "t"},
        "template": {
            "metadata": {"labels": {"app": "t"}},
            "spec": {
                "containers": [
                    _container("a", "nginx", "X", "Y", ports=[{"containerPort": 80}]),
                    _container("b", "busybox"),
                ],
                "volumes": [{"name": "v", "emptyDir": {}}],
            },
        },
    }
    steps: list[tuple[str, Any]] = [
        (
            "merge containers by name, env by name, ports by containerPort",
            {
                "template": {
                    "spec": {
                        "containers": [
                            _container(
                                "a", "nginx:2", "Z", "X", ports=[{"containerPort": 81}]
                            ),
                            _container("c", "alpine"),
                        ]
                    }
                }
            },
        ),
        (
            "delete a container",
            {"template": {"spec": {"containers": [{"name": "b", "$patch": "delete"}]}}},
        ),
        (
            "order the containers",
            {
                "template": {
                    "spec": {
                        "$setElementOrder/containers": [{"name": "c"}, {"name": "a"}],
                        "containers": [{"name": "a", "image": "nginx:3"}],
                    }
                }
            },
        ),
        (
            "retain keys of a volume",
            {
                "template": {
                    "spec": {
                        "volumes": [
                            {
                                "name": "v",
                                "configMap": {"name": "cm"},
                                "$retainKeys": ["name", "configMap"],
                            }
                        ]
                    }
                }
            },
        ),
        (
            "replace the containers",
            {
                "template": {
                    "spec": {
                        "containers": [
                            {"$patch": "replace"},
                            _container("only", "nginx"),
                        ]
                    }
                }
            },
        ),
        (
            "a patch item without its merge key",
            {"template": {"spec": {"containers": [{"image": "x"}]}}},
        ),
    ]
    created = await api.send("POST", PODTEMPLATES, body)
    project(api, "create", created, containers=_containers(created))
    for note, patch in steps:
        answer = await _patch(api, path, patch, note)
        if answer.get("kind") == "PodTemplate":
            project(
                api,
                note,
                answer,
                containers=_containers(answer),
                volumes=_volumes(answer),
            )


def _condition(kind: str) -> dict[str, str]:
    # with its times: a Go struct writes times left out as null
    time = "2026-01-01T00:00:00Z"
    return {
        "type": kind,
        "status": "True",
        "lastUpdateTime": time,
        "lastTransitionTime": time,
    }


async def strategic_deployments(api: Api) -> None:
    api.go_defaulted = frozenset({"Deployment"})
    path = DEPLOYMENTS + "/d"
    body = deployment("d", 1)
    body["spec"]["strategy"] = {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0},
    }
    await api.send("POST", DEPLOYMENTS, body)
    answer = await _patch(
        api,
        path,
        {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}},
        "retain keys of the strategy",
    )
    project(api, "retainKeys", answer, strategy=answer["spec"].get("strategy"))
    answer = await _patch(
        api,
        path,
        {"spec": {"strategy": {"$retainKeys": ["type"], "rollingUpdate": {}}}},
        "a key outside retainKeys",
    )
    answer = await _patch(
        api,
        path,
        {
            "spec": {
                "template": {
                    "spec": {"containers": [_container("side", "busybox", "A")]}
                }
            }
        },
        "add a container",
    )
    project(api, "add a container", answer, containers=_containers(answer, "spec"))
    answer = await _patch(
        api,
        path + "/status",
        {"status": {"conditions": [_condition("Available")]}},
        "a status condition",
    )
    answer = await _patch(
        api,
        path + "/status",
        {"status": {"conditions": [_condition("Progressing")]}},
        "another condition, merged by type",
    )
    project(
        api,
        "conditions",
        answer,
        conditions=[
            (c.get("type"), c.get("status"))
            for c in answer.get("status", {}).get("conditions") or []
        ],
    )


STRATEGIC_SCENARIOS: dict[str, Scenario] = {
    scenario.__name__: scenario
    for scenario in (
        strategic_configmaps,
        strategic_podtemplates,
        strategic_deployments,
    )
}
