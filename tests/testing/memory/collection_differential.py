"""Random sequences of owners, deletes and strategic merge patches, drawn once
and run on envtest with kube-controller-manager and on a memory server that
collects.

`draw(rng, length)` plans creates of two Widgets (`a`, `b`: a CRD kind), two
ConfigMaps (`c`, `d`: a built-in) and a PodTemplate (`t`), some with a
finalizer and owners among the others (`blockOwnerDeletion` drawn), then
`length` operations: deletes with each propagation policy (or none, or the
deprecated `orphanDependents`), finalizers released, owners set by a merge
patch, strategic merge patches of the ConfigMaps (finalizers merged, deleted
from and ordered, labels, data, owners added and deleted by uid) and of the
PodTemplate (containers added, changed, deleted by name, ordered and
replaced, their env merged by name), reads, and creates again.
`run(api, plan)` resolves owners to the uids that server gave, and waits
for the collector to settle (`collection_scenarios.settle`) after every
write. A PodTemplate's spec is Go-defaulted on envtest: its containers are
compared (`backends.summarize`), not its whole template.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from tests.testing.memory.backends import Api
from tests.testing.memory.collection_scenarios import settle

__all__ = ["Operation", "draw", "run"]

PATHS = {
    "Widget": "/apis/test.opgen.dev/v1/namespaces/{ns}/widgets",
    "ConfigMap": "/api/v1/namespaces/{ns}/configmaps",
    "PodTemplate": "/api/v1/namespaces/{ns}/podtemplates",
}
KIND_OF = {
    "a": "Widget",
    "b": "Widget",
    "c": "ConfigMap",
    "d": "ConfigMap",
    "t": "PodTemplate",
}
CONTAINERS = ("x", "y", "z")
MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
FINALIZER = "test.opgen.dev/hold"
_POLICIES = (None, "Background", "Foreground", "Orphan", "orphanDependents")
_VERBS = (
    "create",
    "delete",
    "delete",
    "release",
    "owners",
    "strategic",
    "strategic",
    "get",
)


@dataclass(frozen=True)
class Operation:
    verb: str
    name: str
    value: Any


def _owners(rng: random.Random, name: str) -> list[tuple[str, bool]]:
    others = [n for n in KIND_OF if n != name]
    chosen = rng.sample(others, rng.choice([0, 1, 1, 2]))
    return [(owner, rng.random() < 0.5) for owner in chosen]


def _strategic(rng: random.Random) -> tuple[str, Any]:
    choice = rng.choice(
        ["finalizer", "unfinalize", "label", "data", "owner", "disown", "order"]
    )
    if choice == "finalizer":
        return choice, rng.choice([FINALIZER, "test.opgen.dev/more"])
    if choice in ("owner", "disown"):
        return choice, rng.choice(["a", "b", "c", "d"])
    return choice, rng.choice(["x", "y"])


def draw(rng: random.Random, length: int) -> list[Operation]:
    plan = [
        Operation(
            "create",
            name,
            {"finalizer": rng.random() < 0.3, "owners": _owners(rng, name)},
        )
        for name in ("a", "c", "b", "d", "t")
    ]
    for _ in range(length):
        name = rng.choice(list(KIND_OF))
        verb = rng.choice(_VERBS)
        value: Any = None
        if verb == "create":
            value = {"finalizer": rng.random() < 0.3, "owners": _owners(rng, name)}
        elif verb == "delete":
            value = rng.choice(_POLICIES)
        elif verb == "owners":
            value = _owners(rng, name)
        elif verb == "strategic":
            name = rng.choice(["c", "d", "t"])
            value = _containers_patch(rng) if name == "t" else _strategic(rng)
        plan.append(Operation(verb, name, value))
    return plan


def _containers_patch(rng: random.Random) -> tuple[str, Any]:
    # Go validation wants an image on every container and at least one
    # container (the memory server does not reproduce it): `x` always stays
    choice = rng.choice(["add", "image", "env", "delete", "order", "replace"])
    if choice == "order":
        return choice, rng.sample(CONTAINERS, 3)
    if choice == "delete":
        return choice, (rng.choice(CONTAINERS[1:]), "")
    if choice == "env":
        return choice, (rng.choice(CONTAINERS), rng.choice(["A", "B"]), rng.random())
    return choice, (rng.choice(CONTAINERS), rng.choice(["nginx", "busybox"]))


def _container_patch(value: tuple[str, Any]) -> dict[str, Any]:
    choice, argument = value
    if choice == "order":
        spec: dict[str, Any] = {
            "$setElementOrder/containers": [{"name": n} for n in argument],
            "containers": [],
        }
    elif choice == "env":
        name, variable, number = argument
        env = [{"name": variable, "value": f"{number:.2f}"}]
        spec = {"containers": [{"name": name, "image": "nginx", "env": env}]}
    elif choice == "delete":
        spec = {"containers": [{"name": argument[0], "$patch": "delete"}]}
    elif choice == "replace":
        kept = [{"name": "x", "image": "nginx"}]
        if argument[0] != "x":
            kept.append({"name": argument[0], "image": argument[1]})
        spec = {"containers": [{"$patch": "replace"}, *kept]}
    else:
        spec = {"containers": [{"name": argument[0], "image": argument[1]}]}
    return {"template": {"spec": spec}}


def _body(name: str, meta: dict[str, Any]) -> dict[str, Any]:
    if KIND_OF[name] == "PodTemplate":
        container = {"name": "x", "image": "nginx"}
        return {
            "apiVersion": "v1",
            "kind": "PodTemplate",
            "metadata": meta,
            "template": {"spec": {"containers": [container]}},
        }
    if KIND_OF[name] == "Widget":
        return {
            "apiVersion": "test.opgen.dev/v1",
            "kind": "Widget",
            "metadata": meta,
            "spec": {"replicas": 1},
        }
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}


async def run(api: Api, plan: list[Operation]) -> None:
    api.go_defaulted = frozenset({"PodTemplate"})  # its containers are compared
    uids: dict[str, str] = {}

    def reference(owner: str, block: bool) -> dict[str, Any]:
        api_version = "test.opgen.dev/v1" if KIND_OF[owner] == "Widget" else "v1"
        # an owner never created is named by a uid no object has
        uid = uids.get(owner, f"00000000-0000-4000-8000-0000000000{ord(owner):02x}")
        return {
            "apiVersion": api_version,
            "kind": KIND_OF[owner],
            "name": owner,
            "uid": uid,
            "blockOwnerDeletion": block,
        }

    for step, op in enumerate(plan):
        path = f"{PATHS[KIND_OF[op.name]]}/{op.name}"
        note = f"{step}: {op.verb} {op.name} {op.value}"
        if op.verb == "create":
            meta: dict[str, Any] = {"name": op.name}
            if op.value["finalizer"]:
                meta["finalizers"] = [FINALIZER]
            if op.value["owners"]:
                meta["ownerReferences"] = [
                    reference(o, b) for o, b in op.value["owners"]
                ]
            answer = await api.send(
                "POST", PATHS[KIND_OF[op.name]], _body(op.name, meta), note=note
            )
            if answer.get("kind") == KIND_OF[op.name]:
                uids[op.name] = answer["metadata"]["uid"]
        elif op.verb == "delete":
            options = (
                {"orphanDependents": True}
                if op.value == "orphanDependents"
                else {"propagationPolicy": op.value} if op.value else None
            )
            await api.send("DELETE", path, options, note=note)
        elif op.verb == "release":
            released: dict[str, Any] = {"metadata": {"finalizers": None}}
            await api.send("PATCH", path, released, MERGE, note=note)
        elif op.verb == "owners":
            owners = [reference(o, b) for o, b in op.value] or None
            patch: dict[str, Any] = {"metadata": {"ownerReferences": owners}}
            await api.send("PATCH", path, patch, MERGE, note=note)
        elif op.verb == "strategic":
            patch = (
                _container_patch(op.value)
                if KIND_OF[op.name] == "PodTemplate"
                else _strategic_patch(op.value, reference)
            )
            await api.send("PATCH", path, patch, STRATEGIC, note=note)
        else:
            await api.send("GET", path, note=note)
        if op.verb != "get":
            await settle(api, tuple(PATHS.values()))
    for name in KIND_OF:
        await api.send("GET", f"{PATHS[KIND_OF[name]]}/{name}", note=f"end: {name}")


def _strategic_patch(value: tuple[str, Any], reference: Any) -> dict[str, Any]:
    choice, argument = value
    if choice == "finalizer":
        return {"metadata": {"finalizers": [argument]}}
    if choice == "unfinalize":
        return {"metadata": {"$deleteFromPrimitiveList/finalizers": [FINALIZER]}}
    if choice == "label":
        return {"metadata": {"labels": {"tier": argument}}}
    if choice == "data":
        return {"data": {argument: argument, "y" if argument == "x" else "x": None}}
    if choice == "owner":
        return {"metadata": {"ownerReferences": [reference(argument, False)]}}
    if choice == "disown":
        uid = reference(argument, False)["uid"]
        return {"metadata": {"ownerReferences": [{"$patch": "delete", "uid": uid}]}}
    return {
        "metadata": {
            "$setElementOrder/finalizers": ["test.opgen.dev/more", FINALIZER],
        }
    }
