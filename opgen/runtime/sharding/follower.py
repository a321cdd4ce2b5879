"""A member following the ring's assignment of slots.

Four times a `retry_period` the follower reads the slots Lease. When the
assignment gives this replica's incarnation other slots than it claims, or has
a newer generation, it moves in this order — the order is the safety
argument's member side (docs/runtime.md#sharding):

1. the slots taken away leave `HeldSlots.active` at once: no new reconcile of
   their objects starts;
2. it writes its claims in its Lease: the assigned slots, with those taken
   away whose reconciles are still in flight (draining), and the generation
   they follow. A draining slot stays claimed, so the assigner gives it to no
   one; it is dropped from the claims at the first read after its last
   reconcile ended. A slow reconcile holds back its own slot only: the rest of
   the step goes on;
3. its caches list again, selecting the objects of the claimed slots (objects
   that left are dropped, new ones enqueued);
4. the new slots join `active` once every sharded kind's cache holds them, so
   a reconcile never runs on a cache that lacks its object's children.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence

from opgen.runtime import errors
from opgen.runtime.cache import Cache
from opgen.runtime.leaderelection import _lease
from opgen.runtime.metrics import Metrics
from opgen.runtime.seams import Reader
from opgen.runtime.sharding.assignment import Assignment
from opgen.runtime.sharding.holder import HeldSlots
from opgen.runtime.sharding.membership import MemberLease, loop_time
from opgen.runtime.sharding.protocol import (
    ANNOTATION_ASSIGNMENT,
    ANNOTATION_GENERATION,
    ShardingOptions,
    format_slots,
    slots_lease_name,
)

__all__ = ["READS_PER_PERIOD", "SlotFollower", "read_assignment", "selector"]

log = logging.getLogger("opgen.runtime.sharding")

READS_PER_PERIOD = 4
"""Reads of the assignment (a GET of one Lease) per `retry_period`."""


def selector(options: ShardingOptions, slots: frozenset[int]) -> str:
    """The label selector of the objects in `slots`; with none, one that matches
    nothing (no slot label's value is `none`)."""
    values = ",".join(str(k) for k in sorted(slots)) or "none"
    return f"{options.slot_label} in ({values})"


async def read_assignment(
    reader: Reader, options: ShardingOptions, namespace: str
) -> tuple[Assignment, object | None]:
    """The current assignment and the Lease it was read from (None: no Lease yet)."""
    try:
        lease = await reader.get(
            _lease().cls, slots_lease_name(options.ring), namespace
        )
    except errors.NotFound:
        return Assignment(), None
    annotations = (
        _lease().encode_obj(lease).get("metadata", {}).get("annotations") or {}
    )
    generation = int(annotations.get(ANNOTATION_GENERATION) or 0)
    return Assignment.decode(generation, annotations.get(ANNOTATION_ASSIGNMENT)), lease


class SlotFollower:
    """Moves this replica's claims, caches and gates to the slots assigned to it."""

    def __init__(
        self,
        reader: Reader,
        options: ShardingOptions,
        namespace: str,
        member: MemberLease,
        held: HeldSlots,
        cache: Cache,
        kinds: Sequence[type],
        metrics: Metrics,
        *,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.reader = reader
        self.options = options
        self.namespace = namespace
        self.member = member
        self.held = held
        self.cache = cache
        self.kinds = tuple(kinds)
        self.metrics = metrics
        self._clock = clock or loop_time
        self.selected: frozenset[int] = frozenset()
        """The slots the caches select: those claimed, with the ones still draining
        (their reconciles in flight read their objects' children from the cache)."""
        self._taken: dict[int, float] = {}
        """Slot → when this replica saw it taken away (its drain's start)."""

    async def run(self) -> None:
        period = self.options.retry_period / READS_PER_PERIOD
        while True:
            try:
                await self.step()
            except Exception as exc:
                log.warning("following ring %s: %s", self.options.ring, exc)
            await asyncio.sleep(period)

    async def step(self) -> None:
        """Read the assignment once and move towards it."""
        assignment, _ = await read_assignment(self.reader, self.options, self.namespace)
        member = self.member
        if assignment.generation < member.generation:
            return  # an older read than the one followed already
        mine = assignment.of(member.holder)
        self.held.hold(self.held.active & mine)
        now = self._clock()
        draining = frozenset(
            k for k in member.claims - mine if self.held.in_flight((k,))
        )
        for k in member.claims - mine:
            self._taken.setdefault(k, now)
        for k in mine & self._taken.keys():
            del self._taken[k]  # given back before it was let go
        claims = mine | draining
        if claims != member.claims or assignment.generation != member.generation:
            released = member.claims - claims
            await member.publish(claims, assignment.generation)
            for k in released:
                self.metrics.shard_drain_time.labels(self.options.ring).observe(
                    self._clock() - self._taken.pop(k, now)
                )
            if released:
                log.info("ring %s: let go of slots %s", self.options.ring,
                         format_slots(released))  # fmt: skip
        if claims != self.selected:
            for kind in self.kinds:
                self.cache.restrict(kind, selector(self.options, claims))
            self.selected = claims
            await asyncio.gather(
                *(self.cache.informer_for(k).wait_for_selection() for k in self.kinds)
            )
        if member.is_member and mine <= member.claims:
            gained = mine - self.held.active
            self.held.hold(mine)
            if gained:
                log.info("ring %s: holding slots %s", self.options.ring,
                         format_slots(gained))  # fmt: skip
        self.metrics.shard_slots.labels(self.options.ring, member.shard).set(
            len(self.held.active)
        )
