"""A replica's side of the ring: the slots it admits, as each controller's `Gate`.

`HeldSlots` is the replica's one record of which slots its controllers may
reconcile (`active`) and how many reconciles of each slot are in flight. The
follower (`follower`) shrinks `active` before it lets a slot go, waits with
`idle` for that slot's reconciles in flight to end, and only then drops the
slot from the claims in its Lease; it grows `active` only after its Lease
claims the new slots and its caches hold their objects.

`ShardHolder` is the gate before each reconcile. The replica's informers watch
only objects of its slots, but after a change of slots they re-list, so the
gate does not rely on the cache alone: a request is admitted only when its
object is in the primary kind's store, its slot label names a slot in
`active`, and the replica's member Lease is held (`MemberLease.is_member`
false: no renewal for `renew_deadline`; the assigner may hand its slots on as
soon as the Lease expires).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Iterable

from opgen.runtime.informer import Informer
from opgen.runtime.reconcile import Request
from opgen.runtime.sharding.protocol import ShardingOptions

__all__ = ["HeldSlots", "ShardHolder"]


class HeldSlots:
    """The slots a replica admits, and its reconciles in flight per slot."""

    def __init__(self) -> None:
        self.active: frozenset[int] = frozenset()
        self._in_flight: Counter[int] = Counter()
        self._ended = asyncio.Event()
        self._on_gain: list[Callable[[frozenset[int]], None]] = []

    def on_gain(self, listener: Callable[[frozenset[int]], None]) -> None:
        """Call `listener(slots)` whenever `slots` join `active`."""
        self._on_gain.append(listener)

    def hold(self, slots: frozenset[int]) -> None:
        """Admit exactly `slots` from now on; the gates enqueue the objects of the
        slots gained (their cache events came while they were not admitted)."""
        gained = slots - self.active
        self.active = slots
        if gained:
            for listener in self._on_gain:
                listener(gained)

    def enter(self, slot: int) -> None:
        self._in_flight[slot] += 1

    def leave(self, slot: int) -> None:
        self._in_flight[slot] -= 1
        if self._in_flight[slot] <= 0:
            del self._in_flight[slot]
        self._ended.set()

    def in_flight(self, slots: Iterable[int]) -> int:
        return sum(self._in_flight.get(k, 0) for k in slots)

    async def idle(self, slots: frozenset[int]) -> None:
        """Until no reconcile of an object in `slots` is in flight."""
        while True:
            self._ended.clear()
            if not self.in_flight(slots):
                return
            await self._ended.wait()


def parse_slot(value: str | None) -> int | None:
    if value is None or not value.isdigit():
        return None
    return int(value)


class ShardHolder:
    """Admits the reconciles of objects in the slots this replica holds."""

    def __init__(
        self,
        held: HeldSlots,
        options: ShardingOptions,
        *,
        is_member: Callable[[], bool] = lambda: True,
    ) -> None:
        self.held = held
        self.options = options
        self.is_member = is_member
        self._informer: Informer | None = None
        self._admitted: dict[Request, int] = {}

    def attach(self, informer: Informer, enqueue: Callable[[Request], None]) -> None:
        self._informer = informer
        label = self.options.slot_label

        def on_gain(slots: frozenset[int]) -> None:
            for entry in informer.store:
                if parse_slot(entry.labels.get(label)) in slots:
                    enqueue(Request(entry.namespace or None, entry.name))

        self.held.on_gain(on_gain)

    async def admit(self, request: Request) -> bool:
        informer = self._informer
        assert informer is not None, "attach() first"
        if not self.is_member():
            return False
        entry = informer.store.get((request.namespace or "", request.name))
        if entry is None:
            return False
        slot = parse_slot(entry.labels.get(self.options.slot_label))
        if slot is None or slot not in self.held.active:
            return False
        self.held.enter(slot)
        self._admitted[request] = slot
        return True

    def done(self, request: Request) -> None:
        slot = self._admitted.pop(request, None)
        if slot is not None:
            self.held.leave(slot)
