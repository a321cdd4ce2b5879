"""Giving the heap's free pages back to the system after a burst of labels.

A bulk creation passes every new object through the assigner once: its watch
events, its label write and the write's answer are allocated and freed by the
thousand while the leader's cache and reconciles allocate among them, so the
C heap (glibc's malloc) ends the burst larger than what it then holds, and
keeps the difference: it returns memory to the system only from the top of the
heap, which live blocks pin. `malloc_trim(0)` gives back every free page in
the heap (glibc 2.8+). Where there is no such function (musl, macOS), nothing
is done: their allocators return free memory on their own terms.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable

__all__ = ["release_free_pages"]


def _malloc_trim() -> Callable[[int], int] | None:
    path = ctypes.util.find_library("c")
    if path is None:
        return None
    try:
        libc = ctypes.CDLL(path)
    except OSError:
        return None
    trim = getattr(libc, "malloc_trim", None)
    if trim is None:
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim  # type: ignore[no-any-return]


_TRIM = _malloc_trim()


def release_free_pages() -> bool:
    """Return the C heap's free pages to the system; whether any were returned
    (False where the C library cannot)."""
    return bool(_TRIM(0)) if _TRIM is not None else False
