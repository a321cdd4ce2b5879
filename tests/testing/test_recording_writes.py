"""`opgen.testing.recording_writes`: every write a block sends, named; reads are not."""

from __future__ import annotations

from typing import Any

from opgen.api import ObjectMeta
from opgen.api.k8s import ConfigMap
from opgen.testing import recording_writes


class Client:
    def __init__(self) -> None:
        self.sent: list[str] = []

    async def get(self, kind: type, name: str, namespace: str | None = None) -> Any:
        return kind(metadata=ObjectMeta(name=name, namespace=namespace))

    async def update(self, obj: Any, *, refresh: bool = True) -> Any:
        self.sent.append("update")
        return obj

    async def patch_status(self, obj: Any, *, refresh: bool = True) -> Any:
        self.sent.append("patch_status")
        return obj

    async def delete_collection(self, kind: type, namespace: str | None = None) -> None:
        self.sent.append("delete_collection")

    create = update_status = patch = apply = apply_status = delete = update


async def test_writes_to_children_are_named_and_still_sent() -> None:
    client = Client()
    child = ConfigMap(metadata=ObjectMeta(name="db", namespace="ns"))
    with recording_writes(client) as writes:  # type: ignore[arg-type]
        await client.get(ConfigMap, "settings", "ns")
        await client.update(child)
        await client.patch_status(ConfigMap(metadata=ObjectMeta(name="cm")))
        await client.delete_collection(ConfigMap, namespace="ns")
    assert writes == [
        "update ConfigMap ns/db",
        "patch_status ConfigMap cm",
        "delete_collection ConfigMap ns",
    ]
    assert client.sent == ["update", "patch_status", "delete_collection"]
    await client.update(child)
    assert len(writes) == 3, "nothing is recorded after the block"
