"""A consistent hash ring over member names, with virtual nodes.

Each member is placed at `virtual_nodes` points (hashes of `<member>#<i>`); a
key belongs to the member of the first point at or after the key's hash. The
hash is BLAKE2b (8 bytes), never Python's `hash()`, whose seed differs between
processes: every replica and every assigner computes the same placement.
Adding or removing one member moves only the keys of the arcs it gains or
loses, about 1/n of them.
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Iterable

__all__ = ["HashRing", "key_hash"]


def key_hash(key: str) -> int:
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big")


class HashRing:
    """Members placed on a ring; `owner(key)` is the member a key belongs to."""

    def __init__(self, members: Iterable[str], virtual_nodes: int = 256) -> None:
        self.members = frozenset(members)
        points = sorted(
            (key_hash(f"{member}#{i}"), member)
            for member in self.members
            for i in range(virtual_nodes)
        )
        self._hashes = [h for h, _ in points]
        self._owners = [m for _, m in points]

    def owner(self, key: str) -> str | None:
        """The member `key` belongs to; None when the ring is empty."""
        if not self._hashes:
            return None
        i = bisect.bisect_left(self._hashes, key_hash(key))
        return self._owners[i % len(self._owners)]
