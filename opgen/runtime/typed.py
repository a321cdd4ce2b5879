"""Typed per-kind clients: the generic base that generated clients subclass.

A generated client is a few lines::

    class RayClusterClient(
        rt.typed.NamespacedClient[RayCluster],
        rt.typed.NamespacedStatus[RayCluster],
        rt.typed.NamespacedScale[RayCluster],
    ):
        model = RayCluster

Namespaced kinds take a keyword-only `namespace=` everywhere it is needed and
cluster-scoped kinds have no such parameter, so a missing namespace or a
wrong model type fails `mypy --strict`. Every call goes to the API server
(reconcilers read through the cached `rt.Client` instead).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

import msgspec

from opgen.runtime import errors, resources, selectors
from opgen.runtime.client import Client, PatchType, Preconditions, Propagation
from opgen.runtime.resources import ResourceType

__all__ = [
    "ClusterClient",
    "ClusterScale",
    "ClusterStatus",
    "NamespacedClient",
    "NamespacedScale",
    "NamespacedStatus",
    "Page",
    "Scale",
    "WatchEvent",
]

T = TypeVar("T")
Patch = Mapping[str, Any] | Sequence[Mapping[str, Any]]


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list: the objects and the token for the next page (None at the end)."""

    items: list[T]
    continue_: str | None


@dataclass(frozen=True)
class WatchEvent(Generic[T]):
    type: Literal["ADDED", "MODIFIED", "DELETED"]
    object: T


@dataclass(frozen=True)
class Scale:
    """The scale subresource (autoscaling/v1 Scale)."""

    replicas: int
    status_replicas: int | None
    selector: str | None
    resource_version: str | None


class _Base(Generic[T]):
    model: type[T]

    def __init__(self, client: Client) -> None:
        self._client = client
        self._reader = client.uncached

    @property
    def _rtype(self) -> ResourceType[T]:
        return resources.resource_type(self.model)

    def _check(self, obj: T) -> None:
        if not isinstance(obj, self.model):
            raise TypeError(
                f"expected a {self.model.__name__}, got a {type(obj).__name__}"
            )

    async def _get(self, name: str, namespace: str | None) -> T:
        return await self._reader.get(self.model, name, namespace)

    async def _list(
        self,
        namespace: str | None,
        labels: selectors.Selector | None,
        fields: selectors.Selector | None,
        limit: int | None,
        continue_: str | None,
    ) -> Page[T]:
        items, token = await self._reader.list_page(
            self.model,
            namespace,
            labels=labels,
            fields=fields,
            limit=limit,
            continue_=continue_,
        )
        return Page(items, token)

    async def _watch(
        self,
        namespace: str | None,
        labels: selectors.Selector | None,
        fields: selectors.Selector | None,
        resource_version: str | None,
        timeout_seconds: int | None,
    ) -> AsyncIterator[WatchEvent[T]]:
        rtype = self._rtype
        params = {
            "labelSelector": selectors.to_query(labels),
            "fieldSelector": selectors.to_query(fields),
            "resourceVersion": resource_version,
            "timeoutSeconds": timeout_seconds,
        }
        async with self._client.rest.stream(
            rtype, namespace=namespace, params=params, read_timeout=None
        ) as lines:
            async for line in lines:
                if not line:
                    continue
                event = msgspec.json.decode(line)
                kind = event.get("type")
                if kind == "ERROR":
                    raise errors.from_status(event.get("object") or {})
                if kind in ("ADDED", "MODIFIED", "DELETED"):
                    yield WatchEvent(kind, rtype.decode_dict(event["object"]))

    async def create(self, obj: T) -> T:
        """Create `obj` (raises `AlreadyExists`); returns it refreshed from the server."""
        self._check(obj)
        return await self._client.create(obj)

    async def update(self, obj: T) -> T:
        """Replace `obj` (raises `Conflict` if it changed since read)."""
        self._check(obj)
        return await self._client.update(obj)

    async def apply(
        self, obj: T, *, field_manager: str | None = None, force: bool = False
    ) -> T:
        """Server-side apply of the fields set on `obj`."""
        self._check(obj)
        return await self._client.apply(obj, field_manager=field_manager, force=force)

    async def _patch(
        self,
        name: str,
        patch: Patch,
        namespace: str | None,
        patch_type: PatchType,
        field_manager: str | None,
        force: bool | None,
        subresource: str | None = None,
    ) -> T:
        return await self._client.patch(
            self.model,
            name,
            patch,
            namespace=namespace,
            patch_type=patch_type,
            field_manager=field_manager,
            force=force,
            subresource=subresource,
        )

    async def _delete(
        self,
        name: str,
        namespace: str | None,
        propagation_policy: Propagation | None,
        preconditions: Preconditions | None,
        grace_period_seconds: int | None,
    ) -> None:
        await self._client.delete_by_name(
            self.model,
            name,
            namespace=namespace,
            propagation_policy=propagation_policy,
            preconditions=preconditions,
            grace_period_seconds=grace_period_seconds,
        )

    async def _delete_collection(
        self,
        namespace: str | None,
        labels: selectors.Selector | None,
        fields: selectors.Selector | None,
        propagation_policy: Propagation | None,
    ) -> None:
        await self._client.delete_collection(
            self.model,
            namespace,
            labels=labels,
            fields=fields,
            propagation_policy=propagation_policy,
        )

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


