"""What every typed client does, whatever the kind's scope: the shared implementations.

`_Base` holds the model, the client it talks through, the writes (which take
the object, so their signature is the same for both scopes) and one
implementation of each read; the scoped classes (`_scoped`) give the reads
their signatures.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

import msgspec

from opgen.runtime import errors, resources, selectors
from opgen.runtime.client import Client, Patch, PatchType, Preconditions, Propagation
from opgen.runtime.decoding import decode_dict
from opgen.runtime.reader import Page
from opgen.runtime.resources import ResourceType

__all__ = ["WatchEvent"]

T = TypeVar("T")


@dataclass(frozen=True)
class WatchEvent(Generic[T]):
    type: Literal["ADDED", "MODIFIED", "DELETED"]
    object: T


class _Base(Generic[T]):
    model: type[T]

    def __init__(self, client: Client) -> None:
        self._client = client

    @property
    def _rtype(self) -> ResourceType[T]:
        return resources.resource_type(self.model)

    def _check(self, obj: T) -> None:
        if not isinstance(obj, self.model):
            raise TypeError(
                f"expected a {self.model.__name__}, got a {type(obj).__name__}"
            )

    async def _get(self, name: str, namespace: str | None) -> T:
        return await self._client.get(self.model, name, namespace)

    async def _list(
        self,
        namespace: str | None,
        labels: selectors.Selector | None,
        fields: selectors.Selector | None,
        limit: int | None,
        continue_: str | None,
    ) -> Page[T]:
        if limit is None and continue_ is None:
            return await self._client.list(
                self.model, namespace, labels=labels, fields=fields
            )
        return await self._client.uncached.list(
            self.model,
            namespace,
            labels=labels,
            fields=fields,
            limit=limit,
            continue_=continue_,
        )

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
                    yield WatchEvent(kind, decode_dict(rtype, event["object"]))

    async def create(self, obj: T, *, refresh: bool = True) -> T:
        """Create `obj` (raises `AlreadyExists`); refreshes it from the server and returns it."""
        self._check(obj)
        return await self._client.create(obj, refresh=refresh)

    async def update(self, obj: T, *, refresh: bool = True) -> T:
        """Replace `obj` (raises `Conflict` if it changed since read); refreshes it."""
        self._check(obj)
        return await self._client.update(obj, refresh=refresh)

    async def apply(
        self,
        obj: T,
        *,
        field_manager: str | None = None,
        force: bool = False,
        refresh: bool = True,
    ) -> T:
        """Server-side apply of the fields set on `obj`; refreshes it."""
        self._check(obj)
        return await self._client.apply(
            obj, field_manager=field_manager, force=force, refresh=refresh
        )

    async def patch(
        self,
        obj: T,
        patch: Patch,
        *,
        patch_type: PatchType = "merge",
        field_manager: str | None = None,
        force: bool | None = None,
        refresh: bool = True,
    ) -> T:
        """Patch the object `obj` names; refreshes it."""
        self._check(obj)
        return await self._client.patch(
            obj,
            patch,
            patch_type=patch_type,
            field_manager=field_manager,
            force=force,
            refresh=refresh,
        )

    async def delete(
        self,
        obj: T,
        *,
        propagation_policy: Propagation | None = None,
        preconditions: Preconditions | None = None,
        grace_period_seconds: int | None = None,
    ) -> None:
        """Delete the object `obj` names (raises `NotFound` if it is gone)."""
        self._check(obj)
        await self._client.delete(
            obj,
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
