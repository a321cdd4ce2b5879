"""File values and the atomic writer.

A plan is a list of `File`s. `apply` first checks every file against its
ownership rule, then stages all contents next to their targets and renames them
into place; if anything fails, every file already replaced is restored, so the
tree is left exactly as it was.
"""

from __future__ import annotations

import contextlib
import enum
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from opgen.errors import ScaffoldError


class Ownership(enum.Enum):
    """Who owns a file once it exists."""

    GENERATED = "generated"
    """opgen rewrites it every time; the header says so."""
    USER = "user"
    """Scaffolded once; never overwritten without --force."""
    INJECTED = "injected"
    """Owned by the user; opgen edits only between scaffold markers."""


@dataclass(frozen=True)
class File:
    """One file of a plan: a path relative to the plan's root and its full content."""

    path: PurePosixPath
    content: str
    ownership: Ownership = Ownership.GENERATED

    def target(self, root: Path) -> Path:
        return root.joinpath(*self.path.parts)


def apply(files: Sequence[File], root: Path, *, force: bool = False) -> list[File]:
    """Write `files` under `root`, all or nothing; return the files that changed.

    A USER file that already exists is an error unless `force` is set. Files whose
    content is already on disk are left untouched (their mtime does not move).
    """
    paths = [f.path for f in files]
    if len(set(paths)) != len(paths):
        duplicates = sorted({str(p) for p in paths if paths.count(p) > 1})
        raise ScaffoldError(
            f"internal error: the plan writes {', '.join(duplicates)} twice"
        )
    changed: list[File] = []
    for file in files:
        target = file.target(root)
        if target.is_dir():
            raise ScaffoldError(f"{file.path}: a directory is in the way of this file")
        if target.exists():
            if target.read_text(encoding="utf-8") == file.content:
                continue
            if file.ownership is Ownership.USER and not force:
                raise ScaffoldError(
                    f"{file.path} already exists and belongs to you",
                    hint="re-run with --force to overwrite it",
                )
        changed.append(file)
    _replace_all(changed, root)
    return changed


def _replace_all(files: Sequence[File], root: Path) -> None:
    staged: list[tuple[Path, Path]] = []
    backups: list[tuple[Path, Path | None]] = []
    created_dirs: list[Path] = []
    try:
        for file in files:
            target = file.target(root)
            created_dirs.extend(_make_parents(target.parent))
            fd, tmp_name = tempfile.mkstemp(
                prefix=f".{target.name}.", dir=target.parent
            )
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(file.content)
            mode = target.stat().st_mode & 0o7777 if target.exists() else 0o644
            os.chmod(tmp_name, mode)
            staged.append((Path(tmp_name), target))
        for tmp, target in staged:
            backup: Path | None = None
            if target.exists():
                backup = target.with_name(f".{target.name}.opgen-backup")
                os.replace(target, backup)
            backups.append((target, backup))
            os.replace(tmp, target)
    except BaseException:
        for target, backup in reversed(backups):
            if backup is not None:
                os.replace(backup, target)
            elif target.exists():
                target.unlink()
        for staged_tmp, _ in staged:
            staged_tmp.unlink(missing_ok=True)
        for directory in reversed(created_dirs):
            with contextlib.suppress(OSError):
                directory.rmdir()
        raise
    for _, backup in backups:
        if backup is not None:
            backup.unlink(missing_ok=True)


def _make_parents(directory: Path) -> list[Path]:
    """Create `directory` and missing parents; return those created, outermost first."""
    missing: list[Path] = []
    current = directory
    while not current.exists():
        missing.append(current)
        current = current.parent
    for path in reversed(missing):
        path.mkdir()
    return list(reversed(missing))
