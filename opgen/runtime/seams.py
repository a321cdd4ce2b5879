"""The runtime's seams: what a test double (or another implementation) provides.

- `Transport`: sends one request to the API server and returns its `Answer`
  (status, headers, body), or opens a stream (a watch) whose lines arrive as
  they come. `opgen.runtime.transport.Transport` is the one that speaks HTTP
  (aiohttp); `Manager(..., transport=...)` takes any other, for example a
  scripted one in a test that needs no API server. A request may name the
  media types it accepts (`accept`, the `Accept` header; None: JSON), for
  example the metadata-only forms controller-runtime's metadata client asks
  for (`rest.METADATA_LIST_ACCEPT`, `rest.METADATA_ACCEPT`); the runtime
  passes `accept` only when it asks for another form, so a transport that
  does not take it serves every other request. `sibling()` gives a transport
  to the same server on connections of its own, closed by whoever asked for
  it, not by this transport's `aclose`.
- `Reader`: reads objects of a kind (`get`, `list`), from the API server or a cache.
- `Writer`: writes them (`create`, `update`, `update_status`, `patch`, `delete`).

`opgen.runtime.client.Client` is both a `Reader` and a `Writer`; its
`uncached` attribute is a `Reader` that always asks the server. The leader
elector takes a `Reader` and a `Writer`.

A transport reports a request that got no answer as
`opgen.runtime.errors.TransportError`; an answer with an error status is
returned, not raised (the REST client above it maps it to `ApiError`).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from opgen.runtime.reader import Page
    from opgen.runtime.selectors import Selector

__all__ = [
    "Answer",
    "Reader",
    "Stream",
    "Transport",
    "Writer",
    "parse_retry_after",
    "warning_texts",
]

T = TypeVar("T")


@dataclass(frozen=True)
class Answer:
    """The API server's answer: status code, headers, body."""

    status: int
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)
    """The answer's headers, looked up by lower-case name (the HTTP transport's by any
    case of it)."""
    warnings: tuple[str, ...] = ()
    """The texts of the answer's `Warning` headers (deprecated APIs, unknown
    fields...), in order."""

    @property
    def retry_after(self) -> float | None:
        """Seconds the server asks the client to wait (`Retry-After`), if it says."""
        return parse_retry_after(self.headers.get("retry-after"))


class Stream(Protocol):
    """An answer being received (a watch): its status and headers, then its body."""

    status: int
    headers: Mapping[str, str]

    async def read(self) -> bytes:
        """The whole body (for an error answer)."""
        ...

    def lines(self) -> AsyncIterator[str]:
        """The body line by line, as it arrives."""
        ...


class Transport(Protocol):
    """Sends requests to one API server with one context's credentials."""

    host: str
    """The server's host name (the `host` label of the request metrics)."""
    namespace: str
    """The context's namespace, where namespaced requests without one go."""

    async def send(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        content_type: str | None = None,
        accept: str | None = None,
    ) -> Answer:
        """Send one request (`path` starts with `/` and carries the query);
        `accept`: the `Accept` header (None: `application/json`)."""
        ...

    def stream(
        self,
        method: str,
        path: str,
        *,
        read_timeout: float | None,
        accept: str | None = None,
    ) -> AbstractAsyncContextManager[Stream]:
        """Send one request and receive its answer as it arrives (closed on exit);
        `read_timeout`: the longest silence between two chunks (None: no limit);
        `accept`: the `Accept` header (None: `application/json`)."""
        ...

    async def aclose(self) -> None:
        """Close every connection (idempotent)."""
        ...

    def sibling(self) -> Transport:
        """A transport to the same server with the same credentials, on connections
        of its own: its caller closes it (`aclose`), which leaves this transport's
        connections open (the sharding assigner opens one for each burst of label
        writes)."""
        ...


class Reader(Protocol):
    """Reads objects of a kind."""

    @property
    def default_namespace(self) -> str:
        """Where a read of a namespaced kind without a namespace goes."""
        ...

    async def get(self, kind: type[T], name: str, namespace: str | None = None) -> T:
        """The object (raises `errors.NotFound`)."""
        ...

    async def list(
        self,
        kind: type[T],
        namespace: str | None = None,
        *,
        labels: Selector | None = None,
        fields: Selector | None = None,
    ) -> Page[T]:
        """Every matching object (all namespaces when `namespace` is None)."""
        ...


class Writer(Protocol):
    """Writes objects; each write refreshes the object from the server's answer
    unless `refresh=False`."""

    async def create(self, obj: T, *, refresh: bool = True) -> T: ...

    async def update(self, obj: T, *, refresh: bool = True) -> T: ...

    async def update_status(self, obj: T, *, refresh: bool = True) -> T: ...

    async def patch(
        self,
        obj: T,
        patch: Mapping[str, Any] | Sequence[Mapping[str, Any]],
        *,
        refresh: bool = True,
    ) -> T: ...

    async def delete(self, obj: object) -> None: ...


def parse_retry_after(value: str | None) -> float | None:
    """`Retry-After` in seconds; None when absent or not a number of seconds
    (the API server sends whole seconds, never a date)."""
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    return seconds if seconds >= 0 else None


_WARNING = re.compile(r'^\s*(\d{3})\s+\S+\s+"((?:[^"\\]|\\.)*)"')


def warning_texts(values: Sequence[str]) -> tuple[str, ...]:
    """The texts of `Warning` header values (RFC 7234: `299 - "text"`), as client-go
    reads them; a value in another shape is kept whole."""
    texts = []
    for value in values:
        match = _WARNING.match(value)
        if match is None:
            texts.append(value.strip())
        else:
            texts.append(re.sub(r"\\(.)", r"\1", match.group(2)))
    return tuple(texts)
