"""The client reconcilers use: reads from the informer cache, writes to the API server.

Works with the user's custom resources and `op.k8s`'s built-in kinds alike,
with one convention (controller-runtime's client, and the typed
clients too):

- reads take the kind and the name (`get(Kind, name, namespace)`), `list`
  takes the kind and returns a `Page`;
- writes take the object they write — `create`, `update`, `patch`, `apply`,
  `delete` and the `_status` forms — and find its kind, name and namespace in it;
- a write refreshes the object in place from the server's answer (new
  resourceVersion, defaults) and returns it; `delete` returns None; an answer
  that does not fit the model (a partial object of a `DecodeError`) refreshes
  only the metadata; `refresh=False` skips decoding the answer (the object is
  left as it was) for a caller that does not read the object again;
- options are keyword-only.

`client.uncached` reads straight from the API server. Every write is recorded
under the field manager of `ClientOptions` (`apply` and `patch` may name
another). Bodies are serialised with `exclude_none`; `apply` uses
`exclude_unset`, so fields the caller never set — defaults included — are not
claimed by the field manager.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal, TypeVar

import msgspec
from pydantic import BaseModel

from opgen.runtime import decoding, metafields, selectors
from opgen.runtime.cache import Cache
from opgen.runtime.reader import ApiReader, Page
from opgen.runtime.resources import ResourceType, resource_type
from opgen.runtime.rest import ClientOptions, RestClient
from opgen.runtime.transport import ConfigSource

__all__ = [
    "Client",
    "Patch",
    "PatchType",
    "Preconditions",
    "Propagation",
]

T = TypeVar("T")

PatchType = Literal["merge", "json", "strategic", "apply"]

Patch = Mapping[str, Any] | Sequence[Mapping[str, Any]]
"""A patch body: a mapping (merge, strategic, apply) or a list of operations (JSON patch)."""

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

    def __init__(self, rest: RestClient, cache: Cache | None = None) -> None:
        self.rest = rest
        self.cache = cache
        self.uncached = ApiReader(rest)

    @classmethod
    def from_kubeconfig(
        cls,
        path: ConfigSource = None,
        *,
        context: str | None = None,
        options: ClientOptions | None = None,
    ) -> Client:
        """A client without a cache (every read goes to the API server), for scripts and
        tests; default config: in-cluster, else $KUBECONFIG, else ~/.kube/config.
        Close it with `await client.aclose()`, or use `async with`."""
        return cls(RestClient.from_kubeconfig(path, options, context=context))

    @property
    def default_namespace(self) -> str:
        """Where a request about a namespaced kind without a namespace goes (the kubeconfig's)."""
        return self.rest.default_namespace

    @property
    def field_manager(self) -> str:
        """The field manager writes are recorded under (`ClientOptions.field_manager`)."""
        return self.rest.field_manager

    async def aclose(self) -> None:
        """Close the HTTP connections (a manager closes its client when `run()` returns)."""
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
    ) -> Page[T]:
        """Every matching object from the cache (all namespaces when `namespace` is None)."""
        if self.cache is None:
            return await self.uncached.list(
                kind, namespace, labels=labels, fields=fields
            )
        return await self.cache.list(kind, namespace, labels=labels, fields=fields)

    # -- writes ------------------------------------------------------------

    def _target(self, obj: object) -> tuple[ResourceType[Any], str, str | None]:
        """The kind, name and namespace a write of `obj` goes to."""
        rtype: ResourceType[Any] = resource_type(type(obj))
        name, namespace = _name_and_namespace(obj)
        if not name:
            raise ValueError(f"{rtype.kind} has no metadata.name")
        return rtype, str(name), self.rest.namespace_for(rtype, namespace)

    async def _write(
        self,
        obj: T,
        verb: str,
        body: Any,
        *,
        subresource: str | None = None,
        params: Mapping[str, Any] | None = None,
        content_type: str | None = None,
        refresh: bool = True,
    ) -> T:
        """Send a write of `obj`, tell the cache, refresh `obj` from the answer."""
        rtype: ResourceType[T]
        rtype, name, namespace = self._target(obj)
        raw = await self.rest.request(
            verb,
            rtype,
            name=name,
            namespace=namespace,
            subresource=subresource,
            params=params,
            body=_dumps(body),
            content_type=content_type,
        )
        return self._wrote(obj, rtype, raw, refresh)

    def _wrote(self, obj: T, rtype: ResourceType[T], raw: bytes, refresh: bool) -> T:
        """Tell the cache about a write's answer, so that cached reads wait for it
        (read-your-writes, `freshness`); refresh `obj` from it if asked (only its
        metadata when the answer does not fit the model: the write succeeded).

        The cache needs only the answer's metadata (a cheap msgspec decode); the
        refresh validates the whole object, the larger part of a write's cost in
        the client."""
        if self.cache is not None:
            meta = msgspec.json.decode(raw, type=_Written).metadata
            self.cache.record_write(
                rtype.cls, meta.namespace, meta.name, meta.resourceVersion, meta.labels
            )
        if not refresh:
            return obj
        return decoding.refresh(obj, rtype, raw)

    async def create(self, obj: T, *, refresh: bool = True) -> T:
        """Create `obj`; raises `AlreadyExists` if the name is taken."""
        rtype: ResourceType[T] = resource_type(type(obj))
        body = rtype.encode_obj(obj)
        namespace = (body.get("metadata") or {}).get("namespace")
        raw = await self.rest.request(
            "create",
            rtype,
            namespace=self.rest.namespace_for(rtype, namespace),
            body=_dumps(body),
        )
        return self._wrote(obj, rtype, raw, refresh)

    async def update(self, obj: T, *, refresh: bool = True) -> T:
        """Replace `obj` (PUT); raises `Conflict` if it changed since it was read."""
        body = resource_type(type(obj)).encode_obj(obj)
        return await self._write(obj, "update", body, refresh=refresh)

    async def update_status(self, obj: T, *, refresh: bool = True) -> T:
        """Replace `obj`'s status through the /status subresource (resourceVersion checked)."""
        body = resource_type(type(obj)).encode_obj(obj)
        return await self._write(
            obj, "update", body, subresource="status", refresh=refresh
        )

    async def patch(
        self,
        obj: T,
        patch: Patch,
        *,
        patch_type: PatchType = "merge",
        field_manager: str | None = None,
        force: bool | None = None,
        subresource: str | None = None,
        refresh: bool = True,
    ) -> T:
        """Patch the object `obj` names (merge, JSON patch, strategic merge or apply);
        only its kind, name and namespace are read."""
        params: dict[str, Any] = {"fieldManager": field_manager}
        if patch_type == "apply":
            params["force"] = force
        return await self._write(
            obj,
            "patch",
            patch,
            subresource=subresource,
            params=params,
            content_type=CONTENT_TYPES[patch_type],
            refresh=refresh,
        )

    async def patch_status(self, obj: T, *, refresh: bool = True) -> T:
        """Merge-patch `obj.status` to the /status subresource (no resourceVersion
        precondition, so it does not conflict with spec writers)."""
        return await self.patch(
            obj, {"status": _status(obj)}, subresource="status", refresh=refresh
        )

    async def apply(
        self,
        obj: T,
        *,
        field_manager: str | None = None,
        force: bool = False,
        refresh: bool = True,
    ) -> T:
        """Server-side apply of the fields set on `obj` (exclude_unset).

        Like every write it refreshes `obj` from the answer, which sets every field
        the server holds: build the object to apply afresh each time, as a reconcile
        does, or a second apply of it claims them all."""
        return await self._apply(obj, field_manager, force, None, refresh)

    async def apply_status(
        self,
        obj: T,
        *,
        field_manager: str | None = None,
        force: bool = False,
        refresh: bool = True,
    ) -> T:
        """Server-side apply of `obj.status` through the /status subresource."""
        return await self._apply(obj, field_manager, force, "status", refresh)

    async def _apply(
        self,
        obj: T,
        field_manager: str | None,
        force: bool,
        subresource: str | None,
        refresh: bool,
    ) -> T:
        rtype, name, namespace = self._target(obj)
        body = rtype.encode_obj(obj, exclude_unset=True)
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
        return await self.patch(
            obj,
            body,
            patch_type="apply",
            field_manager=field_manager,
            force=force,
            subresource=subresource,
            refresh=refresh,
        )

    async def delete(
        self,
        obj: object,
        *,
        propagation_policy: Propagation | None = None,
        preconditions: Preconditions | None = None,
        grace_period_seconds: int | None = None,
    ) -> None:
        """Delete the object `obj` names (raises `NotFound` if it is gone); only its
        kind, name and namespace are read."""
        rtype, name, namespace = self._target(obj)
        await self.rest.request(
            "delete",
            rtype,
            name=name,
            namespace=namespace,
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
        """Delete every matching object of `kind` (in `namespace`, or the kubeconfig's)."""
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


def _name_and_namespace(obj: object) -> tuple[Any, Any]:
    """`obj`'s name and namespace, read without converting all of its metadata
    (whose managedFields are most of it) to the wire form."""
    return metafields.get(obj, "name"), metafields.get(obj, "namespace")


def _status(obj: object) -> Any:
    """`obj.status` in wire form ({} when unset); only the status is converted."""
    if isinstance(obj, BaseModel) and _plain_fields(obj, "status"):
        status = obj.status  # type: ignore[attr-defined]
        if status is None:
            return {}
        if isinstance(status, BaseModel):
            return status.model_dump(mode="json", by_alias=True, exclude_none=True)
    return resource_type(type(obj)).encode_obj(obj).get("status") or {}


def _plain_fields(model: BaseModel, *names: str) -> bool:
    """Whether `model` has these fields under the same names on the wire."""
    fields = type(model).model_fields
    for name in names:
        field = fields.get(name)
        if field is None or (field.serialization_alias or field.alias or name) != name:
            return False
    return True


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
