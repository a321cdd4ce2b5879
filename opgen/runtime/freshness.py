"""Read-your-writes for cached reads.

A reconciler that writes an object and reads it back from the cache before the
watch event arrived sees its own write undone: it writes again (a redundant
status patch) or, worse, creates a duplicate (user-asks #9). So every write
through `rt.Client` records the resourceVersion the API server answered, and a
cached read of that object first waits — briefly, at most `wait` seconds — until
the informer has stored that version or a later one. The wait is usually a few
milliseconds; it is skipped when the object is outside what the informer
watches. Versions are compared as etcd revisions (integers) when both are;
otherwise only equality counts and the time limit bounds the wait.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from opgen.runtime.timeouts import within

__all__ = ["DEFAULT_WAIT", "Expectations", "is_at_least"]

log = logging.getLogger("opgen.runtime.freshness")

DEFAULT_WAIT = 1.0
"""Seconds a cached read waits at most for the client's own last write of the object."""

Key = tuple[str, str]


def is_at_least(have: str | None, want: str) -> bool:
    """Whether resourceVersion `have` is `want` or newer (numeric when both are)."""
    if have is None:
        return False
    if have == want:
        return True
    if have.isdigit() and want.isdigit():
        return int(have) >= int(want)
    return False


@dataclass
class _Pending:
    resource_version: str
    deadline: float
    seen: asyncio.Event = field(default_factory=asyncio.Event)


class Expectations:
    """The versions this process wrote and its informer has not stored yet, by object key."""

    def __init__(
        self, wait: float = DEFAULT_WAIT, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.wait = wait
        self._clock = clock
        self._pending: dict[Key, _Pending] = {}

    def __len__(self) -> int:
        return len(self._pending)

    def __contains__(self, key: object) -> bool:
        """Whether a write of `key` is still waiting for the informer."""
        return key in self._pending

    def expect(self, key: Key, resource_version: str) -> None:
        """A write of `key` answered with `resource_version`."""
        now = self._clock()
        if len(self._pending) > 1000:
            self._pending = {k: p for k, p in self._pending.items() if p.deadline > now}
        current = self._pending.get(key)
        if current is not None and is_at_least(
            current.resource_version, resource_version
        ):
            return
        self._pending[key] = _Pending(resource_version, now + self.wait)

    def observed(self, key: Key, resource_version: str | None, deleted: bool) -> None:
        """The informer stored (or deleted) `key` at `resource_version`."""
        pending = self._pending.get(key)
        if pending is None:
            return
        if deleted or is_at_least(resource_version, pending.resource_version):
            pending.seen.set()
            del self._pending[key]

    async def settle(
        self, keys: Iterable[Key], stored: Callable[[Key], str | None]
    ) -> None:
        """Wait until the store holds this client's last write of each key (bounded)."""
        for key in list(keys):
            pending = self._pending.get(key)
            if pending is None:
                continue
            if is_at_least(stored(key), pending.resource_version):
                self._pending.pop(key, None)
                continue
            remaining = pending.deadline - self._clock()
            try:
                if remaining <= 0:
                    raise asyncio.TimeoutError
                await within(pending.seen.wait(), remaining)
            except asyncio.TimeoutError:
                log.debug(
                    "cache has not seen resourceVersion %s of %s yet; reading it anyway",
                    pending.resource_version,
                    key,
                )
                if self._pending.get(key) is pending:
                    del self._pending[key]

    def pending_keys(self, namespace: str | None = None) -> list[Key]:
        return [k for k in self._pending if namespace is None or k[0] == namespace]
