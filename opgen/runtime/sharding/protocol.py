"""The sharding label protocol and its options.

A ring is named; for a ring `R`:

- each replica's Lease carries the label `sharding.opgen.dev/ring: R`, and its
  holder identity is the replica's shard name;
- an object held by shard `S` carries `shard.sharding.opgen.dev/R: S`;
- an object being moved away from its shard carries
  `drain.sharding.opgen.dev/R: "true"` until the holder lets it go.

The labels live under opgen's own domain rather than reusing
timebertt/kubernetes-controller-sharding's `*.alpha.sharding.timebertt.dev`
ones: that protocol belongs to its sharder (its ControllerRing resource, its
webhook, its own Lease states, an alpha API its authors may change), and an
opgen ring that wrote the same labels would fight that sharder over objects if
both were installed. The shape is the same (one shard and one drain label per
ring, the shard name as the value), so the two read alike.
"""

from __future__ import annotations

import os
import re
import secrets
import socket
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "DRAIN_PREFIX",
    "RING_LABEL",
    "SHARD_PREFIX",
    "ShardingOptions",
    "default_shard_name",
    "drain_label",
    "shard_label",
]

RING_LABEL = "sharding.opgen.dev/ring"
"""On a member's Lease: the ring it belongs to."""
SHARD_PREFIX = "shard.sharding.opgen.dev/"
"""`SHARD_PREFIX + ring`: on an object, the shard that holds it."""
DRAIN_PREFIX = "drain.sharding.opgen.dev/"
"""`DRAIN_PREFIX + ring`: on an object, its holder must let it go."""

_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")


def shard_label(ring: str) -> str:
    return SHARD_PREFIX + ring


def drain_label(ring: str) -> str:
    return DRAIN_PREFIX + ring


def default_shard_name() -> str:
    """`<hostname>-<8 hex>`, lower-cased and cut to fit a label value."""
    host = os.environ.get("HOSTNAME") or socket.gethostname()
    host = re.sub(r"[^a-z0-9-]+", "-", host.lower()).strip("-")[:40] or "replica"
    return f"{host}-{secrets.token_hex(4)}"


@dataclass(frozen=True)
class ShardingOptions:
    """Reconciles sharded across the replicas of a ring (see docs/runtime.md#sharding)."""

    ring: str
    """The ring's name: a label name (lower-case DNS label, at most 63 characters)."""
    shard: str | None = None
    """This replica's shard name (a label value); None: `<hostname>-<8 hex>`."""
    namespace: str | None = None
    """Where the member Leases and the assigner's election Lease live; None: the pod's
    namespace in-cluster, else the kubeconfig's."""
    hash_key: Literal["uid", "namespace"] = "uid"
    """What places an object on the ring: its UID (default: even spread whatever the
    namespaces) or its namespace (a namespace's objects share one replica)."""
    virtual_nodes: int = 256
    """Points per member on the ring; more points, a more even split. Default 256."""
    lease_duration: float = 15.0
    """Seconds without a renewal before a member is taken for dead. Default 15."""
    renew_deadline: float = 10.0
    """A member that cannot renew for this long stops its manager. Default 10."""
    retry_period: float = 2.0
    """Seconds between renewals, and between the assigner's reads of the members. Default 2."""
    sweep_period: float = 300.0
    """Seconds between the assigner's full passes over every object (which also put
    stray children back with their owner). Default 300."""

    def __post_init__(self) -> None:
        if not _NAME.match(self.ring):
            raise ValueError(
                f"sharding ring {self.ring!r} is not a lower-case DNS label "
                "(a-z, 0-9 and '-', at most 63 characters): it ends label names"
            )
        if self.shard is not None and not _NAME.match(self.shard):
            raise ValueError(
                f"shard name {self.shard!r} is not a lower-case DNS label "
                "(a-z, 0-9 and '-', at most 63 characters): it is a label value"
            )
        if not self.lease_duration > self.renew_deadline > self.retry_period > 0:
            raise ValueError(
                "sharding needs lease_duration > renew_deadline > retry_period > 0"
            )
        if self.virtual_nodes < 1:
            raise ValueError("sharding needs virtual_nodes >= 1")
        if self.hash_key not in ("uid", "namespace"):
            raise ValueError(
                f"sharding hash_key {self.hash_key!r}: use 'uid' or 'namespace'"
            )

    @property
    def shard_label(self) -> str:
        return shard_label(self.ring)

    @property
    def drain_label(self) -> str:
        return drain_label(self.ring)
