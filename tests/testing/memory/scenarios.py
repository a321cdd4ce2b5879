"""Request sequences the agreement tests run on envtest and on the memory server.

Each scenario writes objects of one kind in the test's namespace (or
cluster-scoped ones named after it) and ends with the watch events of its
writes; `SCENARIOS` names them for the test's parameters.
"""

from __future__ import annotations

from typing import Any

from tests.testing.memory.backends import Api, Scenario

__all__ = ["SCENARIOS"]

WIDGETS = "/apis/test.opgen.dev/v1/namespaces/{ns}/widgets"
GAUGES = "/apis/memory.opgen.dev/v1/namespaces/{ns}/gauges"
DIALS = "/apis/memory.opgen.dev/v1/dials"
CONFIGMAPS = "/api/v1/namespaces/{ns}/configmaps"
MERGE = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"


def widget(name: str, replicas: int = 1, **meta: Any) -> dict[str, Any]:
    return {
        "apiVersion": "test.opgen.dev/v1",
        "kind": "Widget",
        "metadata": {"name": name, **meta},
        "spec": {"replicas": replicas},
    }


def gauge(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "memory.opgen.dev/v1",
        "kind": "Gauge",
        "metadata": {"name": name},
        "spec": spec,
    }


async def start(api: Api, template: str) -> str:
    listed = await api.send("GET", template, note="list at start")
    return str(listed["metadata"]["resourceVersion"])


async def watch_since(
    api: Api, template: str, since: str, last: dict[str, Any]
) -> None:
    """Keep the watch events since `since`, ending with the creation of `last`
    (written now, so that the events of the scenario's deletes come before it)."""
    created = await api.send("POST", template, last, note="last write")
    await api.events(template, since, int(created["metadata"]["resourceVersion"]))


async def create_get_list(api: Api) -> None:
    since = await start(api, WIDGETS)
    await api.send("POST", WIDGETS, widget("a", 2, labels={"tier": "web"}))
    await api.send("POST", WIDGETS, widget("a", 3), note="create again")
    await api.send("GET", WIDGETS + "/a")
    await api.send("GET", WIDGETS + "/missing")
    await api.send(
        "POST", WIDGETS, {**widget("x"), "metadata": {"generateName": "gen-"}}
    )
    await api.send("POST", WIDGETS, {**widget("x"), "metadata": {}}, note="no name")
    await api.send("POST", WIDGETS, widget("Bad_Name"), note="invalid name")
    await api.send(
        "POST",
        WIDGETS,
        {**widget("b"), "status": {"replicas": 9}},
        note="status dropped",
    )
    await api.send("POST", WIDGETS, {**widget("c"), "spec": {"replicas": "many"}})
    await api.send("POST", WIDGETS, widget("l", labels={"k": "-v"}), note="bad label")
    await api.send("GET", WIDGETS)
    await api.send("GET", WIDGETS + "?labelSelector=tier%3Dweb")
    await api.send("GET", WIDGETS + "?labelSelector=tier%21%3Dweb")
    await api.send("GET", WIDGETS + "?fieldSelector=metadata.name%3Db")
    await api.send("GET", WIDGETS + "?limit=1", note="first page")
    await watch_since(api, WIDGETS, since, widget("zz-last"))


