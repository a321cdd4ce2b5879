"""Random operation sequences for the differential test, drawn once, run on both servers.

`draw(rng, length)` plans a sequence of operations on two Widgets and
two Gauges (creates with valid and invalid specs and finalizers, updates
from the latest, a stale or no resourceVersion, merge and JSON patches,
status writes, finalizer changes, deletes with and without preconditions,
reads and selective lists, server-side applies from two field managers with
and without force); `run(api, plan)` performs it on one server,
resolving "the latest object" and "its first resourceVersion" from that
server's own answers.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from tests.testing.memory.backends import Api

__all__ = ["Operation", "draw", "run"]

PATHS = {
    "Widget": "/apis/test.opgen.dev/v1/namespaces/{ns}/widgets",
    "Gauge": "/apis/memory.opgen.dev/v1/namespaces/{ns}/gauges",
}
MERGE = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"
APPLY = "application/apply-patch+yaml"
FINALIZER = "test.opgen.dev/hold"

_VERBS = (
    "create",
    "get",
    "list",
    "update",
    "update_stale",
    "update_unversioned",
    "merge_spec",
    "json_patch",
    "status",
    "add_finalizer",
    "drop_finalizers",
    "delete",
    "delete_precondition",
    "label",
    "apply",
)


@dataclass(frozen=True)
class Operation:
    verb: str
    kind: str
    name: str
    value: Any


def _spec(rng: random.Random, kind: str) -> dict[str, Any]:
    if kind == "Widget":
        return {"replicas": rng.choice([0, 1, 2, 5, -1, "many"])}
    spec: dict[str, Any] = {"size": rng.choice([1, 3, 10, 0, 11])}
    if rng.random() < 0.3:
        spec["mode"] = rng.choice(["Fast", "Slow", "Medium"])
    if rng.random() < 0.3:
        spec["low"], spec["high"] = rng.choice([(0, 1), (2, 1), (3, 3)])
    if rng.random() < 0.3:
        spec["locked"] = rng.choice(["k", "j"])
    return spec


def _valid_spec(kind: str) -> dict[str, Any]:
    return {"replicas": 1} if kind == "Widget" else {"size": 2}


def draw(rng: random.Random, length: int) -> list[Operation]:
    """Creates of Widgets and Gauges `a` and `b` (some with a finalizer), then
    `length` random operations on them."""
    plan = [
        Operation(
            "create",
            kind,
            name,
            {"spec": _valid_spec(kind), "finalizers": rng.random() < 0.4},
        )
        for kind in ("Widget", "Gauge")
        for name in ("a", "b")
    ]
    for _ in range(length):
        kind = rng.choice(["Widget", "Gauge"])
        name = rng.choice(["a", "b"])
        verb = rng.choice(_VERBS)
        value: Any = None
        if verb in (
            "create",
            "update",
            "update_stale",
            "update_unversioned",
            "merge_spec",
        ):
            value = {"spec": _spec(rng, kind), "finalizers": rng.random() < 0.3}
        elif verb == "json_patch":
            value = rng.choice(["replace", "test", "remove-missing"])
        elif verb == "status":
            value = rng.choice([0, 2, -1])
        elif verb in ("label", "list"):
            value = rng.choice(["x", "y"])
        elif verb == "apply":
            value = {
                "spec": _spec(rng, kind),
                "manager": rng.choice(["alice", "bob"]),
                "force": rng.random() < 0.3,
                "label": rng.random() < 0.5,
            }
        plan.append(Operation(verb, kind, name, value))
    return plan


def _body(op: Operation, meta: dict[str, Any]) -> dict[str, Any]:
    group = "test.opgen.dev" if op.kind == "Widget" else "memory.opgen.dev"
    return {
        "apiVersion": f"{group}/v1",
        "kind": op.kind,
        "metadata": meta,
        "spec": op.value["spec"],
    }


async def run(api: Api, plan: list[Operation]) -> None:
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    first: dict[tuple[str, str], str] = {}

    def remember(key: tuple[str, str], answer: dict[str, Any]) -> None:
        if answer.get("kind") == key[0]:
            latest[key] = answer
            first.setdefault(key, answer["metadata"]["resourceVersion"])

    for step, op in enumerate(plan):
        key = (op.kind, op.name)
        path = f"{PATHS[op.kind]}/{op.name}"
        note = f"{step}: {op.verb} {op.kind}/{op.name} {op.value}"
        known = latest.get(key, {"metadata": {"name": op.name}})
        meta = dict(known["metadata"])
        if op.verb == "create":
            made: dict[str, Any] = {"name": op.name}
            if op.value["finalizers"]:
                made["finalizers"] = [FINALIZER]
            answer = await api.send("POST", PATHS[op.kind], _body(op, made), note=note)
        elif op.verb == "get":
            answer = await api.send("GET", path, note=note)
        elif op.verb == "list":
            query = f"?labelSelector=tier%3D{op.value}"
            await api.send("GET", PATHS[op.kind] + query, note=note)
            continue
        elif op.verb.startswith("update"):
            if op.verb == "update_stale" and key in first:
                meta["resourceVersion"] = first[key]
            elif op.verb == "update_unversioned":
                meta.pop("resourceVersion", None)
            if op.value["finalizers"]:
                meta["finalizers"] = [*(meta.get("finalizers") or []), FINALIZER]
            answer = await api.send("PUT", path, _body(op, meta), note=note)
        elif op.verb == "merge_spec":
            answer = await api.send(
                "PATCH", path, {"spec": op.value["spec"]}, MERGE, note=note
            )
        elif op.verb == "json_patch":
            field = "/spec/replicas" if op.kind == "Widget" else "/spec/size"
            patch = {
                "replace": [{"op": "replace", "path": field, "value": 2}],
                "test": [{"op": "test", "path": field, "value": 1}],
                "remove-missing": [{"op": "remove", "path": "/spec/nothing"}],
            }[op.value]
            answer = await api.send("PATCH", path, patch, JSON_PATCH, note=note)
        elif op.verb == "status":
            status = (
                {"replicas": op.value} if op.kind == "Widget" else {"reading": op.value}
            )
            answer = await api.send(
                "PATCH", path + "/status", {"status": status}, MERGE, note=note
            )
        elif op.verb == "add_finalizer":
            patch = {"metadata": {"finalizers": [FINALIZER]}}
            answer = await api.send("PATCH", path, patch, MERGE, note=note)
        elif op.verb == "drop_finalizers":
            patch = {"metadata": {"finalizers": None}}
            answer = await api.send("PATCH", path, patch, MERGE, note=note)
        elif op.verb == "label":
            patch = {"metadata": {"labels": {"tier": op.value}}}
            answer = await api.send("PATCH", path, patch, MERGE, note=note)
        elif op.verb == "apply":
            query = f"?fieldManager={op.value['manager']}"
            query += "&force=true" if op.value["force"] else ""
            applied: dict[str, Any] = {"name": op.name}
            if op.value["label"]:
                applied["labels"] = {"applied-by": op.value["manager"]}
            answer = await api.send(
                "PATCH", path + query, _body(op, applied), APPLY, note=note
            )
        elif op.verb == "delete":
            answer = await api.send("DELETE", path, note=note)
        else:
            uid = first.get(key, "none") and meta.get("uid", "none")
            options = {"preconditions": {"uid": uid}}
            answer = await api.send("DELETE", path, options, note=note)
        remember(key, answer)
