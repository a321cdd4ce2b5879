"""The reflector and informer for one kind: list, watch, keep a store, tell handlers.

Per namespace in scope (or once cluster-wide) a reflector loop:

1. lists in chunks (`limit`/`continue`) and replaces that scope of the store,
   diffing old against new: objects that vanished are emitted as DELETED,
   new ones as ADDED, changed ones as MODIFIED;
2. watches from the list's resourceVersion with `allowWatchBookmarks=true`,
   applying events to the store and advancing the resourceVersion on every
   event and bookmark; when the server ends the watch it resumes from there;
3. on 410 Gone (from the response or an ERROR event) goes back to 1 — never
   "watch from now", which would lose the deletes made in the gap — and so
   does a new label selector (`reselect`, sharding's change of slots);
4. on other errors backs off (0.8 s doubling to 30 s) and resumes.

A hung watch is caught twice: the HTTP read timeout, and a watchdog that
restarts any watch silent (no event, no bookmark) for `idle_timeout`.
`opgen_watch_staleness_seconds{kind}` exports the silence.

Storing a version decodes nothing into the kind's model: its first read does,
once (`decoding.Decoder.read`), and later reads copy the result instead of
validating again. An object that does not fit the kind's model is found then —
it stays in the store (its metadata still drives handlers, predicates and
indexes), reads of it raise `DecodeError`, and
`opgen_cache_undecodable_objects{kind}` counts the stored objects whose current
version a read found not to fit (a version nobody read is not judged).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

from opgen.runtime import errors, selectors
from opgen.runtime.decoding import DecodeError, Decoder, Undecodable
from opgen.runtime.resources import ResourceType
from opgen.runtime.rest import RestClient
from opgen.runtime.store import Entry, Key, Store, entry_from_dict, entry_from_json

__all__ = ["Event", "EventType", "Handler", "Informer"]

log = logging.getLogger("opgen.runtime.informer")

EventType = Literal["ADDED", "MODIFIED", "DELETED"]


@dataclass(frozen=True, slots=True)
class Event:
    """A change seen by the informer: `old` is the previous state on MODIFIED/DELETED."""

    type: EventType
    old: Entry | None
    new: Entry


Handler = Callable[[Event], None]


class _WatchEvent(msgspec.Struct):
    type: str
    object: msgspec.Raw


class _ListMetadata(msgspec.Struct):
    resourceVersion: str | None = None
    # `continue` is a keyword
    next: str | None = msgspec.field(default=None, name="continue")


class _Page(msgspec.Struct):
    metadata: _ListMetadata | None = None
    items: list[msgspec.Raw] | None = None


class _Version(msgspec.Struct):
    resourceVersion: str | None = None


class _Versioned(msgspec.Struct):
    metadata: _Version | None = None


_decode_event = msgspec.json.Decoder(_WatchEvent).decode
_decode_page = msgspec.json.Decoder(_Page).decode
_decode_versioned = msgspec.json.Decoder(_Versioned).decode


def _version(raw: bytes) -> str | None:
    """The `metadata.resourceVersion` of an object's JSON (a bookmark's)."""
    meta = _decode_versioned(raw).metadata
    return None if meta is None else meta.resourceVersion


@dataclass
class _Scope:
    namespace: str | None
    resource_version: str | None = None
    synced: bool = False
    last_activity: float = field(default_factory=time.monotonic)
    watch_task: asyncio.Task[None] | None = None
    idle_restart: bool = False
    reselect: bool = False
    """The label selector changed: list again."""
    selecting: bool = False
    """Not yet listed with the current label selector."""


class Informer:
    """Keeps a `Store` of one kind in sync with the API server and fans events out."""

    list_accept: str | None = None
    """The `Accept` of its lists (None: JSON, the objects whole); an informer that
    keeps only metadata asks `rest.METADATA_LIST_ACCEPT`."""
    watch_accept: str | None = None
    """The `Accept` of its watches (None: JSON); `rest.METADATA_ACCEPT` for metadata."""

    def __init__(
        self,
        rest: RestClient,
        rtype: ResourceType[Any],
        *,
        namespaces: tuple[str, ...] | None = None,
        labels: selectors.Selector | None = None,
        fields: selectors.Selector | None = None,
        page_size: int = 500,
        watch_timeout: int = 300,
        read_timeout: float = 120.0,
        idle_timeout: float = 150.0,
    ) -> None:
        self.rest = rest
        self.rtype = rtype
        self.labels = labels
        self.fields = fields
        self.page_size = page_size
        self.watch_timeout = watch_timeout
        self.read_timeout = read_timeout
        self.idle_timeout = idle_timeout
        self.store = Store()
        self.decoder: Decoder[Any] = Decoder(rtype)
        self._undecodable: set[Key] = set()
        self._handlers: list[Handler] = []
        scopes: tuple[str | None, ...] = (
            (None,) if not namespaces or not rtype.namespaced else namespaces
        )
        self._scopes = [_Scope(ns) for ns in scopes]
        self._namespaces: frozenset[str | None] | None = (
            None if None in scopes else frozenset(scopes)
        )
        """The namespaces watched; None: every namespace."""
        self._entry_of_json = type(self).entry is Informer.entry
        """Whether entries are built from the JSON text (`store.entry_from_json`);
        a subclass's own `entry` is given the object as Python data."""
        self._synced = asyncio.Event()
        self._selected = asyncio.Event()
        self._selected.set()
        metrics = rest.metrics
        self._restarts = metrics.watch_restarts
        metrics.watch_staleness.labels(str(rtype)).set_function(self.staleness)
        metrics.undecodable.labels(str(rtype)).set_function(
            lambda: len(self._undecodable)
        )

    def fresh(self, entry: Entry) -> Any:
        """A new object of the kind for `entry` (raises `DecodeError` if it does not fit)."""
        try:
            return self.decoder.read(entry)
        except DecodeError:
            if (
                isinstance(entry.decoded, Undecodable)
                and self.store.get(entry.key) is entry
            ):
                self._undecodable.add(entry.key)
            raise

    def entry(self, data: dict[str, Any]) -> Entry:
        """The store's entry for an object the server sent (its wire form, not yet
        decoded into the kind's model)."""
        return entry_from_dict(self.rtype.with_kind(data))

    def _entry(self, raw: bytes) -> tuple[Entry, str | None]:
        """The entry of an object's JSON as the server sent it, and its resourceVersion."""
        if self._entry_of_json:
            entry = entry_from_json(raw, self.rtype.api_version, self.rtype.kind)
            return entry, entry.resource_version or None
        data = msgspec.json.decode(raw)
        version = (data.get("metadata") or {}).get("resourceVersion")
        return self.entry(data), version

    @property
    def undecodable(self) -> int:
        """How many stored objects do not fit the kind's model."""
        return len(self._undecodable)

    def _upsert(self, entry: Entry) -> Entry | None:
        if self._undecodable:  # a new version: judged when first read
            self._undecodable.discard(entry.key)
        return self.store.upsert(entry)

    def _delete(self, key: Key) -> Entry | None:
        self._undecodable.discard(key)
        return self.store.delete(key)

    @property
    def has_synced(self) -> bool:
        return self._synced.is_set()

    async def wait_for_sync(self) -> None:
        if not self._synced.is_set():  # every cached read asks; once synced, at once
            await self._synced.wait()

    def reselect(self, labels: selectors.Selector | None) -> None:
        """Select `labels` from now on: each scope lists again with them (objects
        that left the selection are emitted as DELETED, new ones as ADDED) and
        watches from there; `wait_for_selection` returns once every scope has."""
        self.labels = labels
        self._selected.clear()
        for scope in self._scopes:
            scope.reselect = scope.selecting = True
            task = scope.watch_task
            if task is not None and not task.done():
                task.cancel()

    async def wait_for_selection(self) -> None:
        await self._selected.wait()

    def staleness(self) -> float:
        """Seconds since the stalest watch last heard from the server."""
        now = time.monotonic()
        return max(now - scope.last_activity for scope in self._scopes)

    def would_watch(self, namespace: str, labels: Mapping[str, str]) -> bool:
        """Whether an object with this namespace and labels is in what this informer
        watches (False whenever a field selector applies: it cannot be told here)."""
        if self.fields:
            return False
        watched = self._namespaces
        if watched is not None and namespace not in watched:
            return False
        return selectors.labels_match(self.labels, labels)

    def add_handler(self, handler: Handler) -> None:
        """Register a handler; objects already in the store are replayed to it as ADDED."""
        self._handlers.append(handler)
        for entry in self.store:
            handler(Event("ADDED", None, entry))

    def _emit(self, event: Event) -> None:
        for handler in self._handlers:
            try:
                handler(event)
            except Exception:
                log.exception("event handler for %s failed", self.rtype)

    async def run(self) -> None:
        """Run every reflector loop and the watchdog until cancelled."""
        tasks = [asyncio.create_task(self._reflect(scope)) for scope in self._scopes]
        tasks.append(asyncio.create_task(self._watchdog()))
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _reflect(self, scope: _Scope) -> None:
        failures = 0
        while True:
            try:
                if scope.resource_version is None or scope.reselect:
                    scope.reselect = False
                    await self._list(scope)
                    if scope.reselect:
                        continue
                    scope.selecting = False
                    if not any(s.selecting for s in self._scopes):
                        self._selected.set()
                scope.watch_task = asyncio.create_task(self._watch(scope))
                try:
                    await scope.watch_task
                finally:
                    scope.watch_task = None
                failures = 0
            except asyncio.CancelledError:
                if scope.reselect and not _cancelling():
                    continue
                if not scope.idle_restart:
                    raise
                scope.idle_restart = False
                self._restarts.labels(str(self.rtype), "idle").inc()
                log.warning(
                    "watch of %s silent for %.0fs; restarting it",
                    self.rtype,
                    self.idle_timeout,
                )
            except errors.Gone:
                log.info("watch of %s expired (410 Gone); relisting", self.rtype)
                self._restarts.labels(str(self.rtype), "gone").inc()
                scope.resource_version = None
            except Exception as exc:
                failures += 1
                delay = min(0.8 * 2 ** (failures - 1), 30.0) * (1 + random.random() / 4)
                self._restarts.labels(str(self.rtype), "error").inc()
                log.warning(
                    "watch of %s failed (%s); retrying in %.1fs", self.rtype, exc, delay
                )
                await asyncio.sleep(delay)

    def _base_params(self) -> dict[str, Any]:
        return {
            "labelSelector": selectors.to_query(self.labels),
            "fieldSelector": selectors.to_query(self.fields),
        }

    async def _list(self, scope: _Scope) -> None:
        """Chunked list, then replace this scope of the store, emitting the differences."""
        fresh: dict[tuple[str, str], Entry] = {}

        def take(item: msgspec.Raw) -> None:
            entry, version = self._entry(bytes(item))
            known = self.store.get(entry.key)
            if known is not None and known.resource_version == version:
                fresh[entry.key] = known  # unchanged: already decoded
            else:
                fresh[entry.key] = entry

        resource_version = await self._list_each(scope, take)
        self._replace(scope, fresh)
        self._mark_listed(scope, resource_version)

    async def _list_each(
        self, scope: _Scope, take: Callable[[msgspec.Raw], None]
    ) -> str:
        """Chunked list of `scope`, calling `take` on each item in order, one page
        held at a time; the list's resourceVersion."""
        params = self._base_params()
        params["limit"] = self.page_size
        resource_version = ""
        while True:
            raw = await self.rest.request(
                "list",
                self.rtype,
                namespace=scope.namespace,
                params=params,
                accept=self.list_accept,
            )
            page = _decode_page(raw)
            for item in page.items or ():
                take(item)
            meta = page.metadata
            if meta is None:
                break
            resource_version = meta.resourceVersion or resource_version
            token = meta.next
            if not token:
                break
            params["continue"] = token
        return resource_version

    def _mark_listed(self, scope: _Scope, resource_version: str) -> None:
        """`scope` listed at `resource_version`: its watch resumes there, and the
        informer is synced once every scope is."""
        scope.resource_version = resource_version
        scope.last_activity = time.monotonic()
        scope.synced = True
        if all(s.synced for s in self._scopes):
            self._synced.set()

    def _replace(self, scope: _Scope, fresh: dict[tuple[str, str], Entry]) -> None:
        if scope.namespace is None:
            current = self.store.keys()
        else:
            current = [e.key for e in self.store.by_index("namespace", scope.namespace)]
        for key in current:
            if key not in fresh:
                old = self._delete(key)
                if old is not None:
                    self._emit(Event("DELETED", old, old))
        for key, entry in fresh.items():
            old = self.store.get(key)
            if old is None:
                self._upsert(entry)
                self._emit(Event("ADDED", None, entry))
            elif old.resource_version != entry.resource_version:
                self._upsert(entry)
                self._emit(Event("MODIFIED", old, entry))

    async def _watch(self, scope: _Scope) -> None:
        params = self._base_params()
        params.update(
            {
                "allowWatchBookmarks": True,
                "resourceVersion": scope.resource_version,
                "timeoutSeconds": self.watch_timeout
                + random.randint(0, self.watch_timeout),
            }
        )
        scope.last_activity = time.monotonic()
        async with self.rest.stream(
            self.rtype,
            namespace=scope.namespace,
            params=params,
            read_timeout=self.read_timeout,
            accept=self.watch_accept,
        ) as lines:
            async for line in lines:
                if not line:
                    continue
                scope.last_activity = time.monotonic()
                self._apply(scope, line)

    def _apply(self, scope: _Scope, line: str) -> None:
        event = _decode_event(line)
        kind = event.type
        rv: str | None
        if kind == "ADDED" or kind == "MODIFIED":
            entry, rv = self._entry(bytes(event.object))
            old = self._upsert(entry)
            self._emit(Event("ADDED" if old is None else "MODIFIED", old, entry))
        elif kind == "DELETED":
            # the last state, decoded only if a Watches mapping asks for it
            entry = entry_from_json(
                bytes(event.object), self.rtype.api_version, self.rtype.kind
            )
            rv = entry.resource_version or None
            old = self._delete(entry.key)
            self._emit(Event("DELETED", old, entry))
        elif kind == "ERROR":
            raise errors.from_status(msgspec.json.decode(event.object))
        else:  # BOOKMARK, or a type this informer does not know: its version only
            rv = _version(bytes(event.object))
        if rv:
            scope.resource_version = rv

    async def _watchdog(self) -> None:
        period = max(self.idle_timeout / 4, 0.05)
        while True:
            await asyncio.sleep(period)
            now = time.monotonic()
            for scope in self._scopes:
                task = scope.watch_task
                if (
                    task is not None
                    and not task.done()
                    and now - scope.last_activity > self.idle_timeout
                ):
                    scope.idle_restart = True
                    task.cancel()


def _cancelling() -> bool:
    """Whether this task itself is being cancelled, not only its watch (Python 3.11+
    can tell; 3.10 cannot, and a stop landing in the very step between a new selector
    and the loop's next turn would be taken for the selector's restart, as the idle
    restart's can; the manager stops the follower, the one caller, before the cache)."""
    task = asyncio.current_task()
    cancelling = getattr(task, "cancelling", None)
    return bool(cancelling and cancelling())
