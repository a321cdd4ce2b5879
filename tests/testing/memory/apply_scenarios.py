"""Server-side apply scenarios the agreement tests run on envtest and on the memory
server: two or more field managers applying, conflicting, forcing, dropping
fields, next to managers that update; `managedFields` are compared too."""

from __future__ import annotations

from typing import Any

from tests.testing.memory.backends import Api, Scenario
from tests.testing.memory.scenarios import CONFIGMAPS, MERGE, start, watch_since

__all__ = ["APPLY_SCENARIOS"]

RACKS = "/apis/memory.opgen.dev/v1/namespaces/{ns}/racks"
APPLY = "application/apply-patch+yaml"


def rack(name: str = "r", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "memory.opgen.dev/v1",
        "kind": "Rack",
        "metadata": {"name": name},
        "spec": spec,
    }


async def _apply(
    api: Api,
    path: str,
    manager: str,
    body: dict[str, Any],
    note: str,
    force: bool = False,
) -> None:
    query = f"?fieldManager={manager}" + ("&force=true" if force else "")
    await api.send("PATCH", path + query, body, APPLY, note=note)


async def two_appliers(api: Api) -> None:
    since = await start(api, RACKS)
    one = RACKS + "/r"
    await _apply(
        api,
        one,
        "alice",
        rack(
            ports=[{"name": "http", "number": 80}],
            tags=["a"],
            hosts=["h1"],
            settings={"x": "1"},
            size=1,
        ),
        "an apply creates",
    )
    await _apply(
        api,
        one,
        "bob",
        rack(ports=[{"name": "grpc", "number": 90}], tags=["a", "b"], owner="bob"),
        "a second manager adds list items and shares a set item",
    )
    await _apply(api, one, "bob", rack(size=2, hosts=["h2"]), "conflicts")
    await _apply(api, one, "bob", rack(size=1), "the same value is shared")
    await _apply(
        api,
        one,
        "bob",
        rack(size=2, ports=[{"name": "grpc", "number": 91}], tags=["b"], owner="bob"),
        "force takes the fields",
        force=True,
    )
    await _apply(
        api, one, "alice", rack(tags=["a"]), "fields no longer applied are removed"
    )
    await _apply(api, one, "alice", rack(tags=["a"]), "an apply that changes nothing")
    await api.send("GET", one)
    await watch_since(api, RACKS, since, rack("zz-last"))


async def appliers_and_updaters(api: Api) -> None:
    since = await start(api, RACKS)
    one = RACKS + "/r"
    await api.send(
        "POST",
        RACKS + "?fieldManager=carol",
        rack(size=1, settings={"a": "1"}),
        note="an update manager creates",
    )
    await _apply(api, one, "alice", rack(size=3), "conflict with an updater")
    await _apply(api, one, "alice", rack(size=3, owner="al"), "force", force=True)
    await api.send(
        "PATCH",
        one + "?fieldManager=carol",
        {"spec": {"owner": "carol", "settings": {"b": "2"}}},
        MERGE,
        note="a merge patch takes an applied field",
    )
    await _apply(api, one, "alice", rack(size=3), "alice stops applying the owner")
    current = await api.send("GET", one)
    current["spec"]["settings"] = {"c": "3"}
    await api.send("PUT", one + "?fieldManager=erin", current, note="an update")
    await _apply(
        api,
        one + "/status",
        "dave",
        {**rack(), "status": {"phase": "Up", "ready": 1}},
        "apply to the status subresource",
    )
    await api.send(
        "PATCH",
        one + "/status?fieldManager=carol",
        {"status": {"ready": 2}},
        MERGE,
        note="a status merge patch",
    )
    await _apply(
        api,
        one + "/status",
        "dave",
        {**rack(), "status": {"phase": "Up"}},
        "status conflict",
    )
    await _apply(
        api,
        RACKS + "/none/status",
        "dave",
        {**rack("none"), "status": {}},
        "status apply to a missing object",
    )
    await api.send("PATCH", one, rack(size=4), APPLY, note="no field manager")
    await _apply(api, one, "alice", rack("other", size=3), "another name")
    await _apply(
        api, one, "alice", {"metadata": {"name": "r"}, "spec": {}}, "no apiVersion"
    )
    await watch_since(api, RACKS, since, rack("zz-last"))


async def configmap_appliers(api: Api) -> None:
    since = await start(api, CONFIGMAPS)
    one = CONFIGMAPS + "/c"

    def configmap(data: dict[str, str], **meta: Any) -> dict[str, Any]:
        return {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "c", **meta},
            "data": data,
        }

    await _apply(api, one, "alice", configmap({"a": "1"}, labels={"x": "1"}), "create")
    await _apply(api, one, "bob", configmap({"b": "2"}, labels={"y": "2"}), "second")
    await _apply(api, one, "bob", configmap({"a": "9"}), "conflict")
    await _apply(api, one, "bob", configmap({"a": "9"}), "force", force=True)
    await api.send(
        "PATCH",
        one + "?fieldManager=carol",
        {"data": {"c": "3"}},
        MERGE,
        note="an updater",
    )
    await _apply(api, one, "alice", configmap({}), "alice drops its fields")
    await watch_since(
        api,
        CONFIGMAPS,
        since,
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "zz-last"}},
    )


APPLY_SCENARIOS: dict[str, Scenario] = {
    scenario.__name__: scenario
    for scenario in (two_appliers, appliers_and_updaters, configmap_appliers)
}
