"""A selector's requirements: split on the commas outside parentheses."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from opgen.runtime.selectors import _split, labels_match


def _walked(selector: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    current = ""
    for char in selector:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return [p.strip() for p in parts if p.strip()]


@given(st.text(alphabet="ab=!, ()", max_size=16))
@settings(max_examples=500, derandomize=True, database=None, deadline=None)
def test_the_split_is_the_walked_one(selector: str) -> None:
    assert _split(selector) == _walked(selector)


def test_a_set_requirement_keeps_its_commas() -> None:
    assert _split("app in (a, b),tier!=db, !legacy") == [
        "app in (a, b)",
        "tier!=db",
        "!legacy",
    ]
    assert labels_match("app=web,tier in (x,y)", {"app": "web", "tier": "y"})
    assert not labels_match("app=web,tier in (x,y)", {"app": "web", "tier": "z"})
