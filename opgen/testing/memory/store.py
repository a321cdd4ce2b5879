"""The memory server's storage: objects, one resourceVersion counter, the event history.

As in etcd, every write of any kind takes the next revision of one counter,
and an object's `resourceVersion` is the revision that last wrote it. Every
write is kept as an event (ADDED, MODIFIED, DELETED) for watches: one that
starts from a resourceVersion replays the events after it, then follows new
ones as they are written.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import msgspec

__all__ = ["Event", "Store", "Subscription", "decode", "encode"]

T = TypeVar("T")
KindKey = tuple[str, str, str]
"""(group, version, plural)."""


def json_copy(value: T) -> T:
    """A copy of a JSON document (dicts, lists and scalars), which every read and
    write of the store pays: a round trip through msgspec's MessagePack, in C,
    about twice as fast as marshal's and six times as a walk in Python (floats
    stay bit for bit, NaN included; a tuple comes back a list, as JSON reads
    an array). A document msgspec cannot write (a `str` subclass, an integer
    beyond 64 bits, a lone surrogate) is walked."""
    if type(value) is not dict and type(value) is not list:
        return value if not isinstance(value, dict | list) else _walked(value)
    try:
        return cast(T, _UNPACK.decode(_PACK.encode(value)))
    except (TypeError, ValueError, OverflowError):
        return _walked(value)


_PACK = msgspec.msgpack.Encoder()
_UNPACK = msgspec.msgpack.Decoder()


def _walked(value: T) -> T:
    if isinstance(value, dict):
        return cast(T, {key: _walked(item) for key, item in value.items()})
    if isinstance(value, list):
        return cast(T, [_walked(item) for item in value])
    return value


_ENCODER = json.JSONEncoder(separators=(",", ":"))
"""`json.dumps` with these separators builds an encoder for every answer."""


def encode(document: Any) -> bytes:
    """A JSON document as the server sends it: compact, in UTF-8 (as Go writes
    it; not `\\u` escapes). msgspec writes it in C, several times as fast as
    the json module; what msgspec refuses (a lone surrogate, a type it does not
    know) the json module writes, as before."""
    try:
        return msgspec.json.encode(document)
    except (TypeError, ValueError, UnicodeEncodeError):
        return _ENCODER.encode(document).encode()


def decode(body: bytes) -> Any:
    """A request body's JSON document: read by msgspec, or, for what it refuses,
    by the json module, which reads a little more (lone surrogates) and whose
    message a 400 gives (`ValueError`). `NaN` and `Infinity` are not JSON: the
    API server refuses them, and so does this."""
    try:
        return msgspec.json.decode(body)
    except msgspec.DecodeError:
        return json.loads(body, parse_constant=_not_json)


def _not_json(constant: str) -> Any:
    raise ValueError(
        f"invalid character {constant[0]!r} looking for beginning of value"
    )


_TYPED = ("apiVersion", "kind")
"""What a built-in's list item leaves out (a typed list's items carry neither)."""


class _Stored:
    """What the store keeps beside one stored object, made when first asked for:
    its encoding (`Store.encoded`), its form as a typed list's item
    (`Store.list_item`) and that form's encoding, and what `Store.kept` made of
    it (its validated model). Dropped with the object when
    a write replaces it: a stored object is never changed, so neither is this."""

    __slots__ = ("encoded", "item", "item_encoded", "kept", "obj")

    def __init__(self, obj: dict[str, Any]) -> None:
        self.obj = obj
        self.encoded: bytes | None = None
        self.item: dict[str, Any] | None = None
        self.item_encoded: bytes | None = None
        self.kept: dict[object, Any] = {}


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


@dataclass(frozen=True)
class Event:
    """One write: its revision, what happened, the object after it (for a delete:
    its last state at the delete's revision) and before it."""

    revision: int
    type: str
    kind: KindKey
    obj: dict[str, Any]
    previous: dict[str, Any] | None


@dataclass(eq=False)
class Subscription:
    """A watch's queue of events of one kind; None in the queue ends the watch."""

    kind: KindKey
    queue: asyncio.Queue[Event | None] = field(default_factory=asyncio.Queue)
    loop: asyncio.AbstractEventLoop | None = field(default_factory=_running_loop)
    """The loop reading the queue: a write from another thread, or from a loop
    not running now (the webhook handlers' own), hands it the event through
    that loop."""
    unread: int = 0
    """Events put and not yet taken in by the watch's reader (`read`)."""

    def put(self, item: Event | None) -> None:
        if item is not None:
            self.unread += 1
        if self.loop is None or self.loop is _running_loop():
            self.queue.put_nowait(item)
        elif not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self.queue.put_nowait, item)

    def read(self) -> None:
        """One event taken in by the watch's reader (sent on, or filtered out)."""
        self.unread -= 1


