"""The sharding protocol's names and `ShardingOptions`.

A ring `R` splits the objects of its kinds into `ShardingOptions.slots`
slots (S). For a ring `R`:

- every object carries `slot.sharding.opgen.dev/R: "<k>"`, k in [0, S),
  written once in its life (by the assigner, or by the runtime when a
  reconciler makes a child of an object that has one): k is a stable hash of
  the object's UID (its controller owner's UID for an owned child) or of its
  namespace, modulo S (`slot_of`);
- each replica's Lease, named `<R>-<shard>`, carries the label
  `sharding.opgen.dev/ring: R`, its holder identity is the replica's shard
  name, and its annotations say which process holds it
  (`sharding.opgen.dev/incarnation`), which slots it claims
  (`sharding.opgen.dev/slots`) and the generation of the assignment those
  claims follow (`sharding.opgen.dev/generation`);
- the Lease `<R>.slots` (a dot: no member Lease name has one) carries the
  assignment of slots to members, written by the elected assigner:
  `sharding.opgen.dev/assignment` (JSON, member → its incarnation and slots)
  and `sharding.opgen.dev/generation`.

The names live under opgen's own domain rather than reusing
timebertt/kubernetes-controller-sharding's `*.alpha.sharding.timebertt.dev`
labels: that protocol writes a member's name on every object (a handover costs
a write per object), it belongs to its sharder (its ControllerRing resource,
its webhook, an alpha API its authors may change), and a ring that wrote the
same labels would fight that sharder over objects if both were installed.
"""

from __future__ import annotations

import os
import re
import secrets
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from opgen.runtime.sharding.hashing import key_hash

__all__ = [
    "ANNOTATION_ASSIGNMENT",
    "ANNOTATION_GENERATION",
    "ANNOTATION_INCARNATION",
    "ANNOTATION_SLOTS",
    "DRAIN_PREFIX",
    "RING_LABEL",
    "SHARD_PREFIX",
    "SLOT_PREFIX",
    "ShardingOptions",
    "default_shard_name",
    "format_slots",
    "parse_slots",
    "slot_from",
    "slot_label",
    "slot_of",
    "slots_lease_name",
]

RING_LABEL = "sharding.opgen.dev/ring"
"""On a member's Lease: the ring it belongs to."""
SLOT_PREFIX = "slot.sharding.opgen.dev/"
"""`SLOT_PREFIX + ring`: on an object, its slot."""
ANNOTATION_INCARNATION = "sharding.opgen.dev/incarnation"
"""On a member's Lease: a token of the process that holds it, new at each start."""
ANNOTATION_SLOTS = "sharding.opgen.dev/slots"
"""On a member's Lease: the slots it claims (`format_slots`)."""
ANNOTATION_GENERATION = "sharding.opgen.dev/generation"
"""On a member's Lease: the assignment generation its claims follow; on the
slots Lease: the assignment's generation."""
ANNOTATION_ASSIGNMENT = "sharding.opgen.dev/assignment"
"""On the slots Lease: `{member: {"incarnation": ..., "slots": ...}}` as JSON."""
SHARD_PREFIX = "shard.sharding.opgen.dev/"
"""The previous protocol's per-object shard label; the assigner removes it when it
writes an object's slot label."""
DRAIN_PREFIX = "drain.sharding.opgen.dev/"
"""The previous protocol's drain label; removed with `SHARD_PREFIX`."""

_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")


def slot_label(ring: str) -> str:
    return SLOT_PREFIX + ring


def slots_lease_name(ring: str) -> str:
    return f"{ring}.slots"


def default_shard_name() -> str:
    """`<hostname>-<8 hex>`, lower-cased and cut to fit a label value."""
    host = os.environ.get("HOSTNAME") or socket.gethostname()
    host = re.sub(r"[^a-z0-9-]+", "-", host.lower()).strip("-")[:40] or "replica"
    return f"{host}-{secrets.token_hex(4)}"


