"""Write patterns: create-or-update, and retry on conflict.

`create_or_update(client, obj, mutate)` reads the current object into `obj`,
applies `mutate`, and writes only if `mutate` changed something — the
idempotency a converged reconcile needs, at no API request when nothing
changed: the read comes from the cache, as controller-runtime's
CreateOrUpdate's does. The cache sees this process's own writes
(read-your-writes, `freshness`); a read that is stale for another reason ends
in `Conflict` (or `AlreadyExists`), which the controller retries quietly.
`retry_on_conflict(fn)` re-runs a read-modify-write that lost a race.
"""

from __future__ import annotations

import asyncio
import enum
import random
from collections.abc import Awaitable, Callable
from typing import TypeVar

from opgen.runtime import errors, metafields, resources
from opgen.runtime.client import Client

__all__ = ["Operation", "create_or_update", "retry_on_conflict"]

T = TypeVar("T")
R = TypeVar("R")


class Operation(enum.Enum):
    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"


async def create_or_update(
    client: Client, obj: T, mutate: Callable[[T], None], *, cached: bool = True
) -> tuple[T, Operation]:
    """Make the object `obj` names exist in the state `mutate` gives it; returns
    (`obj`, what was done), `obj` refreshed as by every write.

    The current object is read through the client's cache (a first read of a kind
    starts its informer); `cached=False` reads from the API server instead, for an
    object outside what the cache watches."""
    rtype = resources.resource_type(type(obj))
    name = metafields.get(obj, "name")
    if not name:
        raise ValueError(
            f"create_or_update needs the {rtype.kind}'s metadata.name to look it up"
            " (generateName names an object only when it is created): set the name"
        )
    read = client.get if cached else client.uncached.get
    try:
        current = await read(rtype.cls, name, metafields.get(obj, "namespace"))
    except errors.NotFound:
        mutate(obj)
        return await client.create(obj), Operation.CREATED
    resources.assign(obj, current)
    before = rtype.encode_obj(obj)
    mutate(obj)
    if rtype.encode_obj(obj) == before:
        return obj, Operation.UNCHANGED
    return await client.update(obj), Operation.UPDATED


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