class Store:
    """Objects of every kind by (namespace, name), and every write as an `Event`."""

    def __init__(self) -> None:
        self.revision = 0
        self._objects: dict[KindKey, dict[tuple[str, str], dict[str, Any]]] = {}
        self.history: list[Event] = []
        self._subscriptions: set[Subscription] = set()
        self._stored: dict[int, _Stored] = {}
        """The current stored objects (and their typed list items) by `id`: a
        read's answer that is one of them is encoded once, not once a read."""

    def encoded(self, document: Any) -> bytes:
        """`document` encoded (`encode`); a current stored object, or its typed
        list item, is encoded once and its bytes kept until a write replaces it."""
        known = self._stored.get(id(document))
        if known is None:
            return encode(document)
        if known.obj is document:
            if known.encoded is None:
                known.encoded = encode(document)
            return known.encoded
        if known.item is document:
            if known.item_encoded is None:
                known.item_encoded = encode(document)
            return known.item_encoded
        return encode(document)

    def kept(self, obj: Any, key: object, make: Callable[[dict[str, Any]], T]) -> T:
        """`make(obj)`, kept under `key` while `obj` is a current stored object
        (made again for any other); what `make` raises is not kept."""
        known = self._stored.get(id(obj))
        if known is None or known.obj is not obj:
            return make(obj)
        if key not in known.kept:
            known.kept[key] = make(obj)
        return cast(T, known.kept[key])

    def list_item(self, obj: dict[str, Any]) -> dict[str, Any]:
        """A stored object as a built-in's (typed) list item: without its
        `apiVersion` and `kind`; made once while it is stored. Only to read."""
        known = self._stored.get(id(obj))
        if known is None or known.obj is not obj:
            return {k: v for k, v in obj.items() if k not in _TYPED}
        if known.item is None:
            known.item = {k: v for k, v in obj.items() if k not in _TYPED}
            self._stored[id(known.item)] = known
        return known.item

    def _stored_now(self, obj: dict[str, Any]) -> None:
        self._stored[id(obj)] = _Stored(obj)

    def _forget(self, obj: dict[str, Any] | None) -> None:
        if obj is None:
            return
        known = self._stored.get(id(obj))
        if known is None or known.obj is not obj:
            return
        del self._stored[id(obj)]
        if known.item is not None:
            del self._stored[id(known.item)]

    def get(self, kind: KindKey, namespace: str, name: str) -> dict[str, Any] | None:
        found = self.peek(kind, namespace, name)
        return json_copy(found) if found is not None else None

    def peek(self, kind: KindKey, namespace: str, name: str) -> dict[str, Any] | None:
        """The stored object itself, not copied: only to read (a write replaces
        a stored object, never changes it)."""
        return self._objects.get(kind, {}).get((namespace, name))

    def objects(self, kind: KindKey, namespace: str | None) -> Iterator[dict[str, Any]]:
        """Every object of `kind` (in `namespace`, when given), in key order as
        etcd lists them; not copied: only to read."""
        stored = self._objects.get(kind, {})
        for key in sorted(stored):
            if namespace is None or key[0] == namespace:
                yield stored[key]

    def everything(self) -> Iterator[tuple[KindKey, dict[str, Any]]]:
        """Every stored object with its kind, not copied: only to read."""
        for kind, stored in self._objects.items():
            yield from ((kind, obj) for obj in stored.values())

    def write(
        self,
        kind: KindKey,
        obj: dict[str, Any],
        previous: dict[str, Any] | None,
    ) -> dict[str, Any]:
        """Store `obj` itself (created when there is no `previous`) at the next
        revision; returns it, its resourceVersion set. From then on it is the
        store's: the caller may answer with it (encode it), never change it."""
        self.revision += 1
        meta = obj["metadata"]
        meta["resourceVersion"] = str(self.revision)
        key = (meta.get("namespace", ""), meta["name"])
        stored = self._objects.setdefault(kind, {})
        self._forget(stored.get(key))
        stored[key] = obj
        self._stored_now(obj)
        happened = "MODIFIED" if previous else "ADDED"
        # the stored object is replaced by the next write, never changed: its
        # event may share it
        self._publish(Event(self.revision, happened, kind, obj, previous))
        return obj

    def remove(self, kind: KindKey, obj: dict[str, Any]) -> dict[str, Any]:
        """Delete `obj` at the next revision; returns its last state at that
        revision, the store's as `write`'s answer is: to encode, never to change."""
        self.revision += 1
        meta = obj["metadata"]
        key = (meta.get("namespace", ""), meta["name"])
        self._forget(self._objects.get(kind, {}).pop(key, None))
        # stored objects are never changed: its last state shares their parts
        gone = {**obj, "metadata": {**obj["metadata"]}}
        gone["metadata"]["resourceVersion"] = str(self.revision)
        self._publish(Event(self.revision, "DELETED", kind, gone, obj))
        return gone

    def _publish(self, event: Event) -> None:
        self.history.append(event)
        for subscription in list(self._subscriptions):
            if subscription.kind == event.kind:
                subscription.put(event)

    def subscribe(self, kind: KindKey, after: int) -> Subscription:
        """A subscription to `kind`'s events, starting with those after revision `after`."""
        subscription = Subscription(kind)
        for event in self.history:
            if event.revision > after and event.kind == kind:
                subscription.unread += 1
                subscription.queue.put_nowait(event)
        self._subscriptions.add(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        self._subscriptions.discard(subscription)

    def close_watches(self) -> None:
        """End every open watch (as a server closing its connections)."""
        for subscription in list(self._subscriptions):
            subscription.put(None)
        self._subscriptions.clear()

    def unread(self, loop: asyncio.AbstractEventLoop) -> bool:
        """Whether a watch read in `loop` has events it has not taken in yet."""
        return any(s.unread for s in self._subscriptions if s.loop is loop)

    @property
    def subscriptions(self) -> int:
        return len(self._subscriptions)
