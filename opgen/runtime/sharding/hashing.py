"""The hash that places keys: BLAKE2b (8 bytes), never Python's `hash()`, whose
seed differs between processes: every replica and every assigner computes the
same slot for an object."""

from __future__ import annotations

import hashlib

__all__ = ["key_hash"]


def key_hash(key: str) -> int:
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big")
