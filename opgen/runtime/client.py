"""The client reconcilers use: reads from the informer cache, writes to the API server.

Works with the user's Pydantic custom resources and with lightkube resource
classes alike. Writes refresh the passed object in place with the server's
answer (new resourceVersion, defaults) and return it. `client.uncached` reads
straight from the API server (read-your-writes checks before creating).

Bodies are serialised with `exclude_none`; `apply` (server-side apply) uses
`exclude_unset`, so fields the caller never set — defaults included — are not
claimed by the field manager.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, TypeVar, cast

import msgspec

from opgen.runtime import resources, selectors
from opgen.runtime.cache import Cache
from opgen.runtime.reader import Reader
from opgen.runtime.resources import ResourceType, resource_type
from opgen.runtime.rest import RestClient, lightkube_client

__all__ = [
    "DEFAULT_FIELD_MANAGER",
    "Client",
    "PatchType",
    "Preconditions",
    "Propagation",
    "Reader",
]

T = TypeVar("T")

DEFAULT_FIELD_MANAGER = "opgen"

PatchType = Literal["merge", "json", "strategic", "apply"]

CONTENT_TYPES: Mapping[str, str] = {
    "merge": "application/merge-patch+json",
    "json": "application/json-patch+json",
    "strategic": "application/strategic-merge-patch+json",
    "apply": "application/apply-patch+yaml",
}

Propagation = Literal["Foreground", "Background", "Orphan"]


@dataclass(frozen=True)
class Preconditions:
    """Delete only if the object still has this UID and/or resourceVersion."""

    uid: str | None = None
    resource_version: str | None = None


def _dumps(data: Any) -> bytes:
    return msgspec.json.encode(data)


class _WrittenMeta(msgspec.Struct):
    name: str = ""
    namespace: str = ""
    resourceVersion: str = ""
    labels: dict[str, str] = msgspec.field(default_factory=dict)


class _Written(msgspec.Struct):
    metadata: _WrittenMeta = msgspec.field(default_factory=_WrittenMeta)


class Client:
    """Cached reads (when a cache is given), uncached writes."""

    def __init__(
        self,
        rest: RestClient,
        cache: Cache | None = None,
        *,
        field_manager: str = DEFAULT_FIELD_MANAGER,
    ) -> None:
        self.rest = rest
        self.cache = cache
        self.field_manager = field_manager
        self.uncached = Reader(rest)

    @classmethod
    def from_kubeconfig(
        cls,
        path: str | Path | None = None,
        *,
        context: str | None = None,
        qps: float = 20.0,
        burst: int = 30,
        field_manager: str = DEFAULT_FIELD_MANAGER,
    ) -> Client:
        """A client without a cache (every read goes to the API server), for scripts and
        tests; default config: in-cluster, else $KUBECONFIG, else ~/.kube/config.
        Close it with `await client.aclose()`, or use `async with`."""
        rest = RestClient(lightkube_client(path, context=context), qps=qps, burst=burst)
        return cls(rest, field_manager=field_manager)

    async def aclose(self) -> None:
        """Close the HTTP connections (a manager's client is closed by the manager)."""
        await self.rest.aclose()

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    # -- reads -------------------------------------------------------------

    async def get(self, kind: type[T], name: str, namespace: str | None = None) -> T:
        """The object from the cache (raises `NotFound`); from the server when there is no cache."""
        if self.cache is None:
            return await self.uncached.get(kind, name, namespace)
        rtype: ResourceType[T] = resource_type(kind)
        return await self.cache.get(
            kind, name, self.rest.namespace_for(rtype, namespace)
        )

    async def list(
        self,
        kind: type[T],
        namespace: str | None = None,
        *,
        labels: selectors.Selector | None = None,
        fields: selectors.Selector | None = None,
    ) -> list[T]:
        """Objects from the cache (all namespaces when `namespace` is None)."""
        if self.cache is None:
            return await self.uncached.list(
                kind, namespace, labels=labels, fields=fields
            )
        return await self.cache.list(kind, namespace, labels=labels, fields=fields)

    # -- writes ------------------------------------------------------------

    def _wrote(self, rtype: ResourceType[Any], raw: bytes) -> None:
        """Tell the cache about a write's answer, so that cached reads see it."""
        if self.cache is None:
            return
        meta = msgspec.json.decode(raw, type=_Written).metadata
        self.cache.record_write(
            rtype.cls, meta.namespace, meta.name, meta.resourceVersion, meta.labels
        )

    def _target(self, obj: object) -> tuple[ResourceType[Any], str, str | None]:
        """The kind, name and namespace a write of `obj` goes to."""
        rtype: ResourceType[Any] = resource_type(type(obj))
        meta = resources.metadata(obj)
        name = meta.get("name")
        if not name:
            raise ValueError(f"{rtype.kind} has no metadata.name")
        return (
            rtype,
            str(name),
            self.rest.namespace_for(rtype, meta.get("namespace")),
        )

    async def create(self, obj: T) -> T:
        """Create `obj`; raises `AlreadyExists` if the name is taken."""
        rtype: ResourceType[T] = resource_type(type(obj))
        meta = resources.metadata(obj)
        namespace = self.rest.namespace_for(rtype, meta.get("namespace"))
        raw = await self.rest.request(
            "create",
            rtype,
            namespace=namespace,
            body=_dumps(rtype.encode_obj(obj, False)),
        )
        self._wrote(rtype, raw)
        return resources.assign(obj, rtype.decode_json(raw))

    async def update(self, obj: T) -> T:
        """Replace `obj` (PUT); raises `Conflict` if it changed since it was read."""
        return await self._put(obj, subresource=None)

    async def update_status(self, obj: T) -> T:
        """Replace `obj`'s status through the /status subresource (resourceVersion checked)."""
        return await self._put(obj, subresource="status")

    async def _put(self, obj: T, *, subresource: str | None) -> T:
        rtype, name, namespace = self._target(obj)
        raw = await self.rest.request(
            "update",
            rtype,
            name=name,
            namespace=namespace,
            subresource=subresource,
            body=_dumps(rtype.encode_obj(obj, False)),
        )
        self._wrote(rtype, raw)
        return resources.assign(obj, cast(T, rtype.decode_json(raw)))

    async def patch(
        self,
        kind: type[T],
        name: str,
        patch: Mapping[str, Any] | Sequence[Mapping[str, Any]],
        *,
        namespace: str | None = None,
        patch_type: PatchType = "merge",
        field_manager: str | None = None,
        force: bool | None = None,
        subresource: str | None = None,
    ) -> T:
        """Patch an object by name (merge, JSON patch, strategic merge or apply)."""
        rtype: ResourceType[T] = resource_type(kind)
        params: dict[str, Any] = {}
        if patch_type == "apply":
            params["fieldManager"] = field_manager or self.field_manager
            params["force"] = force
        elif field_manager:
            params["fieldManager"] = field_manager
        raw = await self.rest.request(
            "patch",
            rtype,
            name=name,
            namespace=self.rest.namespace_for(rtype, namespace),
            subresource=subresource,
            params=params,
            body=_dumps(patch),
            content_type=CONTENT_TYPES[patch_type],
        )
        self._wrote(rtype, raw)
        return rtype.decode_json(raw)

    async def apply(
        self, obj: T, *, field_manager: str | None = None, force: bool = False
    ) -> T:
        """Server-side apply of the fields set on `obj` (exclude_unset); returns the server's object."""
        return await self._apply(
            obj, field_manager=field_manager, force=force, subresource=None
        )

    async def apply_status(
        self, obj: T, *, field_manager: str | None = None, force: bool = False
    ) -> T:
        """Server-side apply of `obj.status` through the /status subresource."""
        return await self._apply(
            obj, field_manager=field_manager, force=force, subresource="status"
        )

    async def _apply(
        self, obj: T, *, field_manager: str | None, force: bool, subresource: str | None
    ) -> T:
        rtype, name, namespace = self._target(obj)
        body = rtype.encode_obj(obj, True)
        meta = body.setdefault("metadata", {})
        meta["name"] = name
        if namespace is not None:
            meta["namespace"] = namespace
        if subresource == "status":
            body = {
                k: v
                for k, v in body.items()
                if k in ("apiVersion", "kind", "metadata", "status")
            }
        result: T = await self.patch(
            type(obj),
            name,
            body,
            namespace=namespace,
            patch_type="apply",
            field_manager=field_manager,
            force=force,
            subresource=subresource,
        )
        return result

    async def patch_status(self, obj: T) -> T:
        """Merge-patch `obj.status` to the /status subresource (no resourceVersion precondition,
        so it does not conflict with spec writers); refreshes `obj`."""
        rtype, name, namespace = self._target(obj)
        status = rtype.encode_obj(obj, False).get("status") or {}
        server = await self.patch(
            type(obj),
            name,
            {"status": status},
            namespace=namespace,
            subresource="status",
        )
        return resources.assign(obj, server)

    async def delete(
        self,
        obj: object,
        *,
        propagation_policy: Propagation | None = None,
        preconditions: Preconditions | None = None,
        grace_period_seconds: int | None = None,
    ) -> None:
        """Delete `obj` (raises `NotFound` if it is gone)."""
        rtype, name, namespace = self._target(obj)
        await self.delete_by_name(
            rtype.cls,
            name,
            namespace=namespace,
            propagation_policy=propagation_policy,
            preconditions=preconditions,
            grace_period_seconds=grace_period_seconds,
        )

    async def delete_by_name(
        self,
        kind: type,
        name: str,
        *,
        namespace: str | None = None,
        propagation_policy: Propagation | None = None,
        preconditions: Preconditions | None = None,
        grace_period_seconds: int | None = None,
    ) -> None:
        rtype: ResourceType[Any] = resource_type(kind)
        await self.rest.request(
            "delete",
            rtype,
            name=name,
            namespace=self.rest.namespace_for(rtype, namespace),
            body=_delete_options(
                propagation_policy, preconditions, grace_period_seconds
            ),
            content_type="application/json",
        )

    async def delete_collection(
        self,
        kind: type,
        namespace: str | None = None,
        *,
        labels: selectors.Selector | None = None,
        fields: selectors.Selector | None = None,
        propagation_policy: Propagation | None = None,
    ) -> None:
        rtype: ResourceType[Any] = resource_type(kind)
        await self.rest.request(
            "deletecollection",
            rtype,
            namespace=self.rest.namespace_for(rtype, namespace),
            params={
                "labelSelector": selectors.to_query(labels),
                "fieldSelector": selectors.to_query(fields),
            },
            body=_delete_options(propagation_policy, None, None),
            content_type="application/json",
        )


def _delete_options(
    propagation_policy: str | None,
    preconditions: Preconditions | None,
    grace_period_seconds: int | None,
) -> bytes:
    options: dict[str, Any] = {"kind": "DeleteOptions", "apiVersion": "v1"}
    if propagation_policy:
        options["propagationPolicy"] = propagation_policy
    if grace_period_seconds is not None:
        options["gracePeriodSeconds"] = grace_period_seconds
    if preconditions is not None:
        pre = {
            "uid": preconditions.uid,
            "resourceVersion": preconditions.resource_version,
        }
        options["preconditions"] = {k: v for k, v in pre.items() if v is not None}
    return _dumps(options)
