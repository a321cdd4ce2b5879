"""Reads that go straight to the API server: `client.uncached`, and the typed clients.

Objects are decoded into the kind's class (the user's model or an `op.k8s`
kind). `list` returns a `Page`: every matching object (fetched
in chunks of `LIST_PAGE_SIZE`, following `continue` tokens), or one page of
`limit` objects and the token for the next. An object that does not fit the
model makes `get` raise `DecodeError`; `list` leaves it out and names it in
`Page.undecodable`.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar, overload

import msgspec

from opgen.runtime import selectors
from opgen.runtime.decoding import DecodeError, decode, decode_dict
from opgen.runtime.resources import ResourceType, resource_type
from opgen.runtime.rest import RestClient

__all__ = ["LIST_PAGE_SIZE", "ApiReader", "Page"]

T = TypeVar("T")

LIST_PAGE_SIZE = 500


@dataclass(frozen=True)
class Page(Sequence[T], Generic[T]):
    """What `list` returns: the objects (a sequence: iterate, index, `len`),
    `continue_`, the token for the next page (None when the list is complete),
    and `undecodable`: the matching objects left out because they do not fit
    the kind's model, each as the `DecodeError` a `get` of it would raise."""

    items: builtins.list[T]
    continue_: str | None = None
    undecodable: tuple[DecodeError, ...] = ()

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[T]: ...

    def __getitem__(self, index: int | slice) -> T | Sequence[T]:
        return self.items[index]

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[T]:
        return iter(self.items)


class ApiReader:
    """Reads straight from the API server: an `rt.seams.Reader` (`rt.Reader`)
    that also reads subresources and single pages."""

    def __init__(self, rest: RestClient) -> None:
        self.rest = rest

    @property
    def default_namespace(self) -> str:
        """Where a read of a namespaced kind without a namespace goes (the kubeconfig's)."""
        return self.rest.default_namespace

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
        return decode(rtype, raw)

    async def list(
        self,
        kind: type[T],
        namespace: str | None = None,
        *,
        labels: selectors.Selector | None = None,
        fields: selectors.Selector | None = None,
        limit: int | None = None,
        continue_: str | None = None,
    ) -> Page[T]:
        """Every matching object (all namespaces when `namespace` is None); with
        `limit`, one page of at most that many, continuing from `continue_`."""
        if limit is not None:
            return await self._page(kind, namespace, labels, fields, limit, continue_)
        page = await self._page(
            kind, namespace, labels, fields, LIST_PAGE_SIZE, continue_
        )
        items, token = page.items, page.continue_
        undecodable = list(page.undecodable)
        while token:
            more = await self._page(
                kind, namespace, labels, fields, LIST_PAGE_SIZE, token
            )
            items.extend(more.items)
            undecodable.extend(more.undecodable)
            token = more.continue_
        return Page(items, undecodable=tuple(undecodable))

    async def _page(
        self,
        kind: type[T],
        namespace: str | None,
        labels: selectors.Selector | None,
        fields: selectors.Selector | None,
        limit: int,
        continue_: str | None,
    ) -> Page[T]:
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
        items: builtins.list[T] = []
        undecodable: builtins.list[DecodeError] = []
        for item in page.get("items") or ():
            try:
                items.append(decode_dict(rtype, rtype.with_kind(item)))
            except DecodeError as error:
                undecodable.append(error)
        token = (page.get("metadata") or {}).get("continue") or None
        return Page(items, token, tuple(undecodable))
