"""The assigner: run on the elected leader, it labels new objects with their slot
and keeps the assignment of slots to live members. It never reconciles.

- **Slot labels.** A watch of the sharded kinds' objects that have no slot
  label yet (`!slot.sharding.opgen.dev/<ring>`, so it holds only objects
  waiting for one) sees each object once in its life; the assigner writes its
  slot (`protocol.slot_of`), removing the previous protocol's shard and drain
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
client), so no object's spec or status reaches the leader, and its store keeps
only the objects still waiting for a label.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from opgen.runtime import errors
from opgen.runtime.informer import Event, Informer
from opgen.runtime.leaderelection import _lease
from opgen.runtime.metrics import Metrics
from opgen.runtime.resources import ResourceType
from opgen.runtime.rest import METADATA_ACCEPT, METADATA_LIST_ACCEPT, RestClient
from opgen.runtime.seams import Reader, Writer
from opgen.runtime.sharding.assignment import Assignment, Holder, MemberState, next_step
from opgen.runtime.sharding.follower import read_assignment
from opgen.runtime.sharding.membership import Members, loop_time
from opgen.runtime.sharding.protocol import (
    ANNOTATION_ASSIGNMENT,
    ANNOTATION_GENERATION,
    DRAIN_PREFIX,
    SHARD_PREFIX,
    ShardingOptions,
    slot_of,
    slots_lease_name,
)
from opgen.runtime.store import Entry, entry_from_dict

__all__ = ["Assigner"]

log = logging.getLogger("opgen.runtime.sharding")

R = TypeVar("R")
S = TypeVar("S")
MERGE_PATCH = "application/merge-patch+json"
WRITES_IN_FLIGHT = 2
"""Slot label writes the assigner has in flight at once (each for another object);
they happen once in an object's life, at its creation. Each write in flight holds
an HTTP/1.1 connection of its own, which stays open (`transport.IDLE_TIMEOUT`) with
asyncio's 256 KiB TLS read buffer: with 8 in flight a bulk creation left the leader
about 8 connections (over 2 MiB) more than a replica that does not assign; 2
writers keep up with a client creating 3,000 objects 50 at a time."""
EXPIRY_MARGIN = 0.05
"""Seconds after a Lease's expiry before the members are read again to see it."""
MEMBER_READS_PER_PERIOD = 4
"""Reads of the members per `retry_period`: a member's Lease counts as expired
`lease_duration` after the assigner saw its last renewal, which it sees up to one
read late, and a member's acknowledgement of a step is seen up to one read late."""
KEPT_METADATA = ("name", "namespace", "uid", "resourceVersion", "ownerReferences")
"""All the assigner keeps of an object waiting for its slot label."""


def metadata_only(item: dict[str, Any]) -> dict[str, Any]:
    """`item` cut down to the metadata fields the assigner reads (`KEPT_METADATA`)."""
    meta = item.get("metadata") or {}
    return {"metadata": {k: meta[k] for k in KEPT_METADATA if k in meta}}


class _Unlabelled(Informer):
    """The objects waiting for a slot label, metadata only: the server sends nothing
    else (`PartialObjectMetadata`), its store keeps only what places an object
    (`metadata_only`, which also cuts down the whole objects of a server that cannot
    send metadata alone); nothing reads them as the kind's model, and a stored entry
    is decoded only when read (`decoding`)."""

    list_accept = METADATA_LIST_ACCEPT
    watch_accept = METADATA_ACCEPT

    def entry(self, data: dict[str, Any]) -> Entry:
        return entry_from_dict(metadata_only(data))


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
    ) -> None:
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
        self._wake = asyncio.Event()
        self._waiting: list[Informer] = []
        self._done: set[str] = set()
        """UIDs labelled whose leaving the unlabelled watch is still to come."""
        self.labelled = 0
        """Slot labels written."""
        self.steps = 0
        """Assignment writes that succeeded."""

    async def run(self) -> None:
        """Label and assign until cancelled."""
        label = self.options.slot_label
        self._waiting = [
            _Unlabelled(
                self.rest,
                rtype,
                namespaces=self.namespaces,
                labels=f"!{label}",
                page_size=self.page_size,
            )
            for rtype in (*self.primaries, *self.children)
        ]
        for informer in self._waiting:
            informer.add_handler(self._on_waiting)
        tasks = [asyncio.create_task(i.run()) for i in self._waiting]
        tasks.append(asyncio.create_task(self.keep_assigning()))
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                try:
                    await self.label_waiting()
                except Exception as exc:
                    log.warning("labelling ring %s: %s", self.options.ring, exc)
                    await asyncio.sleep(self.options.retry_period)
                    self._wake.set()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    def _on_waiting(self, event: Event) -> None:
        if event.type == "DELETED":
            self._done.discard(event.new.uid)
        else:
            self._wake.set()

    def _slot(self, entry: Entry, rtype: ResourceType[Any]) -> int | None:
        metadata = {
            "uid": entry.uid,
            "namespace": entry.namespace,
            "ownerReferences": entry.owner_references,
        }
        if rtype not in self.primaries:
            owner = entry.controller_owner()
            if owner is None or (
                (owner.get("apiVersion"), owner.get("kind")) not in self.owner_kinds
            ):
                return None  # not a child of a sharded object: no slot
        return slot_of(metadata, self.options, self.owner_kinds)

    async def label_waiting(self) -> None:
        """Write the slot label of each object the unlabelled watches hold."""
        await _in_turn(self._label, self._todo())

    def _todo(self) -> Iterator[tuple[ResourceType[Any], Entry, int]]:
        """What to label, made as the writers take it: the stores as they were
        when labelling began (their entries, not copies), cut to those not yet
        labelled that belong to the ring."""
        for informer in self._waiting:
            rtype = informer.rtype
            for entry in list(informer.store):
                if entry.uid in self._done:
                    continue
                slot = self._slot(entry, rtype)
                if slot is not None:
                    yield rtype, entry, slot

    async def _label(self, rtype: ResourceType[Any], entry: Entry, slot: int) -> None:
        ring = self.options.ring
        labels = {
            self.options.slot_label: str(slot),
            SHARD_PREFIX + ring: None,
            DRAIN_PREFIX + ring: None,
        }
        try:
            await self.rest.request(
                "patch",
                rtype,
                name=entry.name,
                namespace=entry.namespace or None,
                body=json.dumps({"metadata": {"labels": labels}}).encode(),
                content_type=MERGE_PATCH,
                accept=METADATA_ACCEPT,  # its answer: the metadata, not the object
            )
        except errors.NotFound:
            return
        self._done.add(entry.uid)
        self.labelled += 1
        self.metrics.shard_labelled.labels(ring).inc()

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


async def _in_turn(
    write: Callable[[R, S, int], Awaitable[None]], items: Iterator[tuple[R, S, int]]
) -> None:
    """`write(*item)` for each item (each another object), `WRITES_IN_FLIGHT` in
    flight at a time, by as many writers taking the items in turn: an object
    waiting costs no task of its own (a burst of thousands would make as many
    tasks, coroutines and entries in asyncio's set of tasks, which keeps its
    size once grown)."""

    async def writer() -> None:
        for item in items:
            await write(*item)

    writers = [asyncio.create_task(writer()) for _ in range(WRITES_IN_FLIGHT)]
    try:
        await asyncio.gather(*writers)
    finally:
        for task in writers:
            task.cancel()
        await asyncio.gather(*writers, return_exceptions=True)