async def updates(api: Api) -> None:
    since = await start(api, WIDGETS)
    created = await api.send("POST", WIDGETS, widget("a", 1))
    first = created["metadata"]["resourceVersion"]
    obj = {**created, "spec": {"replicas": 2}}
    changed = await api.send("PUT", WIDGETS + "/a", obj, note="spec change")
    labelled = {**changed, "metadata": {**changed["metadata"], "labels": {"a": "b"}}}
    labelled = await api.send("PUT", WIDGETS + "/a", labelled, note="label change")
    await api.send("PUT", WIDGETS + "/a", labelled, note="no change")
    await api.send(
        "PUT",
        WIDGETS + "/a",
        {**labelled, "status": {"replicas": 5}},
        note="status by main",
    )
    await api.send(
        "PUT",
        WIDGETS + "/a/status",
        {**labelled, "status": {"replicas": 5}, "spec": {"replicas": 7}},
        note="status write",
    )
    stale = {**created, "metadata": {**created["metadata"], "resourceVersion": first}}
    await api.send("PUT", WIDGETS + "/a", stale, note="stale")
    unversioned = {**created, "metadata": {"name": "a"}}
    await api.send("PUT", WIDGETS + "/a", unversioned, note="no resourceVersion")
    await api.send("PUT", WIDGETS + "/missing", widget("missing"), note="missing")
    await watch_since(api, WIDGETS, since, widget("zz-last"))


async def patches(api: Api) -> None:
    since = await start(api, WIDGETS)
    created = await api.send("POST", WIDGETS, widget("a", 1))
    first = created["metadata"]["resourceVersion"]
    await api.send("PATCH", WIDGETS + "/a", {"spec": {"replicas": 4}}, MERGE)
    await api.send("PATCH", WIDGETS + "/a", {"metadata": {"labels": {"x": "y"}}}, MERGE)
    await api.send(
        "PATCH", WIDGETS + "/a", {"spec": {"replicas": 4}}, MERGE, note="same"
    )
    await api.send(
        "PATCH",
        WIDGETS + "/a",
        [{"op": "replace", "path": "/spec/replicas", "value": 6}],
        JSON_PATCH,
    )
    await api.send(
        "PATCH",
        WIDGETS + "/a",
        [{"op": "test", "path": "/spec/replicas", "value": 1}],
        JSON_PATCH,
        note="failed test",
    )
    await api.send(
        "PATCH",
        WIDGETS + "/a/status",
        {"status": {"replicas": 6}},
        MERGE,
        note="status",
    )
    await api.send(
        "PATCH",
        WIDGETS + "/a",
        {"metadata": {"resourceVersion": first}, "spec": {"replicas": 1}},
        MERGE,
        note="stale",
    )
    await api.send(
        "PATCH", WIDGETS + "/a", {"spec": {"replicas": "x"}}, MERGE, note="invalid"
    )
    await api.send("PATCH", WIDGETS + "/missing", {"spec": {}}, MERGE, note="missing")
    await api.send(
        "PATCH",
        WIDGETS + "/a",
        {"metadata": {"labels": {"bad key!": "x", "k": "-v"}}},
        MERGE,
        note="bad labels",
    )
    await watch_since(api, WIDGETS, since, widget("zz-last"))


async def validation(api: Api) -> None:
    since = await start(api, GAUGES)
    await api.send("POST", GAUGES, gauge("a"), note="size missing")
    await api.send("POST", GAUGES, gauge("a", size=0), note="below minimum")
    await api.send("POST", GAUGES, gauge("a", size=11), note="above maximum")
    await api.send(
        "POST", GAUGES, gauge("a", size=1, mode="Medium"), note="not in enum"
    )
    await api.send("POST", GAUGES, gauge("a", size=1, low=5, high=1), note="CEL rule")
    await api.send("POST", GAUGES, gauge("a", size=1, namePrefix="much-too-long"))
    await api.send(
        "POST", GAUGES, gauge("a", size=1, locked="k", unknown=True), note="defaults"
    )
    await api.send(
        "PATCH", GAUGES + "/a", {"spec": {"locked": "other"}}, MERGE, note="transition"
    )
    await api.send(
        "PATCH", GAUGES + "/a", {"spec": {"low": 3, "high": 2}}, MERGE, note="rule"
    )
    await api.send("PATCH", GAUGES + "/a", {"spec": {"high": 9}}, MERGE, note="valid")
    await watch_since(api, GAUGES, since, gauge("zz-last", size=1))


