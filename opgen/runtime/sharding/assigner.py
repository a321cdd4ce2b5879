"""The assigner: run on the elected leader, it labels new objects with their slot
and keeps the assignment of slots to live members. It never reconciles.

- **Slot labels.** A watch of the sharded kinds' objects that have no slot
  label yet (`!slot.sharding.opgen.dev/<ring>`, so it sees only objects
  waiting for one) sees each object once in its life; the assigner writes its
  slot (`protocol.slot_from`), removing the previous protocol's shard and drain
  labels in the same patch. A child of the owned kinds is labelled only when
  its controller owner is of a sharded kind; its slot is its owner's, computed
  from the owner reference alone. Children that reconcilers create get their
  owner's slot label from the runtime (`rt.set_controller_reference`) and
  never wait here.
- **The assignment.** Four times a `retry_period` (and just after a member's
  Lease would expire) it reads the members' Leases and writes the next step
  towards a balanced assignment (`assignment.next_step`) to the slots Lease,
  with the resourceVersion it read (a write based on a stale view conflicts
  and is decided again). One write per step, whatever the number of objects.

It reads metadata only: its watch and its label writes ask the API server for
`PartialObjectMetadata` (the `Accept` of controller-runtime's metadata
client), so no object's spec or status reaches the leader. It keeps no store:
each event is decoded into the few fields that place an object (`_Metadata`;
the rest of it, and all of a whole object a server sends when it cannot send
metadata alone, is skipped unread), and of an object waiting for its label
the assigner holds its namespace, name and slot, nothing else. A bulk
creation makes thousands wait at once (the label writes get a small share of
a busy API server): what they hold, among the allocations of this replica's
own cache, stays in the heap after they are labelled.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from opgen.runtime import errors
from opgen.runtime.informer import Informer, _Scope
from opgen.runtime.leaderelection import _lease
from opgen.runtime.metrics import Metrics
from opgen.runtime.resources import ResourceType
from opgen.runtime.rest import METADATA_ACCEPT, METADATA_LIST_ACCEPT, RestClient
from opgen.runtime.seams import Reader, Writer
from opgen.runtime.sharding.assignment import Assignment, Holder, MemberState, next_step
from opgen.runtime.sharding.follower import read_assignment
from opgen.runtime.sharding.heap import fix_mmap_threshold, release_heap
from opgen.runtime.sharding.membership import Members, loop_time
from opgen.runtime.sharding.protocol import (
    ANNOTATION_ASSIGNMENT,
    ANNOTATION_GENERATION,
    DRAIN_PREFIX,
    SHARD_PREFIX,
    ShardingOptions,
    slot_from,
    slots_lease_name,
)

__all__ = ["Assigner"]

log = logging.getLogger("opgen.runtime.sharding")

MERGE_PATCH = "application/merge-patch+json"
WRITES_IN_FLIGHT = 2
"""Slot label writes the assigner has in flight at once (each for another object);
they happen once in an object's life, at its creation. Each write in flight holds
an HTTP/1.1 connection of its own with asyncio's 256 KiB TLS read buffer: with 8
in flight, on the manager's connections (kept `transport.IDLE_TIMEOUT`), a bulk
creation left the leader about 8 connections (over 2 MiB) more than a replica
that does not assign; 2 writers keep up with a client creating 3,000 objects 50
at a time."""
BURST_IDLE = 2.0
"""Seconds without an object waiting or a label write in flight that end a burst:
the label writes' own connections are closed (`Assigner.labels_opened`) and the
heap the burst left free is given back (`heap.release_heap`). A client creating
objects a page at a time, or one every second, keeps them open."""
EXPIRY_MARGIN = 0.05
"""Seconds after a Lease's expiry before the members are read again to see it."""
MEMBER_READS_PER_PERIOD = 4
"""Reads of the members per `retry_period`: a member's Lease counts as expired
`lease_duration` after the assigner saw its last renewal, which it sees up to one
read late, and a member's acknowledgement of a step is seen up to one read late."""
LABELLED = -1
"""In `_Unlabelled.waiting`: the object's label is written, and its leaving the
watch (a DELETED event) is still to come."""


