"""Status conditions with Kubernetes semantics (`op.Condition`, i.e. metav1.Condition).

`set_condition` adds or updates one condition by `type`: `lastTransitionTime`
changes only when `status` changes; `observedGeneration`, `reason` and
`message` are kept current. It returns whether anything changed, so a
reconciler writes status only when it must (zero writes once converged).
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Literal

from opgen import api as op

__all__ = ["find", "is_true", "remove_condition", "set_condition"]

Status = Literal["True", "False", "Unknown"]


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)


def find(conditions: Sequence[op.Condition], type: str) -> op.Condition | None:
    """The condition of this type, or None."""
    for condition in conditions:
        if condition.type == type:
            return condition
    return None


def is_true(conditions: Sequence[op.Condition], type: str) -> bool:
    """Whether the condition `type` is there with status "True"."""
    condition = find(conditions, type)
    return condition is not None and condition.status == "True"


def set_condition(
    conditions: list[op.Condition],
    *,
    type: str,
    status: Status,
    reason: str,
    message: str = "",
    observed_generation: int | None = None,
    now: datetime.datetime | None = None,
) -> bool:
    """Add or update the condition `type` in place; True when something changed."""
    existing = find(conditions, type)
    if existing is None:
        conditions.append(
            op.Condition(
                type=type,
                status=status,
                reason=reason,
                message=message,
                observed_generation=observed_generation,
                last_transition_time=now or _now(),
            )
        )
        return True
    changed = False
    if existing.status != status:
        existing.status = status
        existing.last_transition_time = now or _now()
        changed = True
    if existing.reason != reason:
        existing.reason = reason
        changed = True
    if existing.message != message:
        existing.message = message
        changed = True
    if existing.observed_generation != observed_generation:
        existing.observed_generation = observed_generation
        changed = True
    return changed


def remove_condition(conditions: list[op.Condition], type: str) -> bool:
    """Remove the condition `type`; True if it was there."""
    existing = find(conditions, type)
    if existing is None:
        return False
    conditions.remove(existing)
    return True
