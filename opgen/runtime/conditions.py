"""Status conditions with Kubernetes semantics (metav1.Condition).

`set_condition` adds or updates one condition by `type`: `lastTransitionTime`
changes only when `status` changes; `observedGeneration`, `reason` and
`message` are kept current. It returns whether anything changed, so a
reconciler writes status only when it must (zero writes once converged).
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any, Literal, TypeVar

from opgen import api as op

__all__ = ["find", "is_true", "remove_condition", "set_condition"]

C = TypeVar("C")

_API: Any = op  # typed access once opgen.api has Condition

Status = Literal["True", "False", "Unknown"]


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)


def find(conditions: Sequence[C], type: str) -> C | None:
    """The condition of this type, or None."""
    for condition in conditions:
        if getattr(condition, "type", None) == type:
            return condition
    return None


def is_true(conditions: Sequence[Any], type: str) -> bool:
    condition = find(conditions, type)
    return condition is not None and condition.status == "True"


def set_condition(
    conditions: list[C],
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
        condition_cls: Any = _API.Condition
        conditions.append(
            condition_cls(
                type=type,
                status=status,
                reason=reason,
                message=message,
                observed_generation=observed_generation,
                last_transition_time=now or _now(),
            )
        )
        return True
    current: Any = existing
    changed = False
    if current.status != status:
        current.status = status
        current.last_transition_time = now or _now()
        changed = True
    for attribute, value in (
        ("reason", reason),
        ("message", message),
        ("observed_generation", observed_generation),
    ):
        if getattr(current, attribute) != value:
            setattr(current, attribute, value)
            changed = True
    return changed


def remove_condition(conditions: list[C], type: str) -> bool:
    """Remove the condition `type`; True if it was there."""
    existing = find(conditions, type)
    if existing is None:
        return False
    conditions.remove(existing)
    return True