class _OwnerReference(msgspec.Struct):
    apiVersion: str = ""
    kind: str = ""
    uid: str = ""
    controller: bool | None = None


class _Metadata(msgspec.Struct):
    """What the assigner reads of an object (decoding skips every other field)."""

    name: str = ""
    namespace: str | None = None
    uid: str = ""
    resourceVersion: str = ""
    ownerReferences: list[_OwnerReference] | None = None


class _Object(msgspec.Struct):
    metadata: _Metadata = msgspec.field(default_factory=_Metadata)


class _WatchEvent(msgspec.Struct):
    type: str
    object: msgspec.Raw


_decode_event = msgspec.json.Decoder(_WatchEvent).decode
_decode_object = msgspec.json.Decoder(_Object).decode

Key = str
"""An object waiting for its label: `<namespace>/<name>` (`/<name>` when
cluster-scoped; neither holds a `/`), one string where a tuple of two would
add another object to each waiting one."""


def _key(namespace: str | None, name: str) -> Key:
    return f"{namespace or ''}/{name}"


class _Queue:
    """The objects waiting for their label, in the order they were seen: three
    deques side by side, so that an object waiting adds no tuple of its own (a
    deque's blocks hold 64 references each, out of Python's small-object heap)."""

    def __init__(self) -> None:
        self._watches: collections.deque[_Unlabelled] = collections.deque()
        self._keys: collections.deque[Key] = collections.deque()
        self._slots: collections.deque[int] = collections.deque()

    def __len__(self) -> int:
        return len(self._keys)

    def append(self, watch: _Unlabelled, key: Key, slot: int) -> None:
        self._watches.append(watch)
        self._keys.append(key)
        self._slots.append(slot)

    def popleft(self) -> tuple[_Unlabelled, Key, int]:
        return self._watches.popleft(), self._keys.popleft(), self._slots.popleft()


Placer = Callable[[_Metadata], "int | None"]
LabelClient = Callable[[], RestClient]
"""Opens a REST client on connections of its own, for the label writes of one burst."""
"""An object's slot from its metadata (None: the object is no part of the ring)."""


class _Unlabelled(Informer):
    """The objects of one kind waiting for a slot label: a watch (and, on a 410
    Gone, a list) of metadata only, without a store. Each object it sees is placed
    (`place`) as it arrives; `waiting` holds the key and slot of those queued for
    their label (`enqueue`), and those labelled until they leave the watch, so
    that no event of theirs queues them again. The reflector's loop, its
    watchdog and its backoff are the informer's; its list and its events are
    handled here."""

    list_accept = METADATA_LIST_ACCEPT
    watch_accept = METADATA_ACCEPT

    def __init__(
        self,
        rest: RestClient,
        rtype: ResourceType[Any],
        place: Placer,
        enqueue: Callable[[_Unlabelled, Key, int], None],
        *,
        namespaces: tuple[str, ...] | None,
        labels: str,
        page_size: int,
    ) -> None:
        super().__init__(
            rest, rtype, namespaces=namespaces, labels=labels, page_size=page_size
        )
        self.place = place
        self.enqueue = enqueue
        self.waiting: dict[Key, int] = {}
        """Key → the slot it is queued with, or `LABELLED`."""

    def _see(self, metadata: _Metadata) -> Key:
        """Queue an object for its label, unless it is queued or labelled already."""
        key = _key(metadata.namespace, metadata.name)
        slot = self.place(metadata)
        known = self.waiting.get(key)
        if known in (LABELLED, slot):
            return key
        if slot is None:  # no longer of the ring (its owner references changed)
            self.waiting.pop(key, None)
            return key
        self.waiting[key] = slot
        self.enqueue(self, key, slot)
        return key

    def labelled(self, key: Key, slot: int) -> None:
        """The label of `key` is written with `slot`: its later events (before it
        leaves the watch) do not queue it again."""
        if self.waiting.get(key) == slot:  # not gone from the watch meanwhile
            self.waiting[key] = LABELLED

    def compact(self) -> None:
        """Size `waiting` to what it holds: a dict keeps the table a burst grew it
        to (3,000 objects: over 100 KiB) after its keys are gone."""
        self.waiting = dict(self.waiting)

    def wants(self, key: Key, slot: int) -> bool:
        """Whether `key` still waits for `slot` (not deleted, labelled, or taken out
        of the ring since it was queued)."""
        return self.waiting.get(key) == slot

    async def _list(self, scope: _Scope) -> None:
        present: set[Key] = set()

        def take(item: msgspec.Raw) -> None:
            present.add(self._see(_decode_object(item).metadata))

        resource_version = await self._list_each(scope, take)
        for key in [
            k
            for k in self.waiting
            if k not in present and scope.namespace in (None, k.partition("/")[0])
        ]:
            del self.waiting[key]  # labelled or deleted since the last watch
        self.compact()
        self._mark_listed(scope, resource_version)

    def _apply(self, scope: _Scope, line: str) -> None:
        event = _decode_event(line)
        if event.type == "ERROR":
            raise errors.from_status(msgspec.json.decode(event.object))
        metadata = _decode_object(event.object).metadata
        if event.type == "DELETED":  # deleted, or labelled: it left the watch
            self.waiting.pop(_key(metadata.namespace, metadata.name), None)
        elif event.type in ("ADDED", "MODIFIED"):
            self._see(metadata)
        if metadata.resourceVersion:
            scope.resource_version = metadata.resourceVersion


