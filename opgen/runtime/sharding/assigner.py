"""The assigner: run on the elected leader, it labels every object with its shard.

Objects of the sharded primary kinds are placed on the ring of live members
(`Members`) by their UID, or their namespace (`ShardingOptions.hash_key`).
The assigner writes the shard label; it never reconciles anything itself.

- **New objects** (no shard label) are seen by a watch of the unlabelled ones
  (`!shard.sharding.opgen.dev/<ring>`, so it holds only objects waiting for a
  shard) and labelled for their member.
- **Objects of a member that is gone** (its Lease deleted or expired) are
  labelled for their new member at once: nobody reconciles them any more.
- **Objects that should move** from a live member (the ring changed) get the
  drain label only. Their holder lets them go (see `holder`) by removing both
  labels, which brings them back to the unlabelled watch; then their children
  are moved, and then the object itself. An object is therefore never held by
  two members: the one it leaves has stopped before the one it joins sees it.
- **Children** (the kinds the controllers own) carry their controller owner's
  shard label: the runtime stamps it when the reconciler sets the owner
  reference (`rt.set_controller_reference`), and the assigner moves the
  children with their owner and, on its full pass, puts back any stray.

The assigner reads metadata only: its lists and its watch ask the API server
for `PartialObjectMetadataList` and `PartialObjectMetadata` (the `Accept` of
controller-runtime's metadata client, `rest.METADATA_LIST_ACCEPT`), so no
object's spec or status reaches the leader. A full pass lists every object of
the sharded kinds, page by page, keeping only a few strings per object (never
the objects), so the leader's memory grows little with the ring's size: the
children first, so that each owner it moves takes along every child it has by
then (not only those of the last pass), then the primaries. It runs when the
members change and every `sweep_period`. Every label write is a merge patch
that carries the resourceVersion read with it, so a write based on a stale
view conflicts and is decided again on the next event or pass.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec

from opgen.runtime import errors
from opgen.runtime.decoding import Decoder
from opgen.runtime.informer import Event, Informer
from opgen.runtime.metrics import Metrics
from opgen.runtime.resources import ResourceType
from opgen.runtime.rest import METADATA_ACCEPT, METADATA_LIST_ACCEPT, RestClient
from opgen.runtime.sharding.holder import MERGE_PATCH
from opgen.runtime.sharding.membership import Members, loop_time
from opgen.runtime.sharding.protocol import ShardingOptions
from opgen.runtime.sharding.ring import HashRing
from opgen.runtime.store import Entry, entry_from_dict
from opgen.runtime.timeouts import within

__all__ = ["Assigner", "Placement"]

log = logging.getLogger("opgen.runtime.sharding")

T = TypeVar("T")
R = TypeVar("R")
WRITES_IN_FLIGHT = 8
"""Label writes the assigner has in flight at once (each for another object). Each
holds a connection of its own, which stays open and costs the leader about 0.3 MiB
of RSS: more in flight hand a dead member's objects on sooner (on the development
machine, loaded: 32, 240 writes/s; 8, 150 to 260) at the price of the leader's memory
(docs/runtime.md#sharding)."""
EXPIRY_MARGIN = 0.05
"""Seconds after a Lease's expiry before the members are read again to see it."""
MEMBER_READS_PER_PERIOD = 4
"""Reads of the members per `retry_period`. A member's Lease counts as expired
`lease_duration` after the assigner saw its last renewal, which it sees up to one
read late: a read every quarter period hands a dead member's objects on about
three eighths of a period sooner, on average, than a read every period, for a
list of a few Leases."""
KEPT_METADATA = (
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "labels",
    "ownerReferences",
)
"""All the assigner keeps of an object: what places it and what it writes with."""


@dataclass(frozen=True, slots=True)
class _Ref:
    """What the assigner keeps of one object."""

    rtype: ResourceType[Any]
    namespace: str
    name: str
    uid: str
    resource_version: str
    labels: dict[str, str]
    owner_uid: str | None


class _Metadata(msgspec.Struct, rename="camel"):
    """The metadata fields the assigner reads (`KEPT_METADATA`)."""

    name: str = ""
    namespace: str = ""
    uid: str = ""
    resource_version: str = ""
    labels: dict[str, str] = msgspec.field(default_factory=dict)
    owner_references: list[dict[str, Any]] = msgspec.field(default_factory=list)


class _Item(msgspec.Struct):
    metadata: _Metadata = msgspec.field(default_factory=_Metadata)


class _MetadataPage(msgspec.Struct):
    """A list page as the assigner decodes it: the decoder skips everything but the
    items' metadata (their spec and status never become Python objects)."""

    items: list[_Item] | None = None
    """None when there is none (a `PartialObjectMetadataList` says `null`)."""
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)


