"""Finalizers, added and removed by patch.

Both writes are JSON merge patches of `metadata.finalizers` carrying the
object's resourceVersion, so they fail with `Conflict` (retried quietly by the
controller) instead of overwriting another writer's list — and never touch
the rest of the object the way a full update would. A finalizer is never added
once `deletionTimestamp` is set (the server would keep the object forever).
Only the metadata fields needed are read (`metafields`).
"""

from __future__ import annotations

from typing import Any

from opgen.runtime import metafields
from opgen.runtime.client import Client

__all__ = ["ensure", "has", "is_deleting", "remove"]


def has(obj: object, name: str) -> bool:
    """Whether `obj` carries the finalizer `name`."""
    return name in (metafields.get(obj, "finalizers") or ())


def is_deleting(obj: object) -> bool:
    """Whether deletion was requested (`metadata.deletionTimestamp` is set)."""
    return bool(metafields.get(obj, "deletionTimestamp"))


async def _patch_finalizers(client: Client, obj: object, finalizers: list[str]) -> None:
    patch: dict[str, Any] = {
        "metadata": {
            "finalizers": finalizers or None,
            "resourceVersion": metafields.get(obj, "resourceVersion"),
        }
    }
    await client.patch(obj, patch)


async def ensure(client: Client, obj: object, name: str) -> bool:
    """Add finalizer `name` (refreshing `obj`); True if added now, False if present
    already or the object is being deleted."""
    if has(obj, name) or is_deleting(obj):
        return False
    current = list(metafields.get(obj, "finalizers") or ())
    await _patch_finalizers(client, obj, [*current, name])
    return True


async def remove(client: Client, obj: object, name: str) -> bool:
    """Remove finalizer `name` (refreshing `obj`); True if removed now, False if it was not there."""
    if not has(obj, name):
        return False
    current = list(metafields.get(obj, "finalizers") or ())
    await _patch_finalizers(client, obj, [f for f in current if f != name])
    return True
