"""All-or-nothing replacement of a set of files under a root.

Every new content is staged next to its target first; then targets are moved
aside and the staged files renamed into place, and removals are moved aside.
If anything fails, every file already replaced or removed is restored and
every folder created is removed, so the tree is left exactly as it was.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path


def replace_all(
    writes: Sequence[tuple[Path, str]], removals: Sequence[Path] = (), *, root: Path
) -> None:
    """Write each `(target, content)` and delete each removal, atomically as a set.

    Folders under `root` that a removal leaves empty are removed too.
    """
    staged: list[tuple[Path, Path]] = []
    moved_aside: list[tuple[Path, Path | None]] = []
    created_dirs: list[Path] = []
    try:
        for target, content in writes:
            created_dirs.extend(_make_parents(target.parent))
            fd, tmp_name = tempfile.mkstemp(
                prefix=f".{target.name}.", dir=target.parent
            )
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(content)
            mode = target.stat().st_mode & 0o7777 if target.exists() else 0o644
            os.chmod(tmp_name, mode)
            staged.append((Path(tmp_name), target))
        for tmp, target in staged:
            backup = _move_aside(target)
            moved_aside.append((target, backup))
            os.replace(tmp, target)
        for target in removals:
            backup = _move_aside(target)
            if backup is not None:
                moved_aside.append((target, backup))
    except BaseException:
        for target, backup in reversed(moved_aside):
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
    for _, backup in moved_aside:
        if backup is not None:
            backup.unlink(missing_ok=True)
    for target in removals:
        _remove_empty_parents(target.parent, root)


def _move_aside(target: Path) -> Path | None:
    if not target.exists():
        return None
    backup = target.with_name(f".{target.name}.opgen-backup")
    os.replace(target, backup)
    return backup


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


def _remove_empty_parents(directory: Path, root: Path) -> None:
    """Remove `directory` and its parents below `root` while they are empty."""
    current = directory
    while current != root and root in current.parents:
        cache = current / "__pycache__"
        if cache.is_dir() and [p.name for p in current.iterdir()] == ["__pycache__"]:
            shutil.rmtree(cache, ignore_errors=True)
        try:
            current.rmdir()
        except OSError:
            return
        current = current.parent
