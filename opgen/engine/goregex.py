"""Go's regular expressions, judged and matched by RE2 itself.

The API server compiles a schema's `pattern` with Go's `regexp` package, an
implementation of RE2, and matches values with it. `go_regex` compiles a
pattern with RE2 (the `google-re2` bindings of the C++ library Go's engine
follows), so a pattern means what it means to the server: `(?i)` after the
start, `*+` inside a class, POSIX classes, ASCII `\\w` and `\\s`, `$` only at
the very end. `re2_problem` says why the server would refuse a pattern.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Protocol

import re2  # type: ignore[import-untyped]

__all__ = ["GoRegex", "GoRegexError", "GoRegexMatch", "go_regex", "re2_problem"]


class GoRegexError(ValueError):
    """A pattern RE2 (so the API server) does not compile."""


class GoRegexMatch(Protocol):
    def group(self, index: int = 0) -> str: ...


class GoRegex(Protocol):
    """A compiled pattern: `search` finds a match anywhere, as Go's MatchString."""

    @property
    def pattern(self) -> str: ...

    def search(self, text: str) -> GoRegexMatch | None: ...

    def finditer(self, text: str) -> Iterator[GoRegexMatch]: ...


def _options() -> object:
    options = re2.Options()
    options.log_errors = False  # the error is raised; RE2 would also print it
    return options


_OPTIONS = _options()


@functools.lru_cache(maxsize=1024)
def go_regex(pattern: str) -> GoRegex:
    """`pattern` compiled as Go's `regexp.Compile` does; raises `GoRegexError`
    (with RE2's reason) for a pattern the API server refuses."""
    if _ANY_BYTE.search(pattern):
        raise GoRegexError("invalid escape sequence: \\C")
    try:
        compiled: GoRegex = re2.compile(pattern, options=_OPTIONS)
    except re2.error as error:
        raise GoRegexError(_reason(error)) from None
    return compiled


_ANY_BYTE = re.compile(r"(?<!\\)(?:\\\\)*\\C")
"""`\\C` (any byte), which C++'s RE2 has and Go's does not."""


def _reason(error: Exception) -> str:
    reason = error.args[0] if error.args else str(error)
    if isinstance(reason, bytes):
        reason = reason.decode("utf-8", "replace")
    return str(reason)


def re2_problem(pattern: str) -> str | None:
    """Why the API server (Go's RE2) would refuse `pattern`, or None."""
    try:
        go_regex(pattern)
    except GoRegexError as error:
        return (
            f"it is not a valid regular expression in RE2, the syntax the API "
            f"server uses ({error}); RE2 has no look-arounds, back-references or "
            "possessive quantifiers"
        )
    return None
