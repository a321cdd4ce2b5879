"""Giving the heap a burst left free back to the system, after the assigner's
burst of label writes.

A bulk creation makes the assigner's leader decode thousands of events and
write as many labels while its own cache fills with its share of the objects;
the burst's short-lived allocations, freed once it is over, sit among the
cache's and glibc keeps their pages (it returns memory to the system only from
the top of its heap). `malloc_trim(0)` returns every free page, wherever it
is; there is no such call in Python's standard library, so it is called
through `ctypes`, on glibc only (musl's and other C libraries' `malloc` keep
their own rules), once per burst: it walks the whole heap.
"""

from __future__ import annotations

import ctypes
import gc
import os
from collections.abc import Callable
from functools import cache

__all__ = ["release_heap"]


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, or None on another C library."""
    try:
        version = os.confstr("CS_GNU_LIBC_VERSION")
    except (AttributeError, ValueError, OSError):  # not a glibc system
        return None
    if not version or not version.startswith("glibc"):
        return None
    try:
        function = ctypes.CDLL(None).malloc_trim  # the process's own C library
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_size_t]
    function.restype = ctypes.c_int
    trim: Callable[[int], int] = function
    return trim


def release_heap() -> bool:
    """Collect the garbage in cycles, then give glibc's free pages back to the
    system (False: not glibc, nothing done but the collection)."""
    gc.collect()
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
