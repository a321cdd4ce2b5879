"""The `/status` and `/scale` subresources of typed clients, mixed in only when the
kind has them (so `update_scale` on a kind without `/scale` fails `mypy --strict`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

import msgspec

from opgen.runtime.typed._base import _Base

__all__ = [
    "ClusterScale",
    "ClusterStatus",
    "NamespacedScale",
    "NamespacedStatus",
    "Scale",
]

T = TypeVar("T")


class _Status(_Base[T]):
    """/status writes of an object, the same for both scopes."""

    async def update_status(self, obj: T, *, refresh: bool = True) -> T:
        """Replace `obj`'s status (resourceVersion checked); refreshes it."""
        self._check(obj)
        return await self._client.update_status(obj, refresh=refresh)

    async def patch_status(self, obj: T, *, refresh: bool = True) -> T:
        """Merge-patch `obj.status` (no resourceVersion precondition); refreshes it."""
        self._check(obj)
        return await self._client.patch_status(obj, refresh=refresh)

    async def apply_status(
        self,
        obj: T,
        *,
        field_manager: str | None = None,
        force: bool = False,
        refresh: bool = True,
    ) -> T:
        """Server-side apply of `obj.status`; refreshes it."""
        self._check(obj)
        return await self._client.apply_status(
            obj, field_manager=field_manager, force=force, refresh=refresh
        )


class NamespacedStatus(_Status[T]):
    """/status for a namespaced kind."""

    async def get_status(self, name: str, *, namespace: str) -> T:
        return await self._client.uncached.get(
            self.model, name, namespace, subresource="status"
        )


class ClusterStatus(_Status[T]):
    """/status for a cluster-scoped kind."""

    async def get_status(self, name: str) -> T:
        return await self._client.uncached.get(
            self.model, name, None, subresource="status"
        )


@dataclass(frozen=True)
class Scale:
    """The scale subresource (autoscaling/v1 Scale)."""

    replicas: int
    status_replicas: int | None
    selector: str | None
    resource_version: str | None


def _scale(raw: bytes) -> Scale:
    data = msgspec.json.decode(raw)
    spec = data.get("spec") or {}
    status = data.get("status") or {}
    return Scale(
        replicas=int(spec.get("replicas") or 0),
        status_replicas=status.get("replicas"),
        selector=status.get("selector"),
        resource_version=(data.get("metadata") or {}).get("resourceVersion"),
    )


class _Scale(_Base[T]):
    """/scale reads and writes, the same for both scopes."""

    async def _get_scale(self, name: str, namespace: str | None) -> Scale:
        raw = await self._client.rest.request(
            "get", self._rtype, name=name, namespace=namespace, subresource="scale"
        )
        return _scale(raw)

    async def _update_scale(
        self, name: str, replicas: int, namespace: str | None
    ) -> Scale:
        raw = await self._client.rest.request(
            "patch",
            self._rtype,
            name=name,
            namespace=namespace,
            subresource="scale",
            body=msgspec.json.encode({"spec": {"replicas": replicas}}),
            content_type="application/merge-patch+json",
        )
        return _scale(raw)


class NamespacedScale(_Scale[T]):
    """/scale for a namespaced kind."""

    async def get_scale(self, name: str, *, namespace: str) -> Scale:
        return await self._get_scale(name, namespace)

    async def update_scale(self, name: str, replicas: int, *, namespace: str) -> Scale:
        return await self._update_scale(name, replicas, namespace)


class ClusterScale(_Scale[T]):
    """/scale for a cluster-scoped kind."""

    async def get_scale(self, name: str) -> Scale:
        return await self._get_scale(name, None)

    async def update_scale(self, name: str, replicas: int) -> Scale:
        return await self._update_scale(name, replicas, None)