def metadata_only(item: dict[str, Any]) -> dict[str, Any]:
    """`item` cut down to the metadata fields the assigner reads (`KEPT_METADATA`)."""
    meta = item.get("metadata") or {}
    return {"metadata": {k: meta[k] for k in KEPT_METADATA if k in meta}}


def _ref(
    rtype: ResourceType[Any], meta: _Metadata | Entry, ring_labels: tuple[str, str]
) -> _Ref:
    """What the assigner keeps of an object, from a list page's or its store's entry:
    of its labels, the ring's (`ring_labels`, the only ones it reads); the strings
    that repeat from object to object (namespace, label names, shard names) are
    shared, not one copy each."""
    owners: Sequence[Mapping[str, Any]] = meta.owner_references
    owner = next((r for r in owners if r.get("controller")), None)
    labels = meta.labels
    return _Ref(
        rtype,
        sys.intern(meta.namespace),
        meta.name,
        meta.uid,
        meta.resource_version,
        {key: sys.intern(labels[key]) for key in ring_labels if key in labels},
        owner.get("uid") if owner else None,
    )


class _KeepRaw(Decoder[Any]):
    def prepare(self, raw: bytes) -> object:
        return None


class _Unassigned(Informer):
    """The objects waiting for a shard. The assigner reads only their metadata: the
    server sends nothing else (`PartialObjectMetadata`), its store keeps only what
    places an object (`metadata_only`, which also cuts down the whole objects of a
    server that cannot send metadata alone) and decodes nothing into the kind's
    model: a bulk creation passes every object through this store."""

    list_accept = METADATA_LIST_ACCEPT
    watch_accept = METADATA_ACCEPT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.decoder = _KeepRaw(self.rtype)

    def entry(self, data: dict[str, Any]) -> Entry:
        return entry_from_dict(metadata_only(data))


@dataclass(frozen=True)
class Placement:
    """What the ring decides for one primary object: the labels to write (None: none)."""

    labels: dict[str, str | None] | None
    reason: str
    """new, orphaned (its member is gone), drain, or held (no change)."""


def place(
    labels: dict[str, str],
    desired: str | None,
    live: frozenset[str],
    options: ShardingOptions,
) -> Placement:
    """The rule, in one pure function: where an object with `labels` goes."""
    shard, drain = options.shard_label, options.drain_label
    current = labels.get(shard)
    if desired is None:
        return Placement(None, "held")
    if current is None:
        return Placement({shard: desired, drain: None}, "new")
    if current not in live:
        return Placement({shard: desired, drain: None}, "orphaned")
    if current != desired and drain not in labels:
        return Placement({drain: "true"}, "drain")
    return Placement(None, "held")


