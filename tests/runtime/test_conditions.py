"""set_condition with Kubernetes semantics (no API server)."""

from __future__ import annotations

import datetime

import opgen.api as op
from opgen.runtime import conditions

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
T1 = T0 + datetime.timedelta(minutes=5)


def test_add_then_update_only_moves_transition_time_on_status_change() -> None:
    items: list[op.Condition] = []
    assert conditions.set_condition(
        items,
        type="Ready",
        status="False",
        reason="Pending",
        observed_generation=1,
        now=T0,
    )
    assert (
        len(items) == 1
        and items[0].last_transition_time == T0
        and items[0].observed_generation == 1
    )
    assert not conditions.set_condition(
        items,
        type="Ready",
        status="False",
        reason="Pending",
        observed_generation=1,
        now=T1,
    )
    assert conditions.set_condition(
        items,
        type="Ready",
        status="False",
        reason="Waiting",
        message="m",
        observed_generation=2,
        now=T1,
    )
    assert items[0].last_transition_time == T0, "same status: transition time kept"
    assert items[0].reason == "Waiting" and items[0].observed_generation == 2
    assert conditions.set_condition(
        items, type="Ready", status="True", reason="Done", observed_generation=2, now=T1
    )
    assert items[0].last_transition_time == T1
    assert conditions.is_true(items, "Ready")


def test_several_types_and_removal() -> None:
    items: list[op.Condition] = []
    conditions.set_condition(items, type="A", status="True", reason="R")
    conditions.set_condition(items, type="B", status="Unknown", reason="R")
    assert [c.type for c in items] == ["A", "B"]
    assert conditions.find(items, "B") is items[1]
    assert conditions.remove_condition(items, "A") and not conditions.remove_condition(
        items, "A"
    )
    assert [c.type for c in items] == ["B"]
