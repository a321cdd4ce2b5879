"""A custom resource's reconcile, with its status kept the Kubernetes way: `reconcile`.

The scaffolded reconciler hands its request to `reconcile` and keeps only its
own logic, `reconcile_spec` and `cleanup`:

    async def reconcile(self, request: rt.Request) -> rt.Result:
        return await rt.status.reconcile(
            self.client, RedisCluster, request,
            reconcile_spec=self.reconcile_spec, cleanup=self.cleanup, finalizer=FINALIZER,
        )

    async def reconcile_spec(self, obj: RedisCluster, status: RedisClusterStatus) -> rt.status.Outcome:
        ...                                            # move the world one step towards obj.spec
        status.ready_replicas = ready                  # report what you observed
        if ready < obj.spec.replicas:
            return rt.status.progressing(f"{ready} of {obj.spec.replicas} pods ready")
        return rt.status.ready(requeue_after=30)       # converged; look again in 30 s

`reconcile` does, in order:

1. reads the object (from the cache); when it is gone there is nothing to do.
   When it no longer fits its model (`rt.DecodeError`), the object it works on
   is the error's partial decode: metadata, and each top-level field that
   still fits;
2. when it is being deleted and carries `finalizer`: `cleanup(obj)`, then the
   finalizer is removed (a patch), and that is all. Apart from `cleanup`, this
   path reads only the object's metadata, so it works on a partial decode too:
   an object that no longer fits is still cleaned up and released;
3. otherwise adds `finalizer` (a patch, only when missing);
4. calls `reconcile_spec(obj, status)` with the object's status (a fresh status
   model when it has none yet), which sets status fields in place and returns
   an `Outcome`: `ready(...)`, `progressing(...)`, `degraded(...)` or
   `suspended(...)`, each with an optional `requeue_after`;
5. records the outcome in the status: `observed_generation`, and the
   conditions `Ready`, `Progressing` and `Degraded`, exactly one of them True
   (none, for `suspended`: the spec asks for nothing to run, and nothing
   does) (`rt.conditions.set_condition`: lastTransitionTime moves only when a
   status flips);
6. writes the status through the /status subresource (a merge patch) only
   when it differs from what was read, so a converged object costs no write
   (the answer is not decoded: nothing reads the object after it);
   returns `Result(requeue_after=outcome.requeue_after)`.

An object that no longer fits and is not being deleted gets no finalizer and
no `reconcile_spec`: its status records `Degraded` (reason `DecodeFailed`, the
fields and rules as the message) when its status model still decodes or is
absent, and the `DecodeError` is raised again — the controller's decode
outcome (one log line, an Event, no retry until the object changes).

An exception from `reconcile_spec` is recorded as `Degraded` (reason
`ReconcileFailed`; `TerminalError` for `rt.TerminalError`; `DecodeFailed` for
an `rt.DecodeError`, an object it read that does not fit) with the error as
its message, the status is written, and the exception is raised again: the
controller retries with backoff (never, for a `TerminalError`). `rt.Conflict`
passes through untouched: it means a stale read, which the controller retries
quietly, not a failure worth reporting.

Ready, progressing and "look again later" are independent: `requeue_after`
can go with any outcome (a converged object polled every 30 s is
`ready(requeue_after=30)`), and an object waiting on its children needs none,
since the children's changes wake it up (`rt.Owns`).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeVar

from pydantic import BaseModel

from opgen.runtime import conditions, finalizers, metafields, resources
from opgen.runtime.client import Client
from opgen.runtime.decoding import DecodeError
from opgen.runtime.errors import Conflict, NotFound
from opgen.runtime.reconcile import Request, Result, TerminalError

__all__ = [
    "CONDITION_TYPES",
    "DEGRADED",
    "PROGRESSING",
    "READY",
    "SUSPENDED",
    "Outcome",
    "degraded",
    "progressing",
    "ready",
    "reconcile",
    "record",
    "suspended",
    "write_if_changed",
]

State = Literal["Ready", "Progressing", "Degraded", "Suspended"]

READY: Final[State] = "Ready"
"""True when the object matches its spec."""
PROGRESSING: Final[State] = "Progressing"
"""True while the controller is working towards the spec."""
DEGRADED: Final[State] = "Degraded"
"""True when the last attempt failed, or the object cannot reach its spec."""
CONDITION_TYPES: tuple[State, ...] = (READY, PROGRESSING, DEGRADED)
SUSPENDED: Final[State] = "Suspended"
"""Not a condition: the spec asks for nothing to run (`suspend: true`) and
nothing runs, so Ready, Progressing and Degraded are all False."""
STATES: tuple[State, ...] = (*CONDITION_TYPES, SUSPENDED)
Delay = float | datetime.timedelta | None

_REASON = re.compile(r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")
_MESSAGE_LIMIT = 32768
"""metav1.Condition's maxLength for `message`."""

