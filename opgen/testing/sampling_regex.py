"""A Go pattern in Python's `re`, for Hypothesis to draw strings from.

`st.from_regex` takes Python patterns only. opgen judges and matches patterns
with RE2 (`opgen.engine.goregex`); drawing objects from a schema
(`opgen.testing.drawing`, the proof tests) translates a pattern for Hypothesis
and keeps the strings RE2 matches (`matching_text`).
"""

from __future__ import annotations

import functools
import re

from hypothesis import strategies as st

from opgen.engine.goregex import go_regex

__all__ = ["matching_text", "python_regex"]


def matching_text(pattern: str) -> st.SearchStrategy[str]:
    """Strings Go's RE2 matches with `pattern` (drawn through Python's `re`)."""
    matcher = go_regex(pattern)
    return st.from_regex(python_regex(pattern), fullmatch=True).filter(
        lambda text: matcher.search(text) is not None
    )


_GO_SPACE = "\\t\\n\\f\\r "

_POSIX_CLASSES = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "ascii": "\\x00-\\x7f",
    "blank": "\\t ",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": "\\t\\n\\v\\f\\r ",
    "upper": "A-Z",
    "word": "0-9A-Za-z_",
    "xdigit": "0-9A-Fa-f",
}
"""RE2's `[[:name:]]` classes (ASCII), as the contents of a Python class."""


@functools.lru_cache(maxsize=512)
def python_regex(pattern: str) -> re.Pattern[str]:
    """`pattern` in Python's `re`, as close to Go's RE2 as `re` gets.

    Perl classes are ASCII-only (`re.ASCII`), `\\s` leaves out `\\v` as Go's
    does, POSIX classes inside brackets (`[^[:punct:]\\s]`, which Python reads
    as a class `[^[:punct:]` and the literals `\\s]`) become their ASCII ranges,
    and `$` outside multi-line mode matches only at the very end (Python's `$`
    also matches before a final newline). Raises `re.error` when Python cannot
    compile it.
    """
    return re.compile(_translate(pattern), re.ASCII)


def _translate(pattern: str) -> str:
    multiline = re.match(r"\(\?[a-zA-Z]*m", pattern) is not None
    out: list[str] = []
    in_class = False
    class_start = 0
    position = 0
    while position < len(pattern):
        char = pattern[position]
        if char == "\\" and position + 1 < len(pattern):
            escaped = pattern[position + 1]
            if escaped == "s":
                out.append(_GO_SPACE if in_class else f"[{_GO_SPACE}]")
            elif escaped == "S" and not in_class:
                out.append(f"[^{_GO_SPACE}]")
            elif escaped == "z" and not in_class:
                out.append("\\Z")
            else:
                out.append(char + escaped)
            position += 2
            continue
        if in_class and pattern.startswith("[:", position):
            end = pattern.find(":]", position + 2)
            name = pattern[position + 2 : end] if end > 0 else ""
            if name in _POSIX_CLASSES:
                out.append(_POSIX_CLASSES[name])
                position = end + 2
                continue
        if in_class:
            # A `]` right after `[` or `[^` is a literal, as in Go.
            if char == "]" and position > class_start:
                in_class = False
            out.append(char)
        elif char == "[":
            in_class = True
            out.append(char)
            if pattern[position + 1 : position + 2] == "^":
                out.append("^")
                position += 1
            class_start = position + 1
        elif char == "$" and not multiline:
            out.append("\\Z")
        else:
            out.append(char)
        position += 1
    return "".join(out)
