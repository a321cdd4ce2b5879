"""Typed clients' read signatures per scope: `namespace=` where a namespaced kind
needs one, none for a cluster-scoped kind, so misuse fails `mypy --strict`.
(Writes take the object, which carries its namespace: they live in `_base`.)"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TypeVar

from opgen.runtime import selectors
from opgen.runtime.client import Propagation
from opgen.runtime.reader import Page
from opgen.runtime.typed._base import WatchEvent, _Base

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

    async def delete_collection(
        self,
        *,
        labels: selectors.Selector | None = None,
        fields: selectors.Selector | None = None,
        propagation_policy: Propagation | None = None,
    ) -> None:
        await self._delete_collection(None, labels, fields, propagation_policy)
