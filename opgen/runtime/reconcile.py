"""The Reconcile contract: `Request` in, `Result` out, errors mean retry.

A reconciler is level-triggered: it gets only the object's key, reads the
current state (from the cache), and drives the world towards the spec. It is
idempotent — a converged object costs no writes — and it never blocks: long
waits are `Result(requeue_after=...)`.

Outcomes, handled in one place by the controller:

    returns Result()                    done; backoff reset
    returns Result(requeue_after=t)     reconciled again after exactly t; backoff reset
    raises TerminalError                logged and counted, never retried
    raises Conflict (409)               retried with backoff, without an error log
    raises anything else                logged, counted, retried with backoff (5 ms doubling to 1000 s)
"""

from __future__ import annotations

import datetime
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import NamedTuple, Protocol

__all__ = [
    "FuncReconciler",
    "Reconciler",
    "ReconcilerFunc",
    "Request",
    "Result",
    "TerminalError",
]


class Request(NamedTuple):
    """The key of the object to reconcile; `namespace` is None for cluster-scoped kinds.

    A tuple: the work queue, the hot-loop counter and the sharding gate hash it
    several times per reconcile, and a tuple's hash and equality run in C (a
    dataclass's generated `__hash__` is Python: about a sixth of the controller
    machinery's CPU per reconcile, `benchmarks.reconcile_overhead`)."""

    namespace: str | None
    name: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


@dataclass(frozen=True)
class Result:
    """What to do after a successful reconcile: nothing, or reconcile again after a delay."""

    requeue_after: float | datetime.timedelta | None = None

    @property
    def delay(self) -> float | None:
        """`requeue_after` in seconds; None when no requeue is asked for."""
        if self.requeue_after is None:
            return None
        if isinstance(self.requeue_after, datetime.timedelta):
            return self.requeue_after.total_seconds()
        return float(self.requeue_after)


class TerminalError(Exception):
    """An error retrying cannot fix (bad spec, missing permission): logged, counted, not retried.

    The object is reconciled again only when it changes."""


class Reconciler(Protocol):
    """Anything with `async def reconcile(self, request) -> Result`."""

    async def reconcile(self, request: Request) -> Result: ...


ReconcilerFunc = Callable[[Request], Awaitable[Result]]


class FuncReconciler:
    """Adapts a bare `async def reconcile(request) -> Result` function to `Reconciler`."""

    def __init__(self, func: ReconcilerFunc) -> None:
        self.func = func

    async def reconcile(self, request: Request) -> Result:
        return await self.func(request)
