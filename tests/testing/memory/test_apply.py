"""Server-side apply through the runtime's client on the memory server, with no
envtest: what a controller calling `client.apply` relies on (the agreement
tests hold the same answers to envtest's)."""

from __future__ import annotations

import pytest

from opgen import runtime as rt
from opgen.api import ObjectMeta
from opgen.api.k8s import ConfigMap
from opgen.runtime.rest import ClientOptions, RestClient
from opgen.testing.memory import MemoryApiServer


def _configmap(**data: str) -> ConfigMap:
    return ConfigMap(metadata=ObjectMeta(name="c", namespace="default"), data=data)


def _managers(obj: ConfigMap) -> dict[str, str]:
    return {e["manager"]: e["operation"] for e in obj.metadata.managed_fields or []}


async def test_two_managers_apply_conflict_and_force(
    memory_server: MemoryApiServer,
) -> None:
    client = rt.Client(RestClient(memory_server.transport()))
    first = await client.apply(_configmap(a="1"), field_manager="alice")
    assert first.data == {"a": "1"} and _managers(first) == {"alice": "Apply"}
    both = await client.apply(_configmap(b="2"), field_manager="bob")
    assert both.data == {"a": "1", "b": "2"}
    with pytest.raises(rt.ApiError) as refused:
        await client.apply(_configmap(a="9"), field_manager="bob")
    assert refused.value.code == 409
    causes = (refused.value.status or {})["details"]["causes"]
    assert causes == [
        {
            "reason": "FieldManagerConflict",
            "message": 'conflict with "alice"',
            "field": ".data.a",
        }
    ]
    forced = await client.apply(_configmap(a="9"), field_manager="bob", force=True)
    assert forced.data == {"a": "9"}  # bob no longer applies b: it goes
    assert _managers(forced) == {"bob": "Apply"}  # alice lost her only field


async def test_an_update_records_its_manager_beside_the_appliers(
    memory_server: MemoryApiServer,
) -> None:
    client = rt.Client(RestClient(memory_server.transport()))
    carol = rt.Client(
        RestClient(memory_server.transport(), ClientOptions(field_manager="carol"))
    )
    await client.apply(_configmap(a="1"), field_manager="alice")
    current = await carol.get(ConfigMap, "c", namespace="default")
    current.data = {"a": "1", "z": "26"}
    updated = await carol.update(current)
    assert _managers(updated) == {"alice": "Apply", "carol": "Update"}
