"""The `seams.Transport` face of a memory server: requests answered in process.

`send` answers as the HTTP transport would (an `Answer` with the status,
JSON body and headers; error statuses are returned, not raised); `stream`
opens a watch whose lines arrive as objects are written, ends when the
server closes its watches, after the request's `timeoutSeconds`, or when the
caller leaves the block. A closed transport refuses new requests
(`RuntimeError`, as the HTTP transport does). An `accept` that asks for
metadata only is answered as kube-apiserver answers it (`partial`).
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from opgen.runtime.seams import Answer
from opgen.testing.memory.answers import PAGE_NOT_FOUND, Refusal
from opgen.testing.memory.bookmarks import bookmark, next_bookmark
from opgen.testing.memory.partial import (
    Form,
    asked_form,
    metadata_answer,
    metadata_event,
)
from opgen.testing.memory.paths import parse_route
from opgen.testing.memory.store import Store, encode

if TYPE_CHECKING:
    from opgen.testing.memory.server import MemoryApiServer, Watch

__all__ = ["MemoryTransport", "WatchStream"]

_JSON = {"content-type": "application/json"}
_TEXT = {"content-type": "text/plain; charset=utf-8"}
_EVENT_KEYS = ["type", "object"]


def _answer(store: Store, document: dict[str, Any]) -> bytes:
    """The bytes of an answer: a stored object's are encoded once while it is
    stored (`Store.encoded`), and a list's items each so; the bytes are those
    of the whole document encoded at once."""
    items = document.get("items")
    if type(items) is not list or not items or next(reversed(document)) != "items":
        return store.encoded(document)
    head = encode({k: v for k, v in document.items() if k != "items"})
    listed = b",".join([store.encoded(item) for item in items])
    comma = b"," if len(head) > 2 else b""
    return b"".join((head[:-1], comma, b'"items":[', listed, b"]}"))


class WatchStream:
    """A watch answer (`seams.Stream`): an error status and body, or its event lines."""

    def __init__(
        self,
        server: MemoryApiServer,
        watch: Watch | None,
        refusal: Refusal | None,
        timeout: float | None,
        headers: Mapping[str, str] | None = None,
        form: Form | None = None,
    ) -> None:
        self.status = refusal.code if refusal is not None else 200
        if headers is None:
            plain = refusal is not None and refusal.body is None
            headers = _TEXT if plain else _JSON
        self.headers = headers
        self._server = server
        self._watch = watch
        self._refusal = refusal
        self._timeout = timeout
        self._form = form
        """`PartialObjectMetadata`: events carry their objects' metadata alone."""

    def _line(self, event: dict[str, Any]) -> str:
        if self._form is not None:
            return encode(metadata_event(event)).decode()
        if list(event) != _EVENT_KEYS:
            return encode(event).decode()
        # a stored object's bytes are those its write's answer was given in
        obj = self._server.store.encoded(event["object"])
        return b"".join(
            (b'{"type":', encode(event["type"]), b',"object":', obj, b"}")
        ).decode()

    async def read(self) -> bytes:
        if self._refusal is None:
            return b""
        if self._refusal.body is None:
            return PAGE_NOT_FOUND
        return encode(self._refusal.body)

    async def lines(self) -> AsyncIterator[str]:
        watch = self._watch
        if watch is None:
            return
        for line in watch.initial:
            yield self._line(line)
        subscription = watch.subscription
        if subscription is None:
            return
        loop = asyncio.get_running_loop()
        deadline = None if self._timeout is None else loop.time() + self._timeout
        seen = watch.since
        due = next_bookmark(loop.time(), deadline) if watch.bookmarks else None
        while True:
            now = loop.time()
            if deadline is not None and deadline <= now:
                return
            if due is not None and due <= now:
                revision = self._server.store.revision
                if revision > seen:
                    seen = revision
                    yield self._line(bookmark(watch.kind, revision))
                due = next_bookmark(now, deadline)
                continue
            wakes = [t for t in (deadline, due) if t is not None]
            remaining = min(wakes) - now if wakes else None
            try:
                event = await asyncio.wait_for(subscription.queue.get(), remaining)
            except asyncio.TimeoutError:
                continue
            if event is None:
                return
            sent = watch.line(event)
            if sent is not None:
                seen = max(seen, event.revision)
                yield self._line(sent)
            subscription.read()

    def close(self) -> None:
        if self._watch is not None and self._watch.subscription is not None:
            self._server.store.unsubscribe(self._watch.subscription)


class MemoryTransport:
    """Sends requests to a `MemoryApiServer` (a `seams.Transport`)."""

    host = "memory"

    def __init__(self, server: MemoryApiServer, namespace: str = "default") -> None:
        self.server = server
        self.namespace = namespace
        """The default namespace of requests that name none."""
        self.closed = False

    async def send(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        content_type: str | None = None,
        accept: str | None = None,
    ) -> Answer:
        self._check_open()
        self.server.requests.append((method, path))
        fault = self.server.faults.take(method, path)
        # a request is a suspension point, as on a network
        await asyncio.sleep(fault.delay if fault is not None else 0)
        if fault is not None and fault.code is not None:
            return Answer(fault.code, encode(fault.body()), fault.headers())
        code, document = self.server.respond(method, path, body, content_type)
        if document is None:
            return Answer(code, PAGE_NOT_FOUND, _TEXT)
        form = asked_form(accept)
        if form is not None:
            code, document = metadata_answer(form, code, document)
        return Answer(code, _answer(self.server.store, document), _JSON)

    @asynccontextmanager
    async def stream(
        self,
        method: str,
        path: str,
        *,
        read_timeout: float | None,
        accept: str | None = None,
    ) -> AsyncIterator[WatchStream]:
        self._check_open()
        self.server.requests.append(("WATCH", path))
        fault = self.server.faults.take("WATCH", path)
        await asyncio.sleep(fault.delay if fault is not None else 0)
        if fault is not None and fault.code is not None:
            refusal = Refusal(fault.code, fault.body())
            yield WatchStream(self.server, None, refusal, None, fault.headers())
            return
        route = parse_route(path)
        seconds = route.query.get("timeoutSeconds") if route is not None else None
        timeout = float(seconds) if seconds else None
        try:
            stream = WatchStream(
                self.server,
                self.server.open_watch(path),
                None,
                timeout,
                form=asked_form(accept),
            )
        except Refusal as refusal:
            stream = WatchStream(self.server, None, refusal, None)
        try:
            yield stream
        finally:
            stream.close()

    async def aclose(self) -> None:
        self.closed = True

    def sibling(self) -> MemoryTransport:
        """A shallow copy, open: the same server, and a subclass's recordings (its
        lists, events) shared, so what goes through the sibling is seen as it would
        be through this one; only closing is its own. Not `self`: its caller
        closes it, and this transport must stay open."""
        twin = copy.copy(self)
        twin.closed = False
        return twin

    def _check_open(self) -> None:
        if self.closed:
            raise RuntimeError("cannot send a request: the client has been closed")