class Assigner:
    """Keeps every sharded object labelled with a live member (leader only)."""

    def __init__(
        self,
        rest: RestClient,
        members: Members,
        options: ShardingOptions,
        *,
        primaries: Sequence[ResourceType[Any]],
        children: Sequence[ResourceType[Any]],
        namespaces: Sequence[str] | None = None,
        metrics: Metrics | None = None,
        page_size: int = 500,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.rest = rest
        self.members = members
        self.options = options
        self.primaries = tuple(primaries)
        self.children = tuple(children)
        self.namespaces = tuple(namespaces) if namespaces else None
        self.metrics = metrics if metrics is not None else rest.metrics
        self.page_size = page_size
        self._clock = clock or loop_time
        self.live: frozenset[str] = frozenset()
        self._ring_labels = (options.shard_label, options.drain_label)
        self.ring = HashRing((), options.virtual_nodes)
        self._wake = asyncio.Event()
        self._full = True
        self._draining: dict[str, float] = {}
        """UID → when the assigner set its drain label."""
        self._children_of: dict[str, list[_Ref]] = {}
        """Owner UID → its children, as listed at the start of the last full pass."""
        self._relabelled: dict[str, str] = {}
        """Child UID → the shard label written on it during this full pass."""
        self._waiting: list[Informer] = []
        self._counted: set[str] = set()
        self.passes = 0
        self.writes = 0
        """Label writes that succeeded."""

    def _desired(self, ref: _Ref) -> str | None:
        key = ref.namespace if self.options.hash_key == "namespace" else ref.uid
        return self.ring.owner(key)

    def _set_live(self, live: frozenset[str]) -> None:
        if live != self.live:
            log.info(
                "ring %s members: %s",
                self.options.ring,
                ", ".join(sorted(live)) or "none",
            )
            self.live = live
            self.ring = HashRing(live, self.options.virtual_nodes)
            self._full = True
            self._wake.set()
        self.metrics.shard_members.labels(self.options.ring).set(len(live))

    async def watch_members(self) -> None:
        while True:
            try:
                self._set_live(await self.members.read())
            except Exception as exc:
                log.warning(
                    "could not read the members of ring %s: %s", self.options.ring, exc
                )
            await asyncio.sleep(self._next_read())

    def _next_read(self) -> float:
        """Seconds to the next read of the members: a quarter of `retry_period`
        (`MEMBER_READS_PER_PERIOD`), or sooner when a Lease would expire first (then
        just after it: a dead member is noticed as soon as its Lease lets it be)."""
        period = self.options.retry_period / MEMBER_READS_PER_PERIOD
        expiry = self.members.until_next_expiry()
        if expiry is None:
            return period
        return min(period, expiry + EXPIRY_MARGIN)

    async def run(self) -> None:
        """Assign until cancelled."""
        self._waiting = [
            _Unassigned(
                self.rest,
                rtype,
                namespaces=self.namespaces,
                labels=f"!{self.options.shard_label}",
                page_size=self.page_size,
            )
            for rtype in self.primaries
        ]
        for informer in self._waiting:
            informer.add_handler(self._on_waiting)
        tasks = [asyncio.create_task(i.run()) for i in self._waiting]
        tasks.append(asyncio.create_task(self.watch_members()))
        try:
            while True:
                try:
                    await within(self._wake.wait(), self.options.sweep_period)
                except asyncio.TimeoutError:
                    self._full = True
                self._wake.clear()
                try:
                    if self._full:
                        self._full = False
                        await self.sweep()
                    else:
                        await self.assign_waiting()
                except Exception as exc:
                    log.warning(
                        "assigning ring %s failed: %s; retrying", self.options.ring, exc
                    )
                    self._full = True
                    await asyncio.sleep(self.options.retry_period)
                    self._wake.set()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    def _on_waiting(self, event: Event) -> None:
        if event.type != "DELETED":
            self._wake.set()

    async def _patch(
        self, ref: _Ref, labels: dict[str, str | None], *, precondition: bool = True
    ) -> bool:
        metadata: dict[str, Any] = {"labels": labels}
        if precondition:
            metadata["resourceVersion"] = ref.resource_version
        try:
            await self.rest.request(
                "patch",
                ref.rtype,
                name=ref.name,
                namespace=ref.namespace or None,
                body=json.dumps({"metadata": metadata}).encode(),
                content_type=MERGE_PATCH,
            )
        except (errors.Conflict, errors.NotFound):
            return False
        self.writes += 1
        return True

    async def _place(self, ref: _Ref) -> str | None:
        """Apply the rule to one primary object; its shard label afterwards."""
        shard = self.options.shard_label
        placement = place(ref.labels, self._desired(ref), self.live, self.options)
        if placement.labels is None:
            return ref.labels.get(shard)
        new_shard = placement.labels.get(shard)
        if new_shard is not None:
            for child in self._children_of.get(ref.uid, ()):
                if child.labels.get(shard) != new_shard and await self._patch(
                    child, {shard: new_shard}, precondition=False
                ):
                    self._relabelled[child.uid] = new_shard
        if not await self._patch(ref, placement.labels):
            return ref.labels.get(shard)
        reasons = self.metrics.shard_reassignments
        if placement.reason == "drain":
            self._draining.setdefault(ref.uid, self._clock())
            return ref.labels.get(shard)
        started = self._draining.pop(ref.uid, None)
        if started is not None:
            self.metrics.shard_drain_time.labels(self.options.ring).observe(
                self._clock() - started
            )
            reasons.labels(self.options.ring, "drained").inc()
        elif placement.reason == "orphaned":
            reasons.labels(self.options.ring, "orphaned").inc()
        else:
            reasons.labels(self.options.ring, "new").inc()
        return new_shard

    async def assign_waiting(self) -> None:
        """Label the objects the unlabelled watch holds."""
        if not self.live:
            return
        for informer in self._waiting:
            refs = [
                _ref(informer.rtype, entry, self._ring_labels)
                for entry in informer.store
            ]
            await _together(self._place, refs)

    async def _pages(self, rtype: ResourceType[Any]) -> AsyncIterator[list[_Ref]]:
        for namespace in self.namespaces or (None,):
            params: dict[str, Any] = {"limit": self.page_size}
            while True:
                raw = await self.rest.request(
                    "list", rtype, namespace=namespace if rtype.namespaced else None,
                    params=params, accept=METADATA_LIST_ACCEPT,
                )  # fmt: skip
                page = msgspec.json.decode(raw, type=_MetadataPage)
                items = page.items or ()
                yield [_ref(rtype, item.metadata, self._ring_labels) for item in items]
                token = page.metadata.get("continue")
                if not token:
                    break
                params["continue"] = token

    async def sweep(self) -> None:
        """One full pass: every primary object placed, every child with its owner."""
        started, writes = self._clock(), self.writes
        self._set_live(await self.members.read())
        self._full = False
        shard = self.options.shard_label
        # the children first, so that every owner placed below moves its children
        # before itself, even those created since the last pass: its new holder
        # then has them in its cache when it first reconciles it. The last pass's
        # map goes before this one's is built, so the two are never held at once.
        self._children_of = {}
        children: list[_Ref] = []
        for rtype in self.children:
            async for page in self._pages(rtype):
                children.extend(child for child in page if child.owner_uid)
        children_of: dict[str, list[_Ref]] = {}
        for child in children:
            assert child.owner_uid is not None
            children_of.setdefault(child.owner_uid, []).append(child)
        self._children_of = children_of
        self._relabelled = {}
        held: dict[str, str | None] = {}
        counts: dict[str, int] = dict.fromkeys(self.live, 0)
        if self.live:
            for rtype in self.primaries:
                async for refs in self._pages(rtype):
                    placed = await _together(self._place, refs)
                    for ref, now in zip(refs, placed, strict=True):
                        held[ref.uid] = now
                        if now is not None:
                            counts[now] = counts.get(now, 0) + 1
        strays: list[tuple[_Ref, str]] = []
        for child in children:
            owner_shard = held.get(child.owner_uid or "")
            now = self._relabelled.get(child.uid, child.labels.get(shard))
            if owner_shard is not None and now != owner_shard:
                strays.append((child, owner_shard))
        await _together(lambda stray: self._patch(stray[0], {shard: stray[1]}), strays)
        self._children_of = {
            uid: kids for uid, kids in children_of.items() if uid in held
        }
        self._relabelled = {}
        for uid in set(self._draining) - set(held):
            del self._draining[uid]
        gauge = self.metrics.shard_assigned
        for member in self._counted - set(counts):
            gauge.remove(self.options.ring, member)
        for member, count in counts.items():
            gauge.labels(self.options.ring, member).set(count)
        self._counted = set(counts)
        self.passes += 1
        log.info("ring %s: full pass over %d objects, %d label writes, in %.1fs",
                 self.options.ring, len(held), self.writes - writes,
                 self._clock() - started)  # fmt: skip


async def _together(write: Callable[[R], Awaitable[T]], items: Sequence[R]) -> list[T]:
    """`write(item)` for each item (each another object), `WRITES_IN_FLIGHT` in
    flight at a time: the next starts as soon as one ends."""
    slots = asyncio.Semaphore(WRITES_IN_FLIGHT)

    async def one(item: R) -> T:
        async with slots:
            return await write(item)

    return list(await asyncio.gather(*(one(item) for item in items)))
