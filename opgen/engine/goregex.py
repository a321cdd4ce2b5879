"""Go's regular expressions, judged and matched by RE2 itself.

The API server compiles a schema's `pattern` with Go's `regexp` package, an
implementation of RE2, and matches values with it. `go_regex` compiles a
pattern with RE2 (the `google-re2` bindings of the C++ library Go's engine
follows), so a pattern means what it means to the server: `(?i)` after the
start, `*+` inside a class, POSIX classes, ASCII `\\w` and `\\s`, `$` only at
the very end. `re2_problem` says why the server would refuse a pattern.

RE2 is loaded at the first pattern that needs it. A plain pattern (literals,
`.`, ASCII classes, groups, `*+?` and `|`, `^` first and `$` last: Kubernetes'
names, condition types and reasons) is judged and searched with Python's `re`,
which agrees with Go's on every such pattern, so an operator whose kinds use
only those never maps the library (about 2.5 MiB of its resident set).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from types import ModuleType

__all__ = [
    "GoRegex",
    "GoRegexError",
    "GoRegexMatch",
    "go_regex",
    "go_search",
    "re2_problem",
]


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


@functools.cache
def _re2() -> tuple[ModuleType, object]:
    """RE2 and its options, loaded at the first pattern that needs them."""
    import re2  # type: ignore[import-untyped]

    options = re2.Options()
    options.log_errors = False  # the error is raised; RE2 would also print it
    return re2, options


@functools.lru_cache(maxsize=1024)
def go_regex(pattern: str) -> GoRegex:
    """`pattern` compiled as Go's `regexp.Compile` does; raises `GoRegexError`
    (with RE2's reason) for a pattern the API server refuses."""
    if _ANY_BYTE.search(pattern):
        raise GoRegexError("invalid escape sequence: \\C")
    re2, options = _re2()
    try:
        compiled: GoRegex = re2.compile(pattern, options=options)
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


_PLAIN_LITERAL = r"[A-Za-z0-9_,:/@=% '\"<>!#&~`;-]|\\[.+*?()\[\]{}^$|\\/-]"
_PLAIN_CLASS_ATOM = r"[A-Za-z0-9_,:/@=% .+*?()$'\"<>!#;]|\\[.\-\\\]\[/^]"
_PLAIN_CLASS = (
    rf"\[\^?-?(?:[a-z]-[a-z]|[A-Z]-[A-Z]|[0-9]-[0-9]|{_PLAIN_CLASS_ATOM})+-?\]"
)
_PLAIN_ATOM = rf"(?:{_PLAIN_LITERAL}|\.|{_PLAIN_CLASS})"
_PLAIN_TOKEN = re.compile(rf"{_PLAIN_ATOM}(?:[*+?]\??)?|\((?:\?:)?|\)(?:[*+?]\??)?|\|")
_PLAIN_LENGTH = 1000
"""Longer patterns go to RE2, which refuses programs beyond its memory budget."""


@functools.lru_cache(maxsize=1024)
def _plain(pattern: str) -> re.Pattern[str] | None:
    """`pattern` in Python's `re` when it is plain (see the module's doc) and
    compiles there, else None. Such a pattern is valid in RE2 too and `search`
    finds a match exactly when Go's does: both read it as the same character
    sets over code points, `.` leaves out only a newline in both, and Go's `$`
    (the very end) is Python's `\\Z`. Only `search` is meant: `finditer` differs
    on empty matches (Go skips one that abuts the previous match)."""
    if len(pattern) > _PLAIN_LENGTH:
        return None
    body = pattern.removeprefix("^")
    escapes = len(body[:-1]) - len(body[:-1].rstrip("\\"))
    anchored = body.endswith("$") and escapes % 2 == 0
    if anchored:
        body = body[:-1]
    position = 0
    while position < len(body):
        token = _PLAIN_TOKEN.match(body, position)
        if token is None:
            return None
        position = token.end()
    try:
        return re.compile(pattern[: len(pattern) - 1] + r"\Z" if anchored else pattern)
    except re.error:
        return None  # RE2 says why


@functools.lru_cache(maxsize=1024)
def go_search(pattern: str) -> Callable[[str], object | None]:
    """A function that finds `pattern` in a string as Go's `MatchString` does (a
    match object, or None); raises `GoRegexError` for a pattern the API server
    refuses. Plain patterns use Python's `re` and leave RE2 unloaded."""
    plain = _plain(pattern)
    if plain is not None:
        return plain.search
    return go_regex(pattern).search


def re2_problem(pattern: str) -> str | None:
    """Why the API server (Go's RE2) would refuse `pattern`, or None."""
    if _plain(pattern) is not None:
        return None
    try:
        go_regex(pattern)
    except GoRegexError as error:
        return (
            f"it is not a valid regular expression in RE2, the syntax the API "
            f"server uses ({error}); RE2 has no look-arounds, back-references or "
            "possessive quantifiers"
        )
    return None
