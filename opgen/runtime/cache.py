"""The informer cache: one informer per kind, started on first use, read by reconcilers.

`Cache.get`/`Cache.list` answer from memory: every read gets a fresh object,
copied from what the informer validated when it stored the object (no
validation on reads; see `decoding`). The first read of a kind starts its
informer and waits for its initial list, as controller-runtime's cache does.
An object that does not fit the kind's model makes `get` raise `DecodeError`;
`list` and `by_index` leave it out, name it in `Page.undecodable` (list) and
log it once per stored version. What is watched per kind is set in
`CacheOptions`: namespaces, label and field selectors (the server filters, so
objects outside the selection cost no memory). User-defined indexes are added
with `Cache.add_index`. Reads see this process's own writes (`freshness`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from opgen.runtime import errors, selectors
from opgen.runtime.decoding import DecodeError, Undecodable
from opgen.runtime.freshness import DEFAULT_WAIT, Expectations
from opgen.runtime.informer import Event, Informer
from opgen.runtime.reader import Page
from opgen.runtime.resources import ResourceType, resource_type
from opgen.runtime.rest import RestClient
from opgen.runtime.store import Entry, Key
from opgen.runtime.timeouts import within

__all__ = ["Cache", "CacheOptions", "KindSelection"]

T = TypeVar("T")
log = logging.getLogger("opgen.runtime.cache")


@dataclass(frozen=True)
class KindSelection:
    """What the cache watches of one kind. `None` means: the cache-wide default."""

    namespaces: Sequence[str] | None = None
    labels: selectors.Selector | None = None
    fields: selectors.Selector | None = None


@dataclass(frozen=True)
class CacheOptions:
    """Cache settings; each field's default is what controller-runtime does."""

    namespaces: Sequence[str] | None = None
    """Namespaces to watch for namespaced kinds; None (default) watches all."""
    by_kind: Mapping[type, KindSelection] = field(default_factory=dict)
    """Per-kind namespaces and label/field selectors."""
    page_size: int = 500
    """Objects per page of the initial (and every re-) list."""
    watch_timeout: int = 300
    """Server-side watch timeout in seconds (a random 1 to 2 times that is used so watches do not restart together)."""
    read_timeout: float = 120.0
    """HTTP read timeout on watches: bookmarks arrive about once a minute, so this only fires on a dead stream."""
    idle_timeout: float = 150.0
    """The watchdog restarts a watch that heard nothing (no event, no bookmark) for this long."""
    read_your_writes_wait: float = DEFAULT_WAIT
    """A cached read of an object this process just wrote waits at most this long for the
    informer to store that write (read-your-writes; see `freshness`). 0 disables. Default 1 s."""
    sync_timeout: float = 120.0
    """Seconds a manager waits for the initial lists before giving up. Default 120."""


