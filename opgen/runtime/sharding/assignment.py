"""The assignment of slots to members, and the rule that changes it.

An `Assignment` maps each slot to at most one member incarnation; it has a
generation, raised by one at every write. `balanced` is the assignment the
ring should reach: every live member holds floor or ceil of S/n slots, each
keeps as many of the slots it holds as that allows (the larger holders get
the ceilings), and the slots to hand out go in ascending order to the members
below their quota, in name order — deterministic, and moving the fewest slots.

`next_step` is the one step towards it the assigner may write now (safety:
never two members holding one slot):

- a slot that stays where it is, stays;
- a slot held by a live member that should move is first taken from it
  (assigned to nobody): its holder stops reconciling it, lets the reconciles in
  flight end, then drops it from the claims in its Lease;
- a slot assigned to nobody or to a member that is gone (its Lease expired or
  deleted, or held by another incarnation since) is given to its new member,
  but only once no other live member claims it in its Lease and every other
  live member of the assignment has acknowledged the current generation (its
  claims follow it, so it will never claim the slot from an older one). A
  member that is gone stopped reconciling before its Lease could expire: its
  slots move in this one step.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from opgen.runtime.sharding.protocol import format_slots, parse_slots

__all__ = ["Assignment", "Holder", "MemberState", "balanced", "next_step"]


@dataclass(frozen=True, order=True)
class Holder:
    """A member as the assignment names it: its shard name and its process's token."""

    name: str
    incarnation: str


@dataclass(frozen=True)
class MemberState:
    """A live member as its Lease shows it."""

    holder: Holder
    claims: frozenset[int] = frozenset()
    generation: int = 0
    """The assignment generation its claims follow (0: none seen yet)."""


@dataclass(frozen=True)
class Assignment:
    generation: int = 0
    slots: Mapping[int, Holder] = field(default_factory=dict)

    def of(self, holder: Holder) -> frozenset[int]:
        return frozenset(k for k, h in self.slots.items() if h == holder)

    def holders(self) -> frozenset[Holder]:
        return frozenset(self.slots.values())

    def encode(self) -> str:
        by: dict[str, dict[str, str]] = {}
        for holder in sorted(self.holders()):
            by[holder.name] = {
                "incarnation": holder.incarnation,
                "slots": format_slots(self.of(holder)),
            }
        return json.dumps(by, sort_keys=True, separators=(",", ":"))

    @classmethod
    def decode(cls, generation: int, text: str | None) -> Assignment:
        slots: dict[int, Holder] = {}
        for name, entry in (json.loads(text) if text else {}).items():
            holder = Holder(name, str(entry.get("incarnation") or ""))
            for k in parse_slots(entry.get("slots")):
                slots[k] = holder
        return cls(generation, slots)


def balanced(
    current: Assignment, live: frozenset[Holder], slots: int
) -> dict[int, Holder]:
    """The balanced assignment closest to `current` among the `live` members."""
    if not live:
        return {}
    kept = {h: sorted(current.of(h)) for h in live}
    quota_base, extra = divmod(slots, len(live))
    order = sorted(live, key=lambda h: (-len(kept[h]), h))
    quota = {h: quota_base + (1 if i < extra else 0) for i, h in enumerate(order)}
    target: dict[int, Holder] = {}
    for holder in live:
        for k in kept[holder][: quota[holder]]:
            target[k] = holder
    free = iter(k for k in range(slots) if k not in target)
    for holder in sorted(live):
        for _ in range(quota[holder] - sum(1 for h in target.values() if h == holder)):
            target[next(free)] = holder
    return target


def next_step(
    current: Assignment, members: Mapping[str, MemberState], slots: int
) -> dict[int, Holder]:
    """The slots → holder the assigner may write next (see the module's rule)."""
    live = frozenset(m.holder for m in members.values())
    target = balanced(current, live, slots)
    listed = current.holders()
    acknowledged = all(
        m.generation >= current.generation
        for m in members.values()
        if m.holder in listed
    )
    step: dict[int, Holder] = {}
    for k in range(slots):
        now, want = current.slots.get(k), target.get(k)
        if now is not None and now == want:
            step[k] = now
        elif now is not None and now in live:
            continue  # taken from its live holder first
        elif (
            want is not None
            and acknowledged
            and not any(k in m.claims for m in members.values() if m.holder != want)
        ):
            step[k] = want
    return step
