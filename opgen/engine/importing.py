"""Importing large modules without the cyclic garbage collector walking them midway.

A module that defines hundreds of classes and functions (the runtime with
aiohttp's client and server, `op.k8s.core_v1`) makes tens of thousands of
objects that live as long as the process. Imported with the collector running,
every collection its allocations trigger walks all of them made so far, and the
full collection that comes due among them walks every object of the process.
Paused for the import, the collector meets them once, afterwards. The lazy
loaders of `opgen.runtime` and `op.k8s` import through `collector_paused`.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection inside the block (objects are freed by
    their reference counts as ever); the collector runs again after it, unless
    something else had stopped it before."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
