"""File values: what a generator wants on disk, and who owns it once it is there."""

from __future__ import annotations

import enum
from collections.abc import Callable
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


class File:
    """One file of a plan: a path relative to the plan's root and its full content.

    For an INJECTED file, `content` is what a new file gets (with its regions
    already filled in) and `regions` is what replaces the lines between the
    markers when the file already exists; `insertions` are the blocks added
    above their insertion points when the existing file lacks them.

    `content` may be given as a function that makes it: it is called once, the
    first time the content is read. An injected file's new-file content is read
    only when the file is missing, so a run over an existing project renders and
    formats none of them.
    """

    __slots__ = ("_content", "insertions", "ownership", "path", "regions")

    path: PurePosixPath
    ownership: Ownership
    regions: tuple[Region, ...]
    insertions: tuple[Insertion, ...]
    _content: str | Callable[[], str]

    def __init__(
        self,
        path: PurePosixPath,
        content: str | Callable[[], str],
        ownership: Ownership = Ownership.GENERATED,
        regions: tuple[Region, ...] = (),
        insertions: tuple[Insertion, ...] = (),
    ) -> None:
        set_ = object.__setattr__
        set_(self, "path", path)
        set_(self, "_content", content)
        set_(self, "ownership", ownership)
        set_(self, "regions", regions)
        set_(self, "insertions", insertions)

    @property
    def content(self) -> str:
        content = self._content
        if not isinstance(content, str):
            content = content()
            object.__setattr__(self, "_content", content)
        return content

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"File is immutable: cannot set {name}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"File is immutable: cannot delete {name}")

    def _key(self) -> tuple[object, ...]:
        return (self.path, self.content, self.ownership, self.regions, self.insertions)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, File)
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"File(path={self.path!r}, content={self.content!r}, "
            f"ownership={self.ownership!r}, regions={self.regions!r}, "
            f"insertions={self.insertions!r})"
        )

    def target(self, root: Path) -> Path:
        return root.joinpath(*self.path.parts)


@dataclass(frozen=True)
class Removal:
    """A file the plan deletes (if it exists); emptied parent folders go too."""

    path: PurePosixPath

    def target(self, root: Path) -> Path:
        return root.joinpath(*self.path.parts)