async def without_status_subresource(api: Api) -> None:
    name = f"{api.namespace}-dial"
    since = await start(api, DIALS)
    body = {
        "apiVersion": "memory.opgen.dev/v1",
        "kind": "Dial",
        "metadata": {"name": name, "namespace": "ignored"},
        "spec": {"size": 2},
        "status": {"reading": 1},
    }
    await api.send("POST", DIALS, body)
    await api.send("PATCH", f"{DIALS}/{name}", {"status": {"reading": 2}}, MERGE)
    await api.send(
        "PATCH", f"{DIALS}/{name}", {"metadata": {"labels": {"a": "b"}}}, MERGE
    )
    await api.send("GET", f"{DIALS}/{name}/status", note="no status subresource")
    await api.send("DELETE", f"{DIALS}/{name}")
    await watch_since(api, DIALS, since, {**body, "metadata": {"name": f"{name}-last"}})


async def finalizers(api: Api) -> None:
    since = await start(api, WIDGETS)
    created = await api.send("POST", WIDGETS, widget("a", finalizers=["test/keep"]))
    await api.send(
        "DELETE",
        WIDGETS + "/a",
        {"preconditions": {"uid": "not-its-uid"}},
        note="wrong uid",
    )
    await api.send("DELETE", WIDGETS + "/a", note="marks it")
    await api.send("DELETE", WIDGETS + "/a", note="again")
    await api.send(
        "PATCH",
        WIDGETS + "/a",
        {"metadata": {"finalizers": ["test/keep", "test/more"]}},
        MERGE,
        note="new finalizer",
    )
    await api.send(
        "PATCH", WIDGETS + "/a", {"spec": {"replicas": 3}}, MERGE, note="spec"
    )
    await api.send(
        "PATCH",
        WIDGETS + "/a",
        {"metadata": {"finalizers": None}},
        MERGE,
        note="release",
    )
    await api.send("GET", WIDGETS + "/a", note="gone")
    await api.send("POST", WIDGETS, widget("b"))
    await api.send(
        "DELETE",
        WIDGETS + "/b",
        {"preconditions": {"uid": created["metadata"]["uid"]}},
        note="other uid",
    )
    await api.send("DELETE", WIDGETS + "/b", note="no finalizers")
    await api.send("DELETE", WIDGETS + "/b", note="missing")
    for name, policy in (("f", "Foreground"), ("o", "Orphan"), ("g", "Background")):
        await api.send("POST", WIDGETS, widget(name))
        await api.send(
            "DELETE", f"{WIDGETS}/{name}", {"propagationPolicy": policy}, note=policy
        )
    await watch_since(api, WIDGETS, since, widget("zz-last"))


async def configmaps(api: Api) -> None:
    since = await start(api, CONFIGMAPS)
    made = await api.send(
        "POST",
        CONFIGMAPS,
        {"metadata": {"name": "c", "labels": {"app": "x"}}, "data": {"k": "v"}},
    )
    await api.send("PUT", CONFIGMAPS + "/c", {**made, "data": {"k": "w"}})
    unversioned = {**made, "metadata": {"name": "c"}, "data": {"k": "u"}}
    await api.send("PUT", CONFIGMAPS + "/c", unversioned, note="unconditional")
    relabelled = {**unversioned, "metadata": {"name": "c", "labels": {"k": "-v"}}}
    await api.send("PUT", CONFIGMAPS + "/c", relabelled, note="bad label")
    await api.send("PATCH", CONFIGMAPS + "/c", {"data": {"n": "1"}}, MERGE)
    await api.send("GET", CONFIGMAPS + "?labelSelector=app%20in%20%28x%2Cy%29")
    bad = {"ok": "bad value!", "bad key!": "v", "Bad.Prefix/x": "y", "a.io/b": "c"}
    await api.send(
        "POST",
        CONFIGMAPS,
        {"metadata": {"name": "l", "labels": bad, "annotations": {"bad key!": "v"}}},
        note="bad labels",
    )
    await api.send(
        "PATCH", WIDGETS.replace("widgets", "widgets/none"), {}, MERGE, note="404 first"
    )
    dry = "?dryRun=All"
    await api.send(
        "POST", CONFIGMAPS + dry, {"metadata": {"name": "e"}}, note="dry create"
    )
    await api.send("PATCH", CONFIGMAPS + "/c" + dry, {"data": {"n": "3"}}, MERGE)
    await api.send("DELETE", CONFIGMAPS + "/c" + dry, note="dry delete")
    await api.send("POST", WIDGETS + dry, widget("dry", 0), note="dry custom resource")
    await api.send("GET", WIDGETS + "/dry", note="not created")
    await api.send("DELETE", CONFIGMAPS + "/c")
    await api.send("GET", CONFIGMAPS + "/c")
    await watch_since(api, CONFIGMAPS, since, {"metadata": {"name": "zz-last"}})


