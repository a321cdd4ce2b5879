"""The schema's pruning and defaults given the stored object an update replaces:
the same object as without it, its own values kept, and never an object an
older schema pruned."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from opgen.testing.memory import Kinds, MemoryApiServer
from opgen.testing.memory.schema import prune_and_default
from tests.testing.memory.crds import generated_crds

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": {
            "type": "object",
            "properties": {
                "size": {"type": "integer", "default": 1},
                "note": {"type": "string", "nullable": True},
                "labels": {
                    "type": "object",
                    "additionalProperties": {"type": "string"},
                },
                "free": {
                    "type": "object",
                    "x-kubernetes-preserve-unknown-fields": True,
                },
                "items": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string"},
                            "port": {"type": "integer", "default": 80},
                        },
                    },
                },
            },
        },
    },
}


def _value(rng: random.Random) -> Any:
    return rng.choice([None, 0, 1, 1.0, True, "a", {}, {"x": 1}, [], [1]])


def _spec(rng: random.Random) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    for key in ("size", "note", "stray"):
        if rng.random() < 0.6:
            spec[key] = _value(rng)
    if rng.random() < 0.6:
        spec["labels"] = {k: rng.choice(["v", "w", None]) for k in rng.sample("abc", 2)}
    if rng.random() < 0.6:
        spec["free"] = {"k": _value(rng), "n": {"deep": _value(rng)}}
    if rng.random() < 0.8:
        spec["items"] = [
            {
                key: value
                for key, value in (
                    ("name", rng.choice(["p", "q"])),
                    ("port", rng.choice([80, 81, None])),
                    ("stray", 1),
                )
                if rng.random() < 0.7
            }
            for _ in range(rng.randint(0, 3))
        ]
    return spec


def _obj(spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v", "kind": "K", "metadata": {"name": "n"}, "spec": spec}


def _typed(value: Any) -> Any:
    """`value` with each scalar's type beside it (`1 == 1.0 == True` otherwise)."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, value)


def test_an_object_comes_out_as_it_would_without_the_stored_one() -> None:
    rng = random.Random(25)
    for _ in range(500):
        stored = prune_and_default(_SCHEMA, _obj(_spec(rng)))
        # a new spec, or the stored one changed in one place, or itself
        spec = rng.choice(
            [
                _spec(rng),
                {**copy.deepcopy(stored["spec"]), "size": _value(rng)},
                copy.deepcopy(stored["spec"]),
            ]
        )
        obj = _obj(spec)
        alone = prune_and_default(_SCHEMA, copy.deepcopy(obj))
        assert _typed(prune_and_default(_SCHEMA, obj, stored)) == _typed(alone)
        assert obj == _obj(spec), "the object is not changed"


def test_an_equal_field_keeps_its_own_values() -> None:
    stored = prune_and_default(_SCHEMA, _obj({"size": 3, "free": {"k": 1}}))
    sent = _obj({"size": 3.0, "free": {"k": True}})
    result = prune_and_default(_SCHEMA, sent, stored)
    assert type(result["spec"]["size"]) is float
    assert result["spec"]["free"]["k"] is True


GAUGES = "/apis/memory.opgen.dev/v1/namespaces/default/gauges"


def test_an_object_stored_under_an_older_schema_is_pruned_again() -> None:
    crds = copy.deepcopy(generated_crds())
    kinds = Kinds()
    kinds.add_crds(crds)  # no models: the schema alone prunes
    server = MemoryApiServer(kinds)
    gauge = {
        "apiVersion": "memory.opgen.dev/v1",
        "kind": "Gauge",
        "metadata": {"name": "g"},
        "spec": {"size": 3, "high": 2},
    }
    code, made = server.handle("POST", GAUGES, json.dumps(gauge).encode())
    assert code == 201 and made is not None and made["spec"]["high"] == 2
    [served] = [c for c in crds if c["spec"]["names"]["kind"] == "Gauge"]
    crd = copy.deepcopy(served)  # the served kinds' schemas are left as they are
    for version in crd["spec"]["versions"]:
        spec = version["schema"]["openAPIV3Schema"]["properties"]["spec"]
        del spec["properties"]["high"]
    kinds.add_crds([crd])
    # the stored spec sent back as it is: equal to the stored object's
    code, updated = server.handle("PUT", f"{GAUGES}/g", json.dumps(made).encode())
    assert code == 200 and updated is not None
    assert "high" not in updated["spec"], "the new schema no longer knows it"
