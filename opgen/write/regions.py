"""Scaffold marker regions: the only places opgen edits a file the user owns.

A region is a pair of comment lines,

    # +opgen:scaffold:<name>
    ...lines opgen owns...
    # +opgen:scaffold:<name>:end

with any indentation. Everything between the two lines belongs to opgen and is
rewritten from the PROJECT file; everything outside belongs to the user. A
region whose begin or end line is missing, repeated or out of order is an
error that names the file and the marker, never a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from opgen.errors import Location, ScaffoldError

MARKER_PREFIX = "+opgen:scaffold:"

_MARKER_LINE = re.compile(
    r"^(?P<indent>[ \t]*)#[ \t]*\+opgen:scaffold:(?P<name>[a-z0-9][a-z0-9-]*)"
    r"(?P<end>:end)?[ \t]*$"
)


@dataclass(frozen=True)
class Region:
    """The content opgen wants between the markers named `name` (whole lines)."""

    name: str
    text: str
    """Lines including their newlines; empty for an empty region."""
    required: bool = True
    """False: a file without this region's markers is left as it is (a region that
    came with a later feature, which the file may predate)."""

    def __post_init__(self) -> None:
        if self.text and not self.text.endswith("\n"):
            raise ValueError(f"region {self.name!r} text must end with a newline")


def begin_marker(name: str, indent: str = "") -> str:
    """The line that opens region `name`."""
    return f"{indent}# {MARKER_PREFIX}{name}\n"


def end_marker(name: str, indent: str = "") -> str:
    """The line that closes region `name`."""
    return f"{indent}# {MARKER_PREFIX}{name}:end\n"


def wrap(region: Region, indent: str = "") -> str:
    """A region with its marker lines, as a template puts it in a new file."""
    return (
        begin_marker(region.name, indent)
        + region.text
        + end_marker(region.name, indent)
    )


@dataclass(frozen=True)
class _Span:
    begin: int
    """Index of the begin marker line."""
    end: int
    """Index of the end marker line."""


def _spans(lines: list[str], path: str) -> dict[str, _Span]:
    opened: dict[str, int] = {}
    spans: dict[str, _Span] = {}
    for index, line in enumerate(lines):
        match = _MARKER_LINE.match(line.rstrip("\r\n"))
        if match is None:
            continue
        name = match["name"]
        marker = f"# {MARKER_PREFIX}{name}{match['end'] or ''}"
        where = Location(file=f"{path}:{index + 1}")
        if name in spans:
            raise ScaffoldError(
                f"scaffold marker '{marker}' appears more than once",
                location=where,
                hint="keep exactly one begin and one end marker per region",
            )
        if match["end"] is None:
            if name in opened:
                raise ScaffoldError(
                    f"scaffold marker '{marker}' appears twice without its ':end' line",
                    location=where,
                    hint=f"add '# {MARKER_PREFIX}{name}:end' after opgen's lines",
                )
            opened[name] = index
        else:
            if name not in opened:
                raise ScaffoldError(
                    f"scaffold marker '{marker}' has no begin line above it",
                    location=where,
                    hint=(
                        f"restore '# {MARKER_PREFIX}{name}' above the region "
                        "(an import sorter moves markers it may sort: keep an import "
                        "region between '# isort: off' and '# isort: on' lines)"
                    ),
                )
            spans[name] = _Span(opened.pop(name), index)
    for name, index in opened.items():
        raise ScaffoldError(
            f"scaffold marker '# {MARKER_PREFIX}{name}' is never closed",
            location=Location(file=f"{path}:{index + 1}"),
            hint=f"restore the line '# {MARKER_PREFIX}{name}:end' after opgen's lines",
        )
    return spans


def read_regions(text: str, *, path: str) -> dict[str, str]:
    """Return the current content of every well-formed region in `text`."""
    lines = text.splitlines(keepends=True)
    return {
        name: "".join(lines[span.begin + 1 : span.end])
        for name, span in _spans(lines, path).items()
    }


def splice(text: str, regions: tuple[Region, ...], *, path: str) -> str:
    """Return `text` with each region's content replaced; the rest is untouched.

    Raises `ScaffoldError` when a region's markers are missing or malformed.
    """
    lines = text.splitlines(keepends=True)
    spans = _spans(lines, path)
    missing = [r.name for r in regions if r.name not in spans and r.required]
    regions = tuple(r for r in regions if r.name in spans)
    if missing:
        names = ", ".join(f"'# {MARKER_PREFIX}{name}'" for name in missing)
        raise ScaffoldError(
            f"scaffold marker {names} not found",
            location=Location(file=path),
            hint=(
                "opgen adds its lines between a '# +opgen:scaffold:<name>' line and "
                "its ':end' line; restore the marker pair (see the file as `opgen init` "
                "scaffolds it) or re-scaffold the file with --force"
            ),
        )
    wanted = {r.name: r.text for r in regions}
    ordered = sorted(
        ((spans[name], content) for name, content in wanted.items()),
        key=lambda item: item[0].begin,
        reverse=True,
    )
    for span, content in ordered:
        lines[span.begin + 1 : span.end] = content.splitlines(keepends=True)
    return "".join(lines)