async def selectors_and_pages(api: Api) -> None:
    since = await start(api, WIDGETS)
    for name, tier in (("w1", "a"), ("w2", "b"), ("w3", "b"), ("w4", "a")):
        await api.send("POST", WIDGETS, widget(name, labels={"tier": tier}))
    first = await api.send("GET", WIDGETS + "?limit=3", note="page 1")
    token = first["metadata"]["continue"]
    await api.send("GET", WIDGETS + f"?limit=3&continue={token}", note="page 2")
    await api.send("GET", WIDGETS + "?labelSelector=tier%3Da&limit=1", note="selected")
    await api.send("GET", WIDGETS + "?labelSelector=%21tier")
    await api.send("GET", WIDGETS + "?fieldSelector=metadata.name%21%3Dw1")
    relabel = {"metadata": {"labels": {"tier": "a"}}}
    await api.send("PATCH", WIDGETS + "/w2", relabel, MERGE, note="w2 joins a")
    await api.send(
        "PATCH", WIDGETS + "/w1", {"metadata": {"labels": {"tier": "b"}}}, MERGE
    )
    await api.send("PATCH", WIDGETS + "/w3", {"spec": {"replicas": 2}}, MERGE)
    await api.send("DELETE", WIDGETS + "/w4")
    await api.send("DELETE", WIDGETS + "/w3")
    last = await api.send(
        "POST", WIDGETS, widget("zz-last", labels={"tier": "a"}), note="last write"
    )
    until = int(last["metadata"]["resourceVersion"])
    await api.events(WIDGETS, since, until, "&labelSelector=tier%3Da")
    await api.events(WIDGETS, "", until, "&labelSelector=tier%3Da")


async def scale(api: Api) -> None:
    since = await start(api, WIDGETS)
    await api.send("POST", WIDGETS, widget("a", 1))
    await api.send("GET", WIDGETS + "/a/scale", note="scale of a new object")
    status = {"status": {"replicas": 2, "selector": "app=a"}}
    await api.send("PATCH", WIDGETS + "/a/status", status, MERGE)
    await api.send("GET", WIDGETS + "/a/scale", note="scale with a status")
    await api.send("PATCH", WIDGETS + "/a/scale", {"spec": {"replicas": 5}}, MERGE)
    scale = {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "a"}}
    await api.send(
        "PUT", WIDGETS + "/a/scale", {**scale, "spec": {"replicas": 4}}, note="put"
    )
    stale = {**scale, "metadata": {"name": "a", "resourceVersion": "1"}}
    await api.send(
        "PUT", WIDGETS + "/a/scale", {**stale, "spec": {"replicas": 3}}, note="stale"
    )
    await api.send(
        "PUT",
        WIDGETS + "/a/scale",
        {**scale, "spec": {"replicas": -1}},
        note="negative",
    )
    await api.send("GET", WIDGETS + "/a", note="scaled")
    await api.send("GET", CONFIGMAPS + "/none/scale", note="no scale subresource")
    await watch_since(api, WIDGETS, since, widget("zz-last"))