class NamespacedClient(_Base[T]):
    """Typed client for a namespaced kind."""

    async def get(self, name: str, *, namespace: str) -> T:
        return await self._get(name, namespace)

    async def list(
        self,
        *,
        namespace: str | None = None,
        labels: selectors.Selector | None = None,
        fields: selectors.Selector | None = None,
        limit: int | None = None,
        continue_: str | None = None,
    ) -> Page[T]:
        """One page (all of it without `limit`); `namespace=None` lists every namespace."""
        return await self._list(namespace, labels, fields, limit, continue_)

    def watch(
        self,
        *,
        namespace: str | None = None,
        labels: selectors.Selector | None = None,
        fields: selectors.Selector | None = None,
        resource_version: str | None = None,
        timeout_seconds: int | None = None,
    ) -> AsyncIterator[WatchEvent[T]]:
        """Typed watch events until the server ends the watch (no resume: informers do that)."""
        return self._watch(namespace, labels, fields, resource_version, timeout_seconds)

    async def patch(
        self,
        name: str,
        patch: Patch,
        *,
        namespace: str,
        patch_type: PatchType = "merge",
        field_manager: str | None = None,
        force: bool | None = None,
    ) -> T:
        return await self._patch(
            name, patch, namespace, patch_type, field_manager, force
        )

    async def delete(
        self,
        name: str,
        *,
        namespace: str,
        propagation_policy: Propagation | None = None,
        preconditions: Preconditions | None = None,
        grace_period_seconds: int | None = None,
    ) -> None:
        await self._delete(
            name, namespace, propagation_policy, preconditions, grace_period_seconds
        )

    async def delete_collection(
        self,
        *,
        namespace: str,
        labels: selectors.Selector | None = None,
        fields: selectors.Selector | None = None,
        propagation_policy: Propagation | None = None,
    ) -> None:
        await self._delete_collection(namespace, labels, fields, propagation_policy)


class ClusterClient(_Base[T]):
    """Typed client for a cluster-scoped kind."""

    async def get(self, name: str) -> T:
        return await self._get(name, None)

    async def list(
        self,
        *,
        labels: selectors.Selector | None = None,
        fields: selectors.Selector | None = None,
        limit: int | None = None,
        continue_: str | None = None,
    ) -> Page[T]:
        return await self._list(None, labels, fields, limit, continue_)

    def watch(
        self,
        *,
        labels: selectors.Selector | None = None,
        fields: selectors.Selector | None = None,
        resource_version: str | None = None,
        timeout_seconds: int | None = None,
    ) -> AsyncIterator[WatchEvent[T]]:
        return self._watch(None, labels, fields, resource_version, timeout_seconds)

    async def patch(
        self,
        name: str,
        patch: Patch,
        *,
        patch_type: PatchType = "merge",
        field_manager: str | None = None,
        force: bool | None = None,
    ) -> T:
        return await self._patch(name, patch, None, patch_type, field_manager, force)

    async def delete(
        self,
        name: str,
        *,
        propagation_policy: Propagation | None = None,
        preconditions: Preconditions | None = None,
        grace_period_seconds: int | None = None,
    ) -> None:
        await self._delete(
            name, None, propagation_policy, preconditions, grace_period_seconds
        )

    async def delete_collection(
        self,
        *,
        labels: selectors.Selector | None = None,
        fields: selectors.Selector | None = None,
        propagation_policy: Propagation | None = None,
    ) -> None:
        await self._delete_collection(None, labels, fields, propagation_policy)


class _Status(_Base[T]):
    """/status writes of an object, the same for both scopes."""

    async def update_status(self, obj: T) -> T:
        self._check(obj)
        return await self._client.update_status(obj)

    async def apply_status(
        self, obj: T, *, field_manager: str | None = None, force: bool = False
    ) -> T:
        self._check(obj)
        return await self._client.apply_status(
            obj, field_manager=field_manager, force=force
        )


class NamespacedStatus(_Status[T]):
    """/status for a namespaced kind."""

    async def get_status(self, name: str, *, namespace: str) -> T:
        return await self._reader.get(self.model, name, namespace, subresource="status")

    async def patch_status(
        self,
        name: str,
        patch: Patch,
        *,
        namespace: str,
        patch_type: PatchType = "merge",
    ) -> T:
        return await self._patch(
            name, patch, namespace, patch_type, None, None, "status"
        )


class ClusterStatus(_Status[T]):
    """/status for a cluster-scoped kind."""

    async def get_status(self, name: str) -> T:
        return await self._reader.get(self.model, name, None, subresource="status")

    async def patch_status(
        self, name: str, patch: Patch, *, patch_type: PatchType = "merge"
    ) -> T:
        return await self._patch(name, patch, None, patch_type, None, None, "status")


class NamespacedScale(_Base[T]):
    """/scale for a namespaced kind."""

    async def get_scale(self, name: str, *, namespace: str) -> Scale:
        return await self._get_scale(name, namespace)

    async def update_scale(self, name: str, replicas: int, *, namespace: str) -> Scale:
        return await self._update_scale(name, replicas, namespace)


class ClusterScale(_Base[T]):
    """/scale for a cluster-scoped kind."""

    async def get_scale(self, name: str) -> Scale:
        return await self._get_scale(name, None)

    async def update_scale(self, name: str, replicas: int) -> Scale:
        return await self._update_scale(name, replicas, None)