K = TypeVar("K")
S = TypeVar("S", bound=BaseModel)


@dataclass(frozen=True)
class Outcome:
    """What one `reconcile_spec` step found, and when to look again.

    Build it with `ready`, `progressing`, `degraded` or `suspended`.
    """

    state: State
    reason: str
    message: str = ""
    requeue_after: Delay = None

    def __post_init__(self) -> None:
        if self.state not in STATES:
            raise ValueError(f"Outcome state {self.state!r}: expected one of {STATES}")
        if not _REASON.match(self.reason) or len(self.reason) > 1024:
            raise ValueError(
                f"condition reason {self.reason!r}: a reason is one CamelCase word "
                "(letters, digits, '_', ',' and ':'; it starts with a letter), "
                "e.g. 'PodsStarting'"
            )


def ready(
    message: str = "", *, reason: str = "Reconciled", requeue_after: Delay = None
) -> Outcome:
    """The object matches its spec (`Ready=True`); `requeue_after` to poll it anyway."""
    return Outcome(READY, reason, message, requeue_after)


def progressing(
    message: str = "", *, reason: str = "Progressing", requeue_after: Delay = None
) -> Outcome:
    """Work towards the spec is under way (`Progressing=True`, `Ready=False`).

    Without `requeue_after` the object is reconciled again when it or what it
    owns changes; give one when nothing will change by itself (an external
    system being provisioned)."""
    return Outcome(PROGRESSING, reason, message, requeue_after)


def degraded(
    message: str, *, reason: str = "Degraded", requeue_after: Delay = None
) -> Outcome:
    """The object cannot reach its spec for now (`Degraded=True`, `Ready=False`), and
    retrying at once would not help: a missing Secret, a quota. Unlike raising, it
    logs no error and starts no backoff; `requeue_after` to look again later."""
    return Outcome(DEGRADED, reason, message, requeue_after)


def suspended(
    message: str = "", *, reason: str = "Suspended", requeue_after: Delay = None
) -> Outcome:
    """The spec asks for nothing to run and nothing does: a `suspend: true` that
    has taken effect (`Ready`, `Progressing` and `Degraded` all False). Ready
    stays False so that `kubectl wait --for=condition=Ready` waits for the
    object to run again; say so in a condition of your own (`Suspended`)."""
    return Outcome(SUSPENDED, reason, message, requeue_after)


def record(
    status: BaseModel,
    outcome: Outcome,
    *,
    generation: int | None,
    kind: str = "object",
) -> None:
    """Set `observed_generation` and the three conditions on `status`, in place.

    Only the fields the status model has are set: a model without
    `observed_generation` or `conditions` simply goes without them.
    """
    fields = type(status).model_fields
    model: Any = status  # the user's status model: its fields are checked above
    if "observed_generation" in fields:
        model.observed_generation = generation
    if "conditions" not in fields:
        return
    found: list[Any] | None = model.conditions
    if found is None:
        found = []
        model.conditions = found
    message = (outcome.message or _default_message(outcome.state, kind))[
        :_MESSAGE_LIMIT
    ]
    for condition_type in CONDITION_TYPES:
        conditions.set_condition(
            found,
            type=condition_type,
            status="True" if condition_type == outcome.state else "False",
            reason=outcome.reason,
            message=message,
            observed_generation=generation,
        )


def _default_message(state: State, kind: str) -> str:
    if state == READY:
        return f"The {kind} matches its spec."
    if state == PROGRESSING:
        return "Working towards the spec."
    if state == SUSPENDED:
        return "Suspended: nothing runs."
    return "The last reconcile failed."


async def write_if_changed(
    client: Client,
    obj: Any,
    status: BaseModel,
    before: BaseModel,
    *,
    refresh: bool = True,
) -> bool:
    """Merge-patch `status` to `obj`'s /status subresource unless it equals `before`
    on the wire (a time set in memory to the microsecond is stored to the second:
    no change); True when it wrote (and refreshed `obj`, unless `refresh=False`)."""
    return await _write_if_changed(client, obj, status, _wire(before), refresh=refresh)


async def _write_if_changed(
    client: Client, obj: Any, status: BaseModel, before: Any, *, refresh: bool
) -> bool:
    """`write_if_changed` with the status as it was already in wire form (a dump
    costs less than the deep copy it replaces)."""
    if _wire(status) == before:
        return False
    obj.status = status
    await client.patch_status(obj, refresh=refresh)
    return True


