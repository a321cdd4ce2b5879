"""Which class and field of a Python source file a line belongs to.

Errors raised while a types file runs know only their file and line (from
the traceback); the message should also name the model and the field, as
every other opgen error does. The source is read with `ast`, never run again.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

__all__ = ["symbol_at"]


def symbol_at(
    file: Path, line: int, *, mentioning: str | None = None
) -> tuple[str | None, str | None]:
    """The innermost class whose statement spans `line`, and its field.

    The field is the annotated attribute written on `line`; or, with
    `mentioning`, the first one whose annotation names that class (the line
    is then the class statement, as for errors raised when a class is built).
    """
    try:
        tree = ast.parse(file.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None, None
    around = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        and _first_line(node) <= line <= (node.end_lineno or node.lineno)
    ]
    if not around:
        return None, None
    cls = max(around, key=_first_line)
    fields = [
        statement
        for statement in cls.body
        if isinstance(statement, ast.AnnAssign)
        and isinstance(statement.target, ast.Name)
    ]
    on_line = [f for f in fields if f.lineno <= line <= (f.end_lineno or f.lineno)]
    naming = [
        f
        for f in fields
        if mentioning is not None and _mentions(f.annotation, mentioning)
    ]
    for found in (*on_line, *naming):
        assert isinstance(found.target, ast.Name)
        return cls.name, found.target.id
    return cls.name, None


def _first_line(node: ast.ClassDef) -> int:
    """Where the class statement starts, decorators included."""
    return min([node.lineno, *(d.lineno for d in node.decorator_list)])


def _mentions(annotation: ast.expr, name: str) -> bool:
    for node in ast.walk(annotation):
        if isinstance(node, ast.Name) and node.id == name:
            return True
        if isinstance(node, ast.Attribute) and node.attr == name:
            return True
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and re.search(rf"\b{re.escape(name)}\b", node.value)
        ):
            return True
    return False
