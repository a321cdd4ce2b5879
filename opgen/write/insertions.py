"""Insertion points: where opgen adds a new part to a file the user owns, once.

A region (`opgen.write.regions`) is rewritten every time; an insertion point
is a single comment line,

    # +opgen:insert:<name>

above which opgen adds a block (a new webhook class, a new test) when the
file does not hold it yet, and never touches it again: the block is the
user's from then on. Whether the file holds a block is decided by its `key`,
a line that only that block writes (`class RayClusterValidator:`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from opgen.errors import Location, ScaffoldError

__all__ = ["INSERT_PREFIX", "Insertion", "insert", "insertion_marker"]

INSERT_PREFIX = "+opgen:insert:"

_MARKER_LINE = re.compile(
    r"^[ \t]*#[ \t]*\+opgen:insert:(?P<name>[a-z0-9][a-z0-9-]*)[ \t]*$"
)


@dataclass(frozen=True)
class Insertion:
    """`text` (whole lines) to add above the insertion point `name`, unless the
    file already has a line equal to `key` (ignoring surrounding spaces)."""

    name: str
    key: str
    text: str

    def __post_init__(self) -> None:
        if not self.text.endswith("\n"):
            raise ValueError(f"insertion {self.key!r} text must end with a newline")


def insertion_marker(name: str) -> str:
    """The line of insertion point `name`."""
    return f"# {INSERT_PREFIX}{name}\n"


def insert(text: str, insertions: tuple[Insertion, ...], *, path: str) -> str:
    """`text` with every missing block added above its insertion point, in order.

    Raises `ScaffoldError` when a block is missing and its point is not in the
    file exactly once.
    """
    lines = text.splitlines(keepends=True)
    present = {line.strip() for line in lines}
    for insertion in insertions:
        if insertion.key.strip() in present:
            continue
        points = [
            index
            for index, line in enumerate(lines)
            if (match := _MARKER_LINE.match(line.rstrip("\r\n")))
            and match["name"] == insertion.name
        ]
        if len(points) != 1:
            problem = "is not in the file" if not points else "appears more than once"
            raise ScaffoldError(
                f"the insertion point '# {INSERT_PREFIX}{insertion.name}' {problem}, so "
                f"opgen cannot add {insertion.key.strip()!r}",
                location=Location(file=path),
                hint=f"put the line '# {INSERT_PREFIX}{insertion.name}' back once where new "
                "parts should go (see the file as opgen scaffolds it), or re-scaffold it "
                "with --force",
            )
        lines[points[0] : points[0]] = insertion.text.splitlines(keepends=True)
        present.update(line.strip() for line in insertion.text.splitlines())
    return "".join(lines)
