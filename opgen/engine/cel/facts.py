"""CEL facts the API server holds opgen's rules to, without a CEL compiler.

The `reason`s a validation rule may give (`REASONS`), whether an expression is
a transition rule (`uses_old_self`), and how a property name is spelt inside
an expression (`cel_field`: reserved words and `.`, `-`, `/` are escaped).
The engine that compiles and runs them is in `program` and `rules`.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["REASONS", "RESERVED_WORDS", "cel_field", "uses_old_self"]

REASONS = (
    "FieldValueInvalid",
    "FieldValueForbidden",
    "FieldValueRequired",
    "FieldValueDuplicate",
)
"""The `reason`s the API server accepts on a validation rule."""
_OLD_SELF = re.compile(r"\boldSelf\b")


@lru_cache(maxsize=4096)
def uses_old_self(expression: str) -> bool:
    """Whether a CEL expression mentions `oldSelf` (makes it a transition rule)."""
    return bool(_OLD_SELF.search(expression))


RESERVED_WORDS = frozenset(
    {
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    }
)


def cel_field(name: str) -> str:
    """A property name as CEL must spell it (`namespace` → `__namespace__`)."""
    if name in RESERVED_WORDS:
        return f"__{name}__"
    escaped = name.replace("__", "__underscores__")
    for char, word in ((".", "dot"), ("-", "dash"), ("/", "slash")):
        escaped = escaped.replace(char, f"__{word}__")
    return escaped