def format_slots(slots: Iterable[int]) -> str:
    """`0-3,7,9-10`: sorted slots as ranges."""
    runs: list[list[int]] = []
    for slot in sorted(set(slots)):
        if runs and runs[-1][1] == slot - 1:
            runs[-1][1] = slot
        else:
            runs.append([slot, slot])
    return ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in runs)


def parse_slots(text: str | None) -> frozenset[int]:
    """The slots `format_slots` wrote; nothing for None or ''."""
    found: set[int] = set()
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        first, _, last = part.partition("-")
        found.update(range(int(first), int(last or first) + 1))
    return frozenset(found)


@dataclass(frozen=True)
class ShardingOptions:
    """Reconciles sharded across the replicas of a ring (see docs/runtime.md#sharding)."""

    ring: str
    """The ring's name: a label name (lower-case DNS label, at most 63 characters)."""
    shard: str | None = None
    """This replica's shard name (it names its Lease); None: `<hostname>-<8 hex>`."""
    namespace: str | None = None
    """Where the member Leases, the slots Lease and the assigner's election Lease
    live; None: the pod's namespace in-cluster, else the kubeconfig's."""
    hash_key: Literal["uid", "namespace"] = "uid"
    """What places an object in a slot: its UID (default: even spread whatever the
    namespaces) or its namespace (a namespace's objects share one replica)."""
    slots: int = 128
    """Slots the ring's objects are split into, each held by one member at a time;
    a member holds ceil(slots/members) at most. Fixed for the ring's life (it
    places every object). Default 128: within 10% of an even split by slot
    count up to 12 members, and a member's selector stays short."""
    lease_duration: float = 15.0
    """Seconds without a renewal before a member is taken for dead. Default 15."""
    renew_deadline: float = 10.0
    """A member that cannot renew for this long stops its manager. Default 10."""
    retry_period: float = 2.0
    """Seconds between renewals; the assigner reads the members, and each member
    the assignment, four times a period. Default 2."""

    def __post_init__(self) -> None:
        if not _NAME.match(self.ring):
            raise ValueError(
                f"sharding ring {self.ring!r} is not a lower-case DNS label "
                "(a-z, 0-9 and '-', at most 63 characters): it ends label names"
            )
        if self.shard is not None and not _NAME.match(self.shard):
            raise ValueError(
                f"shard name {self.shard!r} is not a lower-case DNS label "
                "(a-z, 0-9 and '-', at most 63 characters): it names its Lease"
            )
        if not self.lease_duration > self.renew_deadline > self.retry_period > 0:
            raise ValueError(
                "sharding needs lease_duration > renew_deadline > retry_period > 0"
            )
        if not 1 <= self.slots <= 4096:
            raise ValueError("sharding needs 1 <= slots <= 4096")
        if self.hash_key not in ("uid", "namespace"):
            raise ValueError(
                f"sharding hash_key {self.hash_key!r}: use 'uid' or 'namespace'"
            )

    @property
    def slot_label(self) -> str:
        return slot_label(self.ring)


def slot_of(
    metadata: Mapping[str, Any],
    options: ShardingOptions,
    owner_kinds: frozenset[tuple[str, str]] = frozenset(),
) -> int:
    """The slot of an object from its metadata (wire form): the hash of its
    namespace, or of its UID — its controller owner's when that owner is of a
    sharded kind (`owner_kinds`: apiVersion and kind), so a child shares its
    owner's slot without the owner being read."""
    owner_uid = None
    for ref in metadata.get("ownerReferences") or ():
        if ref.get("controller") and (ref.get("apiVersion"), ref.get("kind")) in (
            owner_kinds
        ):
            owner_uid = ref.get("uid")
            break
    return slot_from(
        options,
        namespace=metadata.get("namespace") or "",
        uid=metadata.get("uid") or "",
        owner_uid=owner_uid,
    )


def slot_from(
    options: ShardingOptions, *, namespace: str, uid: str, owner_uid: str | None
) -> int:
    """`slot_of` from the fields it reads: `owner_uid` is the UID of the object's
    controller owner when that owner is of a sharded kind (else None)."""
    key = namespace if options.hash_key == "namespace" else owner_uid or uid
    return key_hash(key) % options.slots
