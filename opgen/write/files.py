"""File values: what a generator wants on disk, and who owns it once it is there."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from opgen.write.insertions import Insertion
from opgen.write.regions import Region


class Ownership(enum.Enum):
    """Who owns a file once it exists."""

    GENERATED = "generated"
    """opgen rewrites it every time; the header says so."""
    USER = "user"
    """Scaffolded once; never overwritten without --force (a skip is reported)."""
    INJECTED = "injected"
    """Owned by the user; opgen edits only between scaffold markers, and adds
    missing blocks above insertion points."""


@dataclass(frozen=True)
class File:
    """One file of a plan: a path relative to the plan's root and its full content.

    For an INJECTED file, `content` is what a new file gets (with its regions
    already filled in) and `regions` is what replaces the lines between the
    markers when the file already exists; `insertions` are the blocks added
    above their insertion points when the existing file lacks them.
    """

    path: PurePosixPath
    content: str
    ownership: Ownership = Ownership.GENERATED
    regions: tuple[Region, ...] = ()
    insertions: tuple[Insertion, ...] = ()

    def target(self, root: Path) -> Path:
        return root.joinpath(*self.path.parts)


@dataclass(frozen=True)
class Removal:
    """A file the plan deletes (if it exists); emptied parent folders go too."""

    path: PurePosixPath

    def target(self, root: Path) -> Path:
        return root.joinpath(*self.path.parts)
