"""Typed clients' signatures per scope: `namespace=` where a namespaced kind needs one,
none for a cluster-scoped kind, so misuse fails `mypy --strict`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TypeVar

from opgen.runtime import selectors
from opgen.runtime.client import PatchType, Preconditions, Propagation
from opgen.runtime.typed._base import Page, Patch, WatchEvent, _Base

__all__ = ["ClusterClient", "NamespacedClient"]

T = TypeVar("T")


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