class Cache:
    """Informers by kind; reads come from their stores."""

    def __init__(self, rest: RestClient, options: CacheOptions | None = None) -> None:
        self.rest = rest
        self.options = options or CacheOptions()
        self._informers: dict[type, Informer] = {}
        self._own_labels: dict[type, str | None] = {}
        """What `CacheOptions` selects for a kind that `restrict` narrowed."""
        self._expectations: dict[type, Expectations] = {}
        self._tasks: dict[type, asyncio.Task[None]] = {}
        self._started = False

    def informer_for(self, cls: type) -> Informer:
        """The informer for `cls`, created (and started, if the cache runs) on first use."""
        informer = self._informers.get(cls)
        if informer is None:
            rtype: ResourceType[Any] = resource_type(cls)
            selection = self.options.by_kind.get(cls, KindSelection())
            namespaces = (
                selection.namespaces
                if selection.namespaces is not None
                else self.options.namespaces
            )
            informer = Informer(
                self.rest,
                rtype,
                namespaces=tuple(namespaces) if namespaces else None,
                labels=selection.labels,
                fields=selection.fields,
                page_size=self.options.page_size,
                watch_timeout=self.options.watch_timeout,
                read_timeout=self.options.read_timeout,
                idle_timeout=self.options.idle_timeout,
            )
            self._informers[cls] = informer
            expectations = Expectations(self.options.read_your_writes_wait)
            self._expectations[cls] = expectations
            informer.add_handler(_observer(expectations))
            if self._started:
                self._start_one(cls, informer)
        return informer

    def restrict(self, cls: type, labels: str) -> None:
        """Watch only the objects of `cls` that also match `labels` (a selector string;
        sharding's slots), in addition to what `CacheOptions` selects for the kind.
        Called again, the new `labels` replace the last: a running informer lists
        again with them (`Informer.reselect`)."""
        own = self._own_labels.setdefault(
            cls,
            selectors.to_query(self.options.by_kind.get(cls, KindSelection()).labels),
        )
        both = ",".join(q for q in (own, labels) if q)
        informer = self._informers.get(cls)
        if informer is not None:
            informer.reselect(both)
            return
        selection = self.options.by_kind.get(cls, KindSelection())
        by_kind = {**self.options.by_kind, cls: replace(selection, labels=both)}
        self.options = replace(self.options, by_kind=by_kind)

    def _start_one(self, cls: type, informer: Informer) -> None:
        self._tasks[cls] = asyncio.create_task(
            informer.run(), name=f"informer {informer.rtype}"
        )

    async def start(self) -> None:
        """Start every informer created so far, and any created later."""
        self._started = True
        for cls, informer in self._informers.items():
            if cls not in self._tasks:
                self._start_one(cls, informer)

    async def stop(self) -> None:
        self._started = False
        tasks = list(self._tasks.values())
        self._tasks.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    @property
    def informers(self) -> Mapping[type, Informer]:
        return dict(self._informers)

    async def wait_for_sync(self, timeout: float | None = None) -> bool:
        """Wait until every informer has listed once; False on timeout.

        One informer after the other against one deadline: no `gather` inside
        `wait_for`, whose cancellation (a SIGTERM while syncing) would leave the
        gathering future's CancelledError unretrieved and logged as an error.
        """
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        for informer in list(self._informers.values()):
            if informer.has_synced:
                continue
            remaining = None if deadline is None else max(0.0, deadline - loop.time())
            try:
                await within(informer.wait_for_sync(), remaining)
            except asyncio.TimeoutError:
                return False
        return True

    async def _synced_informer(self, cls: type) -> Informer:
        informer = self.informer_for(cls)
        if not self._started:
            raise RuntimeError(
                "the cache is not started: reads from it need a running manager"
            )
        await informer.wait_for_sync()
        return informer

    def add_index(
        self, cls: type[T], name: str, func: Callable[[T], Iterable[str]]
    ) -> None:
        """Index objects of `cls` by the strings `func(obj)` returns (call before the
        first read); an object that does not fit the model is not indexed."""
        informer = self.informer_for(cls)

        def index(entry: Entry) -> Iterable[str]:
            try:
                obj = informer.fresh(entry)
            except DecodeError:
                return ()
            return func(obj)

        informer.store.add_index(name, index)

    def record_write(
        self,
        cls: type,
        namespace: str,
        name: str,
        resource_version: str,
        labels: Mapping[str, str],
    ) -> None:
        """This process wrote the object and the server answered `resource_version`:
        the next cached read of it waits until the informer has stored that version."""
        informer = self._informers.get(cls)
        if (
            informer is None
            or not resource_version
            or not informer.would_watch(namespace, labels)
        ):
            return
        self._expectations[cls].expect((namespace, name), resource_version)

    def _stored_version(self, informer: Informer) -> Callable[[Key], str | None]:
        def stored(key: Key) -> str | None:
            entry = informer.store.get(key)
            return entry.resource_version if entry is not None else None

        return stored

    async def by_index(self, cls: type[T], name: str, value: str) -> list[T]:
        """Objects whose index `name` holds `value` (those that fit the model)."""
        informer = await self._synced_informer(cls)
        found: list[T] = []
        for entry in informer.store.by_index(name, value):
            try:
                found.append(informer.fresh(entry))
            except DecodeError as error:
                _skipped(entry, error, f"the {name!r} index of {informer.rtype}")
        return found

    async def get(self, cls: type[T], name: str, namespace: str | None = None) -> T:
        """The cached object; raises `NotFound` like the server would."""
        # every reconcile reads here: once the kind's informer has synced and no
        # write of this key is pending, nothing is awaited (no coroutine is made)
        informer = self._informers.get(cls)
        if informer is None or not informer.has_synced or not self._started:
            informer = await self._synced_informer(cls)
        rtype: ResourceType[T] = informer.rtype
        key = (namespace or "", name) if rtype.namespaced else ("", name)
        expectations = self._expectations[cls]
        if key in expectations:
            await expectations.settle([key], self._stored_version(informer))
        entry = informer.store.get(key)
        if entry is None:
            raise errors.NotFound(
                404, f'{rtype.plural} "{name}" not found (cache)', reason="NotFound"
            )
        fresh: T = informer.fresh(entry)
        return fresh

    async def list(
        self,
        cls: type[T],
        namespace: str | None = None,
        *,
        labels: selectors.Selector | None = None,
        fields: selectors.Selector | None = None,
    ) -> Page[T]:
        """Cached objects, filtered like the server would filter them, sorted by
        namespace/name; those that do not fit the model are in `undecodable`."""
        informer = await self._synced_informer(cls)
        expectations = self._expectations[cls]
        await expectations.settle(
            expectations.pending_keys(namespace or None),
            self._stored_version(informer),
        )
        entries = (
            informer.store.by_index("namespace", namespace)
            if namespace
            else list(informer.store)
        )
        result: list[T] = []
        undecodable: list[DecodeError] = []
        for entry in sorted(entries, key=lambda e: e.key):
            if not selectors.labels_match(labels, entry.labels):
                continue
            if fields is not None and not selectors.fields_match(
                fields, entry.to_dict()
            ):
                continue
            try:
                result.append(informer.fresh(entry))
            except DecodeError as error:
                _skipped(entry, error, f"a cached list of {informer.rtype}")
                undecodable.append(error)
        return Page(result, undecodable=tuple(undecodable))


def _skipped(entry: Entry, error: DecodeError, where: str) -> None:
    """Log, once per stored version, that a read left out an object that does not fit."""
    prepared = entry.decoded
    if isinstance(prepared, Undecodable):
        if prepared.reported:
            return
        prepared.reported = True
    log.warning("%s left out an object: %s", where, error)


def _observer(expectations: Expectations) -> Callable[[Event], None]:
    def observe(event: Event) -> None:
        entry = event.new
        expectations.observed(
            entry.key, entry.resource_version, deleted=event.type == "DELETED"
        )

    return observe
