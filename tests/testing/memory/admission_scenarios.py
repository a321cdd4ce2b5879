"""Request sequences through admission and conversion webhooks, for both backends.

The kinds and handlers are the webhook tests' (tests/webhook/handlers.py):
Pet (a defaulter, and a validator of creates, updates and deletes), Crash (a
validator that raises), Lock and Latch (validators with failure policies Fail
and Ignore) and Gizmo (v1 stored, v1alpha1 converted through the hub).
"""

from __future__ import annotations

from typing import Any

from tests.testing.memory.backends import Api, Scenario

__all__ = ["ADMISSION_SCENARIOS"]

GROUP = "/apis/webhook.opgen.dev"
PETS = GROUP + "/v1/namespaces/{ns}/pets"
CRASHES = GROUP + "/v1/namespaces/{ns}/crashes"
LOCKS = GROUP + "/v1/namespaces/{ns}/locks"
LATCHES = GROUP + "/v1/namespaces/{ns}/latches"
GIZMOS = GROUP + "/v1/namespaces/{ns}/gizmos"
OLD_GIZMOS = GROUP + "/v1alpha1/namespaces/{ns}/gizmos"
MERGE = "application/merge-patch+json"


def pet(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "webhook.opgen.dev/v1",
        "kind": "Pet",
        "metadata": {"name": name},
        "spec": {"name": name, **spec},
    }


def note(kind: str, name: str) -> dict[str, Any]:
    return {
        "apiVersion": "webhook.opgen.dev/v1",
        "kind": kind,
        "metadata": {"name": name},
        "spec": {"text": name},
    }


def gizmo(name: str, version: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": f"webhook.opgen.dev/{version}",
        "kind": "Gizmo",
        "metadata": {"name": name},
        "spec": spec,
    }


async def defaulted_and_validated(api: Api) -> None:
    await api.send("POST", PETS, pet("rex", tags=["dog"]), note="defaulted")
    await api.send("POST", PETS, pet("tom", owner="jerry", tags=["cat"]))
    await api.send("POST", PETS, pet("old", age=900), note="refused by the validator")
    await api.send("POST", PETS + "?dryRun=All", pet("dry"), note="a dry run")
    await api.send(
        "PATCH", PETS + "/tom", {"spec": {"owner": "ann"}}, MERGE, note="owner changed"
    )
    await api.send(
        "PATCH", PETS + "/tom", {"spec": {"age": 3}}, MERGE, note="age changed"
    )
    await api.send(
        "PATCH", PETS + "/rex", {"metadata": {"labels": None}}, MERGE, note="relabelled"
    )
    await api.send("DELETE", PETS + "/rex")
    await api.send("GET", PETS)


async def failures(api: Api) -> None:
    await api.send("POST", CRASHES, note("Crash", "boom"), note="a handler raises")
    await api.send("POST", LOCKS, note("Lock", "closed"))
    await api.send("POST", LATCHES, note("Latch", "open"))


async def converted(api: Api) -> None:
    since = (await api.send("GET", OLD_GIZMOS, note="list at start"))["metadata"][
        "resourceVersion"
    ]
    await api.send("POST", OLD_GIZMOS, gizmo("old", "v1alpha1", size=3, label="a"))
    await api.send("POST", GIZMOS, gizmo("new", "v1", replicas=5, color="red"))
    await api.send("GET", GIZMOS + "/old", note="v1alpha1 read as v1")
    await api.send("GET", OLD_GIZMOS + "/new", note="v1 read as v1alpha1")
    await api.send("GET", GIZMOS)
    await api.send("GET", OLD_GIZMOS)
    spoke = await api.send("GET", OLD_GIZMOS + "/new")
    spoke["spec"]["label"] = "through the spoke"
    await api.send("PUT", OLD_GIZMOS + "/new", spoke, note="updated as v1alpha1")
    await api.send("GET", GIZMOS + "/new", note="the v1 field kept")
    await api.send(
        "PATCH", OLD_GIZMOS + "/old", {"spec": {"size": 4}}, MERGE, note="patched"
    )
    await api.send("DELETE", GIZMOS + "/old")
    last = await api.send("POST", OLD_GIZMOS, gizmo("last", "v1alpha1", size=1))
    await api.events(OLD_GIZMOS, since, int(last["metadata"]["resourceVersion"]))


ADMISSION_SCENARIOS: dict[str, Scenario] = {
    "defaulted and validated": defaulted_and_validated,
    "failures": failures,
    "converted": converted,
}
