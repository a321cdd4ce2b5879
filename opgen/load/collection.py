"""The cyclic garbage collector held off while a stage builds many objects.

Loading a types file builds Pydantic models, and the schema stage and the CRD
checker build nested dicts: every few hundred allocations trigger a collection
that walks the young objects, and every few of those a full one that walks
everything loaded so far (Pydantic's schemas, the user's classes), about a
tenth of a 100-kind run. Nothing these stages build is garbage until the run
ends, so they run with the collector paused (`collection_paused`); it resumes
as it was afterwards, and collects as usual from there.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collection_paused"]


@contextmanager
def collection_paused() -> Iterator[None]:
    """Pause the cyclic collector for the block (nesting is harmless)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
