"""Reads that go straight to the API server: `client.uncached`, and the typed clients.

Objects are decoded into the kind's class (the user's Pydantic model or the
lightkube resource); `list` follows `continue` tokens until the list is
complete, `list_page` returns one page and its token.
"""

from __future__ import annotations

import builtins
from typing import TypeVar

import msgspec

from opgen.runtime import selectors
from opgen.runtime.resources import ResourceType, resource_type
from opgen.runtime.rest import RestClient

__all__ = ["LIST_PAGE_SIZE", "Reader"]

T = TypeVar("T")

LIST_PAGE_SIZE = 500


class Reader:
    """Reads straight from the API server."""

    def __init__(self, rest: RestClient) -> None:
        self.rest = rest

    async def get(
        self,
        kind: type[T],
        name: str,
        namespace: str | None = None,
        *,
        subresource: str | None = None,
    ) -> T:
        rtype: ResourceType[T] = resource_type(kind)
        raw = await self.rest.request(
            "get",
            rtype,
            name=name,
            namespace=self.rest.namespace_for(rtype, namespace),
            subresource=subresource,
        )
        return rtype.decode_json(raw)

    async def list(
        self,
        kind: type[T],
        namespace: str | None = None,
        *,
        labels: selectors.Selector | None = None,
        fields: selectors.Selector | None = None,
    ) -> list[T]:
        """Every matching object, fetched in pages of `LIST_PAGE_SIZE` until complete."""
        items, token = await self.list_page(
            kind, namespace, labels=labels, fields=fields, limit=LIST_PAGE_SIZE
        )
        while token:
            more, token = await self.list_page(
                kind,
                namespace,
                labels=labels,
                fields=fields,
                limit=LIST_PAGE_SIZE,
                continue_=token,
            )
            items.extend(more)
        return items

    async def list_page(
        self,
        kind: type[T],
        namespace: str | None = None,
        *,
        labels: selectors.Selector | None = None,
        fields: selectors.Selector | None = None,
        limit: int | None = None,
        continue_: str | None = None,
    ) -> tuple[builtins.list[T], str | None]:
        """One page: the objects and the continue token (None on the last page)."""
        rtype: ResourceType[T] = resource_type(kind)
        raw = await self.rest.request(
            "list",
            rtype,
            namespace=namespace if rtype.namespaced else None,
            params={
                "labelSelector": selectors.to_query(labels),
                "fieldSelector": selectors.to_query(fields),
                "limit": limit,
                "continue": continue_,
            },
        )
        page = msgspec.json.decode(raw)
        items = [rtype.decode_dict(rtype.with_kind(i)) for i in page.get("items") or ()]
        return items, (page.get("metadata") or {}).get("continue") or None
