"""Write patterns: create-or-update, and retry on conflict.

`create_or_update(client, obj, mutate)` reads the current object (uncached:
read-your-writes), applies `mutate` to it (or to `obj` when it does not
exist), and writes only if `mutate` changed something — the idempotency a
converged reconcile needs. `retry_on_conflict(fn)` re-runs a read-modify-write
that lost a race.
"""

from __future__ import annotations

import asyncio
import enum
import random
from collections.abc import Awaitable, Callable
from typing import TypeVar

from opgen.runtime import errors, resources
from opgen.runtime.client import Client

__all__ = ["Operation", "create_or_update", "retry_on_conflict"]

T = TypeVar("T")
R = TypeVar("R")


class Operation(enum.Enum):
    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"


async def create_or_update(
    client: Client, obj: T, mutate: Callable[[T], None]
) -> tuple[T, Operation]:
    """Make the object exist in the state `mutate` gives it; returns (object, what was done)."""
    rtype = resources.resource_type(type(obj))
    meta = resources.metadata(obj)
    try:
        current = await client.uncached.get(
            rtype.cls, str(meta["name"]), meta.get("namespace")
        )
    except errors.NotFound:
        mutate(obj)
        return await client.create(obj), Operation.CREATED
    before = rtype.encode_obj(current, False)
    mutate(current)
    if rtype.encode_obj(current, False) == before:
        return current, Operation.UNCHANGED
    return await client.update(current), Operation.UPDATED


async def retry_on_conflict(
    fn: Callable[[], Awaitable[R]], *, attempts: int = 5, base_delay: float = 0.01
) -> R:
    """Call `fn` again (after a short jittered backoff) while it raises `Conflict`."""
    for attempt in range(attempts):
        try:
            return await fn()
        except errors.Conflict as exc:
            if isinstance(exc, errors.AlreadyExists) or attempt == attempts - 1:
                raise
            await asyncio.sleep(base_delay * (2**attempt) * (1 + random.random()))
    raise AssertionError("unreachable")
