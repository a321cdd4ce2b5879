"""The markers' validators accept at once what their check accepts on the wire
form, and refuse the rest with the check's problem: the inlined quick accepts
(`_enforce`) against `check(to_wire_value(value))`."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter
from pydantic_core import PydanticCustomError

import opgen.api as op
from opgen.engine.markers import Marker
from opgen.engine.wire import to_wire_value

MARKERS: list[Marker] = [
    op.MinLength(2),
    op.MaxLength(3),
    op.MinItems(1),
    op.MaxItems(2),
    op.MinProperties(1),
    op.MaxProperties(2),
    op.Minimum(1),
    op.Maximum(2.5),
    op.ExclusiveMinimum(0),
    op.ExclusiveMaximum(3),
    op.MultipleOf(2),
    op.Pattern("^a+$"),
    op.Format("int32"),
    op.Format("int64"),
    op.Format("date-time"),
    op.Format("uuid"),
    op.Format("double"),
]

values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**64), 2**64)
    | st.floats()
    | st.text(alphabet="ab-0:TZ", max_size=6)
    | st.sampled_from(["2024-05-01T12:00:00Z", "", "a", "aaaa", "a" * 70, "b" * 70]),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.text(max_size=2), children, max_size=3),
    max_leaves=6,
)


def _refused(marker: Marker, value: Any) -> bool:
    try:
        assert marker._enforce(value) is value
    except PydanticCustomError:
        return True
    return False


@pytest.mark.parametrize("marker", MARKERS, ids=lambda m: m.display())
@given(value=values)
@settings(max_examples=150, derandomize=True, database=None, deadline=None)
def test_a_quick_accept_is_the_checks_answer(marker: Marker, value: Any) -> None:
    expected = value is not None and marker.check(to_wire_value(value)) is not None
    assert _refused(marker, value) == expected


EDGES: list[Any] = [
    None, True, False, 0, 1, 2, 3, 2.5, 3.0, -1, 2**31, 2**63, -(2**63) - 1,
    float("nan"), float("inf"), "", "a", "aa", "aaa", "aaaa", "ab", "a" * 70,
    "2024-05-01T12:00:00Z", "2024-02-30T12:00:00Z", [], [1], [1, 2], [1, 2, 3],
    {}, {"a": 1}, {"a": 1, "b": 2}, {"a": 1, "b": 2, "c": 3}, {"a": None},
    {"a": 1, "b": None, "c": None},
]  # fmt: skip


@pytest.mark.parametrize("marker", MARKERS, ids=lambda m: m.display())
def test_a_quick_accept_is_the_checks_answer_at_the_edges(marker: Marker) -> None:
    for value in EDGES:
        expected = value is not None and marker.check(to_wire_value(value)) is not None
        assert _refused(marker, value) == expected, value


@pytest.mark.parametrize("kind", ["map", "atomic", "set"])
def test_only_a_set_list_is_validated_by_its_list_type(kind: str) -> None:
    """A map's keys are the model's check (`model_check`) and an atomic list has
    nothing to check: only `set` puts a validator on the list."""

    schema = TypeAdapter(Annotated[list[int], op.ListType(kind)]).core_schema
    assert (schema["type"] == "function-after") == (kind == "set")
    adapter = TypeAdapter(Annotated[list[int], op.ListType(kind)])
    assert adapter.validate_python([1, 2]) == [1, 2]
    if kind == "set":
        with pytest.raises(ValueError, match="Duplicate value"):
            adapter.validate_python([1, 1])
    else:
        assert adapter.validate_python([1, 1]) == [1, 1]
