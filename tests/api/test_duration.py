"""Go duration strings, parsed and printed like Go's time package."""

from __future__ import annotations

import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from opgen.engine.duration import (
    DURATION_PATTERN,
    format_go_duration,
    parse_go_duration,
)
from opgen.engine.goregex import go_regex

td = datetime.timedelta


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0", td(0)),
        ("1h30m", td(hours=1, minutes=30)),
        ("300ms", td(milliseconds=300)),
        ("1.5h", td(minutes=90)),
        ("-1.5s", td(seconds=-1.5)),
        ("+5s", td(seconds=5)),
        ("2h45m10.5s", td(hours=2, minutes=45, seconds=10.5)),
        ("1us", td(microseconds=1)),
        ("1µs", td(microseconds=1)),
        ("1500ns", td(microseconds=1)),
        (".5m", td(seconds=30)),
        ("5.s", td(seconds=5)),
    ],
)
def test_parse(text: str, value: datetime.timedelta) -> None:
    assert parse_go_duration(text) == value


@pytest.mark.parametrize(
    "text",
    # "٣s": Go's digits are ASCII only (Python's \d matched any Unicode digit).
    ["", "1", "1d", "PT30S", "h", "1h 30m", "-", ".", "1.2.3s", "30 s", "٣s"],
)
def test_parse_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        parse_go_duration(text)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (td(0), "0s"),
        (td(hours=1, minutes=30), "1h30m0s"),
        (td(milliseconds=300), "300ms"),
        (td(seconds=1.5), "1.5s"),
        (td(seconds=-1.5), "-1.5s"),
        (td(minutes=1), "1m0s"),
        (td(hours=72, seconds=0.5), "72h0m0.5s"),
        (td(microseconds=1), "1µs"),
        (td(microseconds=1500), "1.5ms"),
        (td(days=1), "24h0m0s"),
    ],
)
def test_format(value: datetime.timedelta, text: str) -> None:
    assert format_go_duration(value) == text


@given(st.timedeltas(min_value=td(days=-10_000), max_value=td(days=10_000)))
def test_round_trip(value: datetime.timedelta) -> None:
    assert parse_go_duration(format_go_duration(value)) == value


@pytest.mark.parametrize(
    "text",
    [
        "0",
        "+0",
        "-0",
        "1h30m",
        "300ms",
        "1.5s",
        ".5s",
        "5.s",
        "1µs",
        "1μs",
        "2h45m30.5s",
        "",
        "00",
        "1",
        "1d",
        "PT30S",
        "1h 30m",
        "٣s",
        "-",
        ".s",
        "1.2.3s",
        "h",
    ],
)
def test_the_crd_pattern_accepts_what_python_parses(text: str) -> None:
    # The API server checks op.Duration with DURATION_PATTERN (Go RE2); found by
    # tests/proof: without it the server stored "" and "1d", which Python refuses.
    try:
        parse_go_duration(text)
        parses = True
    except ValueError:
        parses = False
    assert (go_regex(DURATION_PATTERN).search(text) is not None) is parses