def _wire(status: BaseModel) -> Any:
    return status.model_dump(mode="json", by_alias=True, exclude_none=True)


def _failure(error: Exception) -> Outcome:
    reason = "ReconcileFailed"
    if isinstance(error, TerminalError):
        reason = "TerminalError"
    elif isinstance(error, DecodeError):  # an object it read (a child) does not fit
        reason = "DecodeFailed"
    text = str(error).strip()
    message = f"{type(error).__name__}: {text}" if text else type(error).__name__
    return Outcome(DEGRADED, reason, message)


async def reconcile(
    client: Client,
    kind: type[K],
    request: Request,
    *,
    reconcile_spec: Callable[[K, S], Awaitable[Outcome]],
    cleanup: Callable[[K], Awaitable[None]] | None = None,
    finalizer: str | None = None,
) -> Result:
    """One reconcile of `request`'s `kind` object: the steps of the module docstring.

    `kind` is an `op.CustomResource` with a status model and the status
    subresource (`@op.subresource_status()`). `finalizer=None` keeps none (and
    `cleanup` is then never called).
    """
    status_cls = _status_class(kind)
    try:
        obj = await client.get(kind, request.name, namespace=request.namespace)
    except NotFound:
        return Result()
    except DecodeError as invalid:
        partial = invalid.partial(kind)
        if finalizers.is_deleting(partial):
            await _finish_deletion(client, partial, finalizer, cleanup)
            return Result()
        await _record_undecodable(client, partial, invalid, status_cls)
        raise
    if finalizers.is_deleting(obj):
        await _finish_deletion(client, obj, finalizer, cleanup)
        return Result()
    if finalizer is not None:
        await finalizers.ensure(client, obj, finalizer)

    current = getattr(obj, "status", None)
    status: S = current if current is not None else status_cls()  # type: ignore[assignment]
    before = _wire(status)
    generation = metafields.get(obj, "generation")
    kind_name = resources.resource_type(kind).kind
    try:
        outcome = await reconcile_spec(obj, status)
    except Conflict:
        raise
    except Exception as error:
        record(status, _failure(error), generation=generation, kind=kind_name)
        await _write_if_changed(client, obj, status, before, refresh=False)
        raise
    if not isinstance(outcome, Outcome):
        raise TypeError(
            f"reconcile_spec returned {outcome!r}: return rt.status.ready(), "
            "rt.status.progressing(...), rt.status.degraded(...) or "
            "rt.status.suspended(...)"
        )
    record(status, outcome, generation=generation, kind=kind_name)
    await _write_if_changed(client, obj, status, before, refresh=False)
    return Result(requeue_after=outcome.requeue_after)


async def _finish_deletion(
    client: Client,
    obj: Any,
    finalizer: str | None,
    cleanup: Callable[[Any], Awaitable[None]] | None,
) -> None:
    """Run `cleanup` and release `finalizer`; reads only `obj`'s metadata itself."""
    if finalizer is None or not finalizers.has(obj, finalizer):
        return
    if cleanup is not None:
        await cleanup(obj)
    await finalizers.remove(client, obj, finalizer)


async def _record_undecodable(
    client: Client, partial: Any, invalid: DecodeError, status_cls: type[BaseModel]
) -> None:
    """Say in `Degraded` why the object is not reconciled. A stored status that does
    not fit either is left alone: writing a fresh one would erase it."""
    if (
        invalid.data.get("status") is not None
        and getattr(partial, "status", None) is None
    ):
        return
    current = getattr(partial, "status", None)
    status = current if current is not None else status_cls()
    before = status.model_copy(deep=True)
    message = "The object does not fit the operator's model: " + "; ".join(
        str(problem) for problem in invalid.problems
    )
    record(
        status,
        Outcome(DEGRADED, "DecodeFailed", message),
        generation=metafields.get(partial, "generation"),
        kind=invalid.kind,
    )
    await write_if_changed(client, partial, status, before, refresh=False)


def _status_class(kind: type) -> type[BaseModel]:
    rtype: resources.ResourceType[Any] = resources.resource_type(kind)
    status_cls = resources.status_model(kind)
    if status_cls is None:
        raise TypeError(
            f"rt.status.reconcile: {rtype.kind} has no status model; declare it as "
            f"op.CustomResource[{rtype.kind}Spec, {rtype.kind}Status]"
        )
    if not rtype.status_subresource:
        raise TypeError(
            f"rt.status.reconcile: {rtype.kind} has no status subresource; add "
            "@op.subresource_status() to it"
        )
    return status_cls