async def collections_and_fields(api: Api) -> None:
    since = await start(api, GAUGES)
    for name, mode, finalizers in (
        ("g1", "Fast", []),
        ("g2", "Slow", ["test/keep"]),
        ("g3", "Fast", []),
    ):
        body = gauge(name, size=1, mode=mode)
        body["metadata"].update(labels={"set": "one"}, finalizers=finalizers)
        await api.send("POST", GAUGES, body)
    await api.send("GET", GAUGES + "?fieldSelector=spec.mode%3DFast")
    await api.send("GET", GAUGES + "?fieldSelector=spec.mode%21%3DFast")
    await api.send(
        "GET", GAUGES + "?fieldSelector=spec.size%3D1", note="not selectable"
    )
    await api.send(
        "GET", WIDGETS + "?fieldSelector=spec.replicas%3D1", note="no selectable fields"
    )
    await api.send(
        "DELETE", GAUGES + "?labelSelector=set%3Done", note="delete collection"
    )
    await api.send("GET", GAUGES, note="after")
    await api.send("DELETE", CONFIGMAPS + "?labelSelector=set%3Dnone", note="nothing")
    await watch_since(api, GAUGES, since, gauge("zz-last", size=1))


DEPLOYMENTS = "/apis/apps/v1/namespaces/{ns}/deployments"


def deployment(name: str, replicas: int) -> dict[str, Any]:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "app", "image": "nginx"}]},
            },
        },
    }


async def deployments(api: Api) -> None:
    api.go_defaulted = frozenset({"Deployment"})
    since = await start(api, DEPLOYMENTS)
    await api.send("POST", DEPLOYMENTS, deployment("d", 1))
    await api.send("PATCH", DEPLOYMENTS + "/d", {"spec": {"replicas": 2}}, MERGE)
    await api.send(
        "PATCH", DEPLOYMENTS + "/d", {"metadata": {"labels": {"a": "b"}}}, MERGE
    )
    await api.send(
        "PATCH", DEPLOYMENTS + "/d/status", {"status": {"observedGeneration": 2}}, MERGE
    )
    await api.send(
        "POST", DEPLOYMENTS, {**deployment("e", 1), "spec": {"replicas": "x"}}
    )
    await api.send("DELETE", DEPLOYMENTS + "/d")
    await watch_since(api, DEPLOYMENTS, since, deployment("zz-last", 1))


async def namespaces(api: Api) -> None:
    gone = "/api/v1/namespaces/{ns}-gone"
    await api.send(
        "POST", "/api/v1/namespaces", {"metadata": {"name": api.path("{ns}-gone")}}
    )
    await api.send(
        "POST", "/api/v1/namespaces/{ns}-gone/configmaps", {"metadata": {"name": "c"}}
    )
    await api.send("DELETE", gone, note="terminates")
    await api.send("GET", gone)
    await api.send(
        "POST", "/api/v1/namespaces/{ns}-gone/configmaps", {"metadata": {"name": "d"}}
    )
    await api.send(
        "POST",
        "/apis/test.opgen.dev/v1/namespaces/{ns}-gone/widgets",
        widget("w"),
        note="a custom resource",
    )
    await api.send("DELETE", gone, note="again")
    await api.send(
        "GET", "/api/v1/namespaces/{ns}-gone/configmaps/c", note="content stays"
    )


async def missing_namespace(api: Api) -> None:
    await api.send(
        "POST",
        "/apis/test.opgen.dev/v1/namespaces/{ns}-none/widgets",
        widget("a"),
    )
    await api.send("GET", "/apis/test.opgen.dev/v1/namespaces/{ns}/nothings")


SCENARIOS: dict[str, Scenario] = {
    scenario.__name__: scenario
    for scenario in (
        create_get_list,
        updates,
        patches,
        validation,
        without_status_subresource,
        finalizers,
        configmaps,
        selectors_and_pages,
        scale,
        collections_and_fields,
        deployments,
        namespaces,
        missing_namespace,
    )
}
