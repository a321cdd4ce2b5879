"""glibc's heap on the assigner's leader: how its bursts are allocated, and
giving back what a burst left free.

A bulk creation makes the assigner's leader decode thousands of events and
write as many labels while its own cache fills with its share of the objects.

- **Large blocks outside the main heap** (`fix_mmap_threshold`). glibc serves a
  request of at least `M_MMAP_THRESHOLD` (128 KiB) with a mapping of its own,
  given back to the system when freed, but by default it raises that threshold
  to the size of each such block freed (up to 32 MiB; the leader frees 256 KiB
  TLS read buffers as its label connections close): blocks below it then come
  from the main heap, raise its top and leave holes there among the cache's
  allocations. Setting the threshold stops the raising and, at 64 KiB, moves
  the blocks from 64 to 128 KiB out too; in the benchmark the leader's cache
  memory after a burst fell (docs/runtime.md, Sharding; which blocks moved was
  not traced).
- **Giving back** (`release_heap`). The burst's short-lived allocations, freed
  once it is over, sit among the cache's, and glibc keeps their pages (it
  returns memory to the system only from the top of its heap). `malloc_trim(0)`
  returns every free page, wherever it is, once per burst: it walks the whole
  heap.

Neither call is in Python's standard library: they go through `ctypes`, on glibc
only (musl's and other C libraries' `malloc` keep their own rules).
"""

from __future__ import annotations

import ctypes
import gc
import os
from functools import cache
from typing import Any

__all__ = ["MMAP_THRESHOLD", "fix_mmap_threshold", "release_heap"]

M_MMAP_THRESHOLD = -3
"""glibc's `mallopt` parameter number (malloc.h)."""
MMAP_THRESHOLD = 64 * 1024
"""Bytes from which the leader's allocations get a mapping of their own."""


@cache
def _glibc() -> Any:
    """The process's own C library when it is glibc, else None."""
    try:
        version = os.confstr("CS_GNU_LIBC_VERSION")
    except (AttributeError, ValueError, OSError):  # not a glibc system
        return None
    if not version or not version.startswith("glibc"):
        return None
    try:
        libc = ctypes.CDLL(None)
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
        libc.malloc_trim.restype = ctypes.c_int
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        libc.mallopt.restype = ctypes.c_int
    except (OSError, AttributeError):
        return None
    return libc


def fix_mmap_threshold() -> bool:
    """Serve every allocation of `MMAP_THRESHOLD` bytes or more with a mapping of
    its own, from now on, in the whole process (False: not glibc, nothing done)."""
    libc = _glibc()
    return libc is not None and bool(libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def release_heap() -> bool:
    """Collect the garbage in cycles, then give glibc's free pages back to the
    system (False: not glibc, nothing done but the collection)."""
    gc.collect()
    libc = _glibc()
    if libc is None:
        return False
    libc.malloc_trim(0)
    return True
