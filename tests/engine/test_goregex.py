"""Go's RE2 in Python: patterns judged and matched as the API server does."""

from __future__ import annotations

from typing import Annotated

import pytest
import re2  # type: ignore[import-untyped]
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

import opgen.api as op
from opgen.engine.goregex import GoRegexError, _plain, go_regex, go_search, re2_problem

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


ATOMS = st.sampled_from(
    [*"aZ0-_/ :.", "\\.", "\\$", "\\\\", "[a-z]", "[^a-c]", "[-a-z0-9]", "[a-]", "[.$]"]
)


def _groups(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.tuples(st.sampled_from(["(", "(?:"]), inner).map(
        lambda g: f"{g[0]}{g[1]})"
    )


EXPRESSIONS = st.recursive(
    ATOMS,
    lambda inner: st.one_of(
        _groups(inner),
        st.tuples(
            st.one_of(ATOMS, _groups(inner)),
            st.sampled_from(["*", "+", "?", "*?", "??"]),
        ).map("".join),
        st.lists(inner, min_size=1, max_size=4).map("".join),
        st.tuples(inner, inner).map("|".join),
    ),
    max_leaves=8,
)
"""Plain patterns: a quantifier follows an atom or a group, never another."""
PLAIN_PATTERNS = st.tuples(
    st.sampled_from(["", "^"]), EXPRESSIONS, st.sampled_from(["", "$"])
).map("".join)


@settings(max_examples=500, deadline=None)
@given(
    pattern=PLAIN_PATTERNS,
    texts=st.lists(st.text(alphabet="aZz0-_./ :$\n\\[]b", max_size=8), max_size=8),
)
def test_a_plain_pattern_is_judged_and_searched_as_re2_does(
    pattern: str, texts: list[str]
) -> None:
    plain = _plain(pattern)
    assert plain is not None, pattern
    compiled = re2.compile(pattern)  # RE2 accepts every plain pattern
    for text in [*texts, *(text + "\\n" for text in texts)]:
        assert (plain.search(text) is None) == (compiled.search(text) is None), text


@pytest.mark.parametrize(
    "pattern",
    [r"a{2}", r"\d", "(?=x)", "a*+", "[z-a]", "[]a]", "a$b", "^*", "x" * 1001],
)
def test_patterns_outside_the_plain_ones_go_to_re2(pattern: str) -> None:
    assert _plain(pattern) is None


def test_go_search_reads_dollar_as_the_very_end_as_go_does() -> None:
    assert go_search("^ab$")("ab") is not None
    assert go_search("^ab$")("ab\n") is None
    assert go_search("^a.b$")("a\nb") is None