class Assigner:
    """Labels each sharded object with its slot and assigns slots to live members
    (leader only)."""

    def __init__(
        self,
        rest: RestClient,
        members: Members,
        reader: Reader,
        writer: Writer,
        options: ShardingOptions,
        *,
        namespace: str,
        primaries: Sequence[ResourceType[Any]],
        children: Sequence[ResourceType[Any]] = (),
        namespaces: Sequence[str] | None = None,
        metrics: Metrics | None = None,
        page_size: int = 500,
        clock: Callable[[], float] | None = None,
        label_client: LabelClient | None = None,
    ) -> None:
        """`label_client`: a REST client for each burst's label writes, on
        connections of its own, closed once the burst is over (`BURST_IDLE`);
        None: they go through `rest`, whose connections stay open."""
        self.rest = rest
        self.members = members
        self.reader = reader
        self.writer = writer
        self.options = options
        self.namespace = namespace
        self.primaries = tuple(primaries)
        self.children = tuple(children)
        self.owner_kinds = frozenset((r.api_version, r.kind) for r in self.primaries)
        self.namespaces = tuple(namespaces) if namespaces else None
        self.metrics = metrics if metrics is not None else rest.metrics
        self.page_size = page_size
        self._clock = clock or loop_time
        self.live: Mapping[str, MemberState] = {}
        self.assignment: Assignment | None = None
        """The last assignment read or written (None: read it first)."""
        self._lease: Any = None
        self._released: dict[int, float] = {}
        """Slot → when the assigner took it from its live holder."""
        self._queue = _Queue()
        """The objects waiting for their label, in the order they were seen."""
        self._queued = asyncio.Event()
        self._label_client = label_client
        self._labels: RestClient | None = None
        """The label writes' client of the burst under way (None: none open)."""
        self._watches: list[_Unlabelled] = []
        self._burst = asyncio.Event()
        """Set when an object is queued; cleared when its burst is over."""
        self._writing = 0
        self._last_written = 0.0
        self.labels_opened = 0
        """Label writes' clients opened, one per burst (with `label_client`)."""
        self.bursts = 0
        """Bursts of label writes over."""
        self.peak_waiting = 0
        """The most objects waiting at once in the burst under way (the last one,
        once it is over)."""
        self._burst_labelled = 0
        self.labelled = 0
        """Slot labels written."""
        self.steps = 0
        """Assignment writes that succeeded."""

    async def run(self) -> None:
        """Label and assign until cancelled."""
        fix_mmap_threshold()  # this replica's bursts' large blocks: heap.py
        unlabelled = f"!{self.options.slot_label}"
        self._watches = watches = [
            _Unlabelled(
                self.rest,
                rtype,
                self._placer(primary=rtype in self.primaries),
                self._enqueue,
                namespaces=self.namespaces,
                labels=unlabelled,
                page_size=self.page_size,
            )
            for rtype in (*self.primaries, *self.children)
        ]
        tasks = [asyncio.create_task(w.run()) for w in watches]
        tasks.extend(
            asyncio.create_task(self._write_labels()) for _ in range(WRITES_IN_FLIGHT)
        )
        tasks.append(asyncio.create_task(self._end_bursts()))
        tasks.append(asyncio.create_task(self.keep_assigning()))
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await self._close_labels()

    def _placer(self, *, primary: bool) -> Placer:
        options, owner_kinds = self.options, self.owner_kinds

        def place(metadata: _Metadata) -> int | None:
            owner = next(
                (r for r in metadata.ownerReferences or () if r.controller), None
            )
            sharded = (
                owner is not None and (owner.apiVersion, owner.kind) in owner_kinds
            )
            if not primary and not sharded:
                return None  # not a child of a sharded object: no slot
            return slot_from(
                options,
                namespace=metadata.namespace or "",
                uid=metadata.uid,
                owner_uid=owner.uid if owner is not None and sharded else None,
            )

        return place

    def _enqueue(self, watch: _Unlabelled, key: Key, slot: int) -> None:
        self._queue.append(watch, key, slot)
        self._queued.set()
        if not self._burst.is_set():
            self._burst.set()
            self.peak_waiting, self._burst_labelled = 0, self.labelled
        self.peak_waiting = max(self.peak_waiting, len(self._queue))

    def _quiet_for(self) -> float:
        """Seconds since the last label write, with no object waiting (0: busy)."""
        if self._queue or self._writing:
            return 0.0
        return loop_time() - self._last_written

    async def _end_bursts(self) -> None:
        """After each burst (`BURST_IDLE` seconds quiet): close the label writes'
        connections, size the watches' dicts down and give the freed heap back.
        Their TLS buffers, and the heap of thousands of events decoded and
        labels written among this replica's own cache entries, would otherwise
        stay (the leader's cache memory against a replica that does not assign,
        docs/runtime.md)."""
        while True:
            await self._burst.wait()
            quiet = self._quiet_for()
            while quiet < BURST_IDLE:
                await asyncio.sleep(BURST_IDLE - quiet)
                quiet = self._quiet_for()
            self._burst.clear()
            await self._close_labels()
            for watch in self._watches:
                watch.compact()
            release_heap()
            self.bursts += 1
            log.info("ring %s: a burst of %d labels over, at most %d objects waited",
                     self.options.ring, self.labelled - self._burst_labelled,
                     self.peak_waiting)  # fmt: skip

    def _label_rest(self) -> RestClient:
        """The client the next label write goes through."""
        if self._label_client is None:
            return self.rest
        if self._labels is None:
            self._labels = self._label_client()
            self.labels_opened += 1
        return self._labels

    async def _close_labels(self) -> None:
        labels, self._labels = self._labels, None  # a write from now on opens another
        if labels is not None:
            await labels.aclose()

    async def _write_labels(self) -> None:
        """One of the `WRITES_IN_FLIGHT` writers: they take the waiting objects in
        turn, so an object waiting costs no task of its own (a burst of thousands
        would make as many tasks, coroutines and entries in asyncio's set of tasks,
        which keeps its size once grown)."""
        queue = self._queue
        while True:
            if not queue:
                self._queued.clear()
                await self._queued.wait()
                continue
            watch, key, slot = queue.popleft()
            if not watch.wants(key, slot):
                continue
            self._writing += 1
            try:
                written = await self._label(watch.rtype, key, slot)
            except Exception as exc:
                log.warning("labelling ring %s: %s", self.options.ring, exc)
                queue.append(watch, key, slot)
                await asyncio.sleep(self.options.retry_period)
                continue
            finally:
                self._writing -= 1
                self._last_written = loop_time()
            if written:
                watch.labelled(key, slot)

    async def _label(self, rtype: ResourceType[Any], key: Key, slot: int) -> bool:
        """Write the slot label of the object `key` (False: it is gone)."""
        ring = self.options.ring
        labels = {
            self.options.slot_label: str(slot),
            SHARD_PREFIX + ring: None,
            DRAIN_PREFIX + ring: None,
        }
        namespace, _, name = key.partition("/")
        try:
            await self._label_rest().request(
                "patch",
                rtype,
                name=name,
                namespace=namespace or None,
                body=json.dumps({"metadata": {"labels": labels}}).encode(),
                content_type=MERGE_PATCH,
                accept=METADATA_ACCEPT,  # its answer: the metadata, not the object
            )
        except errors.NotFound:
            return False
        self.labelled += 1
        self.metrics.shard_labelled.labels(ring).inc()
        return True

    async def keep_assigning(self) -> None:
        while True:
            try:
                await self.assign()
            except Exception as exc:
                self.assignment = None
                log.warning("assigning ring %s: %s", self.options.ring, exc)
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

    def _set_live(self, live: Mapping[str, MemberState]) -> None:
        if set(live) != set(self.live):
            log.info("ring %s members: %s", self.options.ring,
                     ", ".join(sorted(live)) or "none")  # fmt: skip
        self.live = live
        self.metrics.shard_members.labels(self.options.ring).set(len(live))

    async def assign(self) -> None:
        """Read the members and write the next step of the assignment, if any."""
        if self.assignment is None:
            self.assignment, self._lease = await read_assignment(
                self.reader, self.options, self.namespace
            )
        self._set_live(await self.members.read())
        current = self.assignment
        step = next_step(current, self.live, self.options.slots)
        if step == dict(current.slots):
            return
        following = Assignment(current.generation + 1, step)
        await self._write(following)
        moved = sum(
            1 for k in range(self.options.slots) if current.slots.get(k) != step.get(k)
        )
        log.info("ring %s: assignment %d written, %d slots changed",
                 self.options.ring, following.generation, moved)  # fmt: skip
        self._count(current, following)
        self.assignment = following
        self.steps += 1

    async def _write(self, following: Assignment) -> None:
        annotations = {
            ANNOTATION_GENERATION: str(following.generation),
            ANNOTATION_ASSIGNMENT: following.encode(),
        }
        if self._lease is None:
            body: dict[str, Any] = {
                "apiVersion": "coordination.k8s.io/v1",
                "kind": "Lease",
                "metadata": {
                    "name": slots_lease_name(self.options.ring),
                    "namespace": self.namespace,
                    "annotations": annotations,
                },
                "spec": {},
            }
            self._lease = await self.writer.create(_lease().decode_dict(body))
            return
        body = _lease().encode_obj(self._lease)
        metadata = body.setdefault("metadata", {})
        metadata["annotations"] = {**(metadata.get("annotations") or {}), **annotations}
        try:
            self._lease = await self.writer.update(_lease().decode_dict(body))
        except errors.Conflict:
            self.assignment = None
            raise

    def _count(self, current: Assignment, following: Assignment) -> None:
        ring = self.options.ring
        moves = self.metrics.shard_reassignments
        now = self._clock()
        live = {m.holder for m in self.live.values()}
        for k in range(self.options.slots):
            before, after = current.slots.get(k), following.slots.get(k)
            if before == after:
                continue
            if after is None:
                self._released.setdefault(k, now)
                continue
            released = self._released.pop(k, None)
            if released is not None:
                moves.labels(ring, "released").inc()
            elif before is not None and before not in live:
                moves.labels(ring, "orphaned").inc()
            else:
                moves.labels(ring, "new").inc()
        gauge = self.metrics.shard_assigned
        counts: dict[Holder, int] = {}
        for holder in following.slots.values():
            counts[holder] = counts.get(holder, 0) + 1
        names = {holder.name for holder in counts}
        for name in {h.name for h in current.holders()} - names:
            with contextlib.suppress(KeyError):  # set by an earlier assigner
                gauge.remove(ring, name)
        for holder, count in counts.items():
            gauge.labels(ring, holder.name).set(count)
