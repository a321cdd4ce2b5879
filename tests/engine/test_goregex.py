"""Go's RE2 in Python: patterns judged and matched as the API server does."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import ValidationError

import opgen.api as op
from opgen.engine.goregex import GoRegexError, go_regex, re2_problem

# controller-tools' CronJob test API's patternObject.
URL = r"^$|^((https):\/\/?)[^\s()<>]+(?:\([\w\d]+\)|([^[:punct:]\s]|\/?))$"


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        (URL, "https://example.com", True),
        (URL, "https://x(ab)", True),
        # Python alone reads `[^[:punct:]\s]` as the class `[^[:punct:]` and
        # the literals `\s]`, and would match this; Go does not.
        (URL, "https://Xgã\n]", False),
        (r"^[[:alpha:]]+$", "abcXYZ", True),
        (r"^[[:alpha:]]+$", "ab1", False),
        (r"^[[:digit:][:upper:]]+$", "A1B2", True),
        (r"^[^[:space:]]+$", "a\tb", False),
        (r"^[[:xdigit:]]+$", "0fA9", True),
        (r"^[[:punct:]]+$", "[]\\^-`~", True),
    ],
)
def test_posix_classes_match_as_in_go(pattern: str, text: str, matches: bool) -> None:
    assert bool(go_regex(pattern).search(text)) is matches


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        # Gateway API's header names: `*+` inside a class is two literals.
        (r"^[A-Za-z0-9!#$%&'*+\-.^_\x60|~]+$", "X-Custom*+", True),
        (r"^[A-Za-z0-9!#$%&'*+\-.^_\x60|~]+$", "no spaces", False),
        # prometheus-operator's: `(?i)` after the start applies from there on.
        (r"^((?i)january|february)$", "JANUARY", True),
        (r"^((?i)january|february)$", "FEBRUARY", True),
        (r"^abc(?i)def$", "abcDEF", True),
        (r"^abc(?i)def$", "ABCdef", False),
    ],
)
def test_patterns_mean_what_they_mean_to_the_server(
    pattern: str, text: str, matches: bool
) -> None:
    assert re2_problem(pattern) is None
    assert (go_regex(pattern).search(text) is not None) is matches


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("a(?=b)", "invalid perl operator"),
        ("a*+", "bad repetition operator"),
        (r"(a)\1", "invalid escape sequence"),
        (r"a\C", "invalid escape sequence"),
        ("a{1001}", "invalid repetition size"),
    ],
)
def test_patterns_the_server_refuses_are_refused_with_re2s_reason(
    pattern: str, reason: str
) -> None:
    problem = re2_problem(pattern)
    assert problem is not None and reason in problem
    with pytest.raises(GoRegexError):
        go_regex(pattern)


def test_a_users_pattern_with_a_flag_after_the_start_is_accepted() -> None:
    class Month(op.Model):
        name: Annotated[str, op.Pattern(r"^((?i)jan|feb)$")]

    assert Month(name="FEB").name == "FEB"
    with pytest.raises(ValidationError):
        Month(name="march")
