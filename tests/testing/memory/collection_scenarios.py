"""Garbage collection scenarios the agreement tests run on envtest with
kube-controller-manager and on a memory server that collects.

Each scenario makes owners and dependents (Widgets, a CRD kind, and
ConfigMaps, a built-in), deletes with a propagation policy, waits until the
collector has settled (`settle`) and reads what is left. The real collector
acts asynchronously, the memory server's before it answers the next request:
what is compared is the settled result, never the way there.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from opgen.testing import eventually
from opgen.testing.memory.collector import Stored, plan
from opgen.testing.memory.kinds import Kind
from opgen.testing.memory.paths import parse_route
from tests.testing.memory.backends import Api, Scenario
from tests.testing.memory.crds import served_kinds
from tests.testing.memory.scenarios import CONFIGMAPS, WIDGETS, widget

__all__ = ["COLLECTION_SCENARIOS", "reference", "settle"]

LISTED = (WIDGETS, CONFIGMAPS)
GHOST = "00000000-0000-4000-8000-000000000000"
"""The uid of an owner that never existed."""


def reference(
    owner: dict[str, Any], *, block: bool | None = None, controller: bool = False
) -> dict[str, Any]:
    """An owner reference to `owner` (an answer of the server)."""
    found = {
        "apiVersion": owner.get("apiVersion", "v1"),
        "kind": owner.get("kind", "ConfigMap"),
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
    }
    if block is not None:
        found["blockOwnerDeletion"] = block
    if controller:
        found["controller"] = True
    return found


def ghost(name: str = "ghost") -> dict[str, Any]:
    return {
        "apiVersion": "test.opgen.dev/v1",
        "kind": "Widget",
        "name": name,
        "uid": GHOST,
    }


def configmap(name: str, *owners: dict[str, Any], **meta: Any) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, **meta}
    if owners:
        metadata["ownerReferences"] = list(owners)
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata}


def owned_widget(name: str, *owners: dict[str, Any], **meta: Any) -> dict[str, Any]:
    return widget(name, ownerReferences=list(owners), **meta)


def _resolver(kinds: Any) -> Any:
    def resolve(api_version: str, kind_name: str) -> Kind | None:
        group, _, version = api_version.rpartition("/")
        found: Kind | None = kinds.find(group, version, kind_name)
        return found

    return resolve


async def settle(api: Api, templates: Sequence[str] = LISTED) -> None:
    """Wait until the collector has nothing left to do with the objects listed
    at `templates` (`collector.plan` is empty for them): at once on the memory
    server, when kube-controller-manager has caught up on envtest. These
    requests are not kept as outcomes."""
    kinds = served_kinds()
    resolve = _resolver(kinds)

    async def settled() -> bool:
        objects = []
        for template in templates:
            path = api.path(template)
            route = parse_route(path)
            assert route is not None
            kind = kinds.lookup(route.group, route.version, route.plural)
            assert kind is not None
            answer = await api.transport.send("GET", path)
            listed = json.loads(answer.body)
            objects += [Stored(kind, item) for item in listed["items"]]
        return not plan(objects, resolve)

    await eventually(settled, message="garbage collection to settle")


async def _read(api: Api, *paths: str) -> None:
    for path in paths:
        await api.send("GET", path, note=f"after: GET {path}")


async def background(api: Api) -> None:
    owner = await api.send("POST", WIDGETS, widget("o"))
    await api.send("POST", CONFIGMAPS, configmap("c", reference(owner)))
    await api.send("POST", WIDGETS, owned_widget("w", reference(owner)))
    second = await api.send("POST", CONFIGMAPS, configmap("p"))
    await api.send(
        "POST", CONFIGMAPS, configmap("two", reference(owner), reference(second))
    )
    await api.send("DELETE", WIDGETS + "/o", note="no policy: background")
    await settle(api)
    await _read(api, WIDGETS + "/o", CONFIGMAPS + "/c", WIDGETS + "/w")
    await _read(api, CONFIGMAPS + "/two", CONFIGMAPS + "/p")
    await api.send(
        "DELETE", CONFIGMAPS + "/p", {"propagationPolicy": "Background"}, note="p"
    )
    await settle(api)
    await _read(api, CONFIGMAPS + "/two")


async def foreground(api: Api) -> None:
    owner = await api.send("POST", WIDGETS, widget("o"))
    held = configmap("held", reference(owner, block=True), finalizers=["test/keep"])
    await api.send("POST", CONFIGMAPS, held)
    await api.send("POST", CONFIGMAPS, configmap("free", reference(owner)))
    await api.send(
        "POST",
        WIDGETS,
        owned_widget("w", reference(owner, block=True, controller=True)),
    )
    await api.send(
        "DELETE", WIDGETS + "/o", {"propagationPolicy": "Foreground"}, note="foreground"
    )
    await settle(api)
    await _read(api, WIDGETS + "/o", CONFIGMAPS + "/held", CONFIGMAPS + "/free")
    await _read(api, WIDGETS + "/w")
    await api.send(
        "PATCH",
        CONFIGMAPS + "/held",
        {"metadata": {"finalizers": None}},
        "application/merge-patch+json",
        note="release the blocking dependent",
    )
    await settle(api)
    await _read(api, WIDGETS + "/o", CONFIGMAPS + "/held")
    await api.send("POST", CONFIGMAPS, configmap("lone"))
    await api.send(
        "DELETE",
        CONFIGMAPS + "/lone",
        {"propagationPolicy": "Foreground"},
        note="foreground without dependents",
    )
    await settle(api)
    await _read(api, CONFIGMAPS + "/lone")


async def orphan(api: Api) -> None:
    owner = await api.send("POST", WIDGETS, widget("o"))
    other = await api.send("POST", WIDGETS, widget("p"))
    await api.send("POST", CONFIGMAPS, configmap("c", reference(owner)))
    await api.send(
        "POST", CONFIGMAPS, configmap("two", reference(owner), reference(other))
    )
    await api.send("POST", WIDGETS, owned_widget("w", reference(owner, block=True)))
    await api.send(
        "DELETE", WIDGETS + "/o", {"propagationPolicy": "Orphan"}, note="orphan"
    )
    await settle(api)
    await _read(api, WIDGETS + "/o", CONFIGMAPS + "/c", CONFIGMAPS + "/two")
    await _read(api, WIDGETS + "/w")
    await api.send("DELETE", WIDGETS + "/p", {"orphanDependents": True}, note="old")
    await settle(api)
    await _read(api, CONFIGMAPS + "/two")


async def dangling(api: Api) -> None:
    await api.send("POST", CONFIGMAPS, configmap("c", ghost()), note="ghost owner")
    await settle(api)
    await _read(api, CONFIGMAPS + "/c")
    owner = await api.send("POST", WIDGETS, widget("o"))
    await api.send(
        "POST", CONFIGMAPS, configmap("two", reference(owner), ghost()), note="two"
    )
    await settle(api)
    await _read(api, CONFIGMAPS + "/two")
    renamed = {**reference(owner), "uid": GHOST}
    await api.send(
        "POST", WIDGETS, owned_widget("w", renamed), note="its name, another uid"
    )
    await settle(api)
    await _read(api, WIDGETS + "/w", WIDGETS + "/o")


async def policies(api: Api) -> None:
    await api.send("POST", WIDGETS, widget("k", finalizers=["test/keep"]))
    await api.send(
        "DELETE", WIDGETS + "/k", {"propagationPolicy": "Sideways"}, note="unknown"
    )
    await api.send(
        "DELETE",
        WIDGETS + "/k",
        {"propagationPolicy": "Orphan", "orphanDependents": False},
        note="both",
    )
    await api.send(
        "DELETE", WIDGETS + "/none", {"propagationPolicy": "Sideways"}, note="none"
    )
    await api.send("DELETE", WIDGETS + "/k", note="marks it")
    await api.send(
        "DELETE", WIDGETS + "/k", {"propagationPolicy": "Orphan"}, note="then orphan"
    )
    await settle(api)
    await _read(api, WIDGETS + "/k")
    await api.send(
        "DELETE",
        WIDGETS + "/k",
        {"propagationPolicy": "Foreground"},
        note="then foreground",
    )
    await settle(api)
    await _read(api, WIDGETS + "/k")
    await api.send(
        "PATCH",
        WIDGETS + "/k",
        {"metadata": {"finalizers": None}},
        "application/merge-patch+json",
        note="release",
    )
    await settle(api)
    await _read(api, WIDGETS + "/k")
    await api.send(
        "POST", WIDGETS, widget("f", finalizers=["foregroundDeletion"]), note="made"
    )
    await api.send("DELETE", WIDGETS + "/f", note="its finalizer picks the policy")
    await settle(api)
    await _read(api, WIDGETS + "/f")


COLLECTION_SCENARIOS: dict[str, Scenario] = {
    scenario.__name__: scenario
    for scenario in (background, foreground, orphan, dangling, policies)
}
