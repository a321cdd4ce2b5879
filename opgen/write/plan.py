"""The file plan: what applying a list of files would do, then doing it.

`plan` compares each `File` with the tree under a root and decides an
`Action` by the file's ownership:

- GENERATED: created or rewritten whenever its content differs. Given the
  hashes of the generated files as opgen last wrote them (PROJECT's
  `generated`), a change to a file whose content on disk has another hash is
  marked `edited` (by hand): `Plan.hand_edited` lists them, and the command
  decides (`opgen generate` refuses without `--force`).
- USER: created when missing; an existing file that differs is skipped (and
  the skip reported) unless `force` is set.
- INJECTED: created when missing; otherwise only the lines between its scaffold
  markers are replaced, and missing blocks are added above their insertion
  points (a missing or broken marker is a `ScaffoldError`).

A `Plan` is applied all-or-nothing (`Plan.apply`), reported as drift with short
unified diffs (`Plan.drift`, for `--check`) or described (`Plan.describe`, for
`--dry-run`).
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from opgen.errors import Location, ScaffoldError
from opgen.write.atomic import replace_all
from opgen.write.files import File, Ownership, Removal
from opgen.write.hashes import content_hash
from opgen.write.insertions import insert
from opgen.write.regions import splice


class Action(enum.Enum):
    """What applying a plan does to one path."""

    CREATE = "create"
    UPDATE = "update"
    UNCHANGED = "unchanged"
    SKIP = "skip"
    DELETE = "delete"

    @property
    def writes(self) -> bool:
        return self in (Action.CREATE, Action.UPDATE, Action.DELETE)


@dataclass(frozen=True)
class Change:
    """One path of a plan: the action, and the content before and after."""

    path: PurePosixPath
    action: Action
    ownership: Ownership
    old: str | None
    """Content on disk now (None when the file does not exist)."""
    new: str | None
    """Content after applying (None for a deletion)."""
    edited: bool = False
    """A generated file whose content on disk is not what opgen last wrote: edited
    by hand since, and this change would lose the edit."""

    def diff(self, *, context: int = 2, max_lines: int = 40) -> str:
        """A short unified diff from what is on disk to what the plan wants."""
        lines = list(
            difflib.unified_diff(
                (self.old or "").splitlines(keepends=True),
                (self.new or "").splitlines(keepends=True),
                fromfile=f"a/{self.path}" if self.old is not None else "/dev/null",
                tofile=f"b/{self.path}" if self.new is not None else "/dev/null",
                n=context,
            )
        )
        lines = [line if line.endswith("\n") else line + "\n" for line in lines]
        if len(lines) > max_lines:
            hidden = len(lines) - max_lines
            lines = [*lines[:max_lines], f"... ({hidden} more diff lines)\n"]
        return "".join(lines)


@dataclass(frozen=True)
class Plan:
    """Every change a command would make, in path order."""

    root: Path
    changes: tuple[Change, ...]

    @property
    def writes(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.action.writes)

    @property
    def skipped(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.action is Action.SKIP)

    @property
    def hand_edited(self) -> tuple[Change, ...]:
        """The changes that would overwrite or delete a generated file edited by hand."""
        return tuple(c for c in self.writes if c.edited)

    def merge(self, other: Plan) -> Plan:
        """One plan holding the changes of both (same root, distinct paths)."""
        changes = sorted([*self.changes, *other.changes], key=lambda c: str(c.path))
        return Plan(self.root, tuple(changes))

    def user_file_hashes(self) -> dict[str, str]:
        """`path: sha256:<hex>` of each user-owned file this plan writes, as written
        (PROJECT keeps them so that `delete api` can tell an edited file)."""
        return {
            str(c.path): content_hash(c.new)
            for c in self.writes
            if c.ownership is Ownership.USER and c.new is not None
        }

    def injected_file_hashes(self, recorded: Mapping[str, str]) -> dict[str, str]:
        """`path: sha256:<hex>` of the injected files this plan creates, and of those
        it changes whose content still had its `recorded` hash (unedited by the user:
        they stay unedited). Injected files opgen never recorded stay untracked."""
        hashes = {}
        for change in self.writes:
            if change.ownership is not Ownership.INJECTED or change.new is None:
                continue
            path = str(change.path)
            if change.old is None or recorded.get(path) == content_hash(change.old):
                hashes[path] = content_hash(change.new)
        return hashes

    def drift(self) -> tuple[Change, ...]:
        """The changes `--check` reports: everything that would be written."""
        return self.writes

    def describe(self) -> list[str]:
        """One line per path: `<action> <path>` (for `--dry-run` and reports)."""
        lines = []
        for change in self.changes:
            note = ""
            if change.action is Action.SKIP:
                note = " (exists and is yours; --force overwrites it)"
            elif change.edited:
                note = " (edited by hand since opgen wrote it)"
            lines.append(f"{change.action.value:<9} {change.path}{note}")
        return lines

    def apply(self) -> tuple[Change, ...]:
        """Write the plan, all or nothing; return the changes made.

        An `OSError` (permissions, a full disk) becomes a `ScaffoldError`; the
        tree is left as it was.
        """
        writes = [
            (self.root.joinpath(*c.path.parts), c.new)
            for c in self.writes
            if c.new is not None
        ]
        removals = [
            self.root.joinpath(*c.path.parts)
            for c in self.writes
            if c.action is Action.DELETE
        ]
        try:
            replace_all(writes, removals, root=self.root)
        except OSError as error:
            where = error.filename or self.root
            raise ScaffoldError(
                f"cannot write {where}: {error.strerror or error}",
                hint="check the folder's permissions and free space; nothing was changed",
            ) from None
        return self.writes


def plan(
    files: Sequence[File],
    root: Path,
    *,
    force: bool = False,
    removals: Sequence[Removal] = (),
    generated: Mapping[str, str] | None = None,
) -> Plan:
    """Decide what writing `files` (and deleting `removals`) under `root` does;
    `generated`: `path: sha256:<hex>` of generated files as opgen last wrote them."""
    if root.exists() and not root.is_dir():
        raise ScaffoldError(
            "exists and is not a directory",
            location=Location(file=str(root)),
            hint="write into a folder (it is created if missing)",
        )
    paths = [f.path for f in files] + [r.path for r in removals]
    if len(set(paths)) != len(paths):
        duplicates = sorted({str(p) for p in paths if paths.count(p) > 1})
        raise ScaffoldError(
            f"internal error: the plan touches {', '.join(duplicates)} twice"
        )
    recorded = generated or {}
    changes = [_change_for(file, root, force=force) for file in files]
    changes = [
        _marked(c, recorded) if c.ownership is Ownership.GENERATED else c
        for c in changes
    ]
    for removal in removals:
        target = removal.target(root)
        if target.is_file():
            old = target.read_text(encoding="utf-8")
            deletion = Change(removal.path, Action.DELETE, Ownership.USER, old, None)
            changes.append(_marked(deletion, recorded))
    return Plan(root, tuple(sorted(changes, key=lambda c: str(c.path))))


def apply(files: Sequence[File], root: Path, *, force: bool = False) -> list[File]:
    """Write `files` under `root`, all or nothing; return the files that changed.

    Existing USER files are skipped unless `force` is set (see `plan`).
    """
    the_plan = plan(files, root, force=force)
    written = {c.path for c in the_plan.apply()}
    return [f for f in files if f.path in written]


def _marked(change: Change, recorded: Mapping[str, str]) -> Change:
    """`change`, marked `edited` when it loses content other than what opgen last
    wrote at its path (a path with no recorded hash is taken as opgen's)."""
    known = recorded.get(str(change.path))
    if (
        known is None
        or change.old is None
        or not change.action.writes
        or content_hash(change.old) == known
    ):
        return change
    return replace(change, edited=True)


def _change_for(file: File, root: Path, *, force: bool) -> Change:
    target = file.target(root)
    if target.is_dir():
        raise ScaffoldError(
            f"{file.path}: a directory is in the way of this file",
            hint="move the directory away, then run the command again",
        )
    if not target.exists():
        return Change(file.path, Action.CREATE, file.ownership, None, file.content)
    old = target.read_text(encoding="utf-8")
    if file.ownership is Ownership.INJECTED:
        new = splice(old, file.regions, path=str(file.path))
        new = insert(new, file.insertions, path=str(file.path))
    else:
        new = file.content
    if old == new:
        return Change(file.path, Action.UNCHANGED, file.ownership, old, new)
    if file.ownership is Ownership.USER and not force:
        return Change(file.path, Action.SKIP, file.ownership, old, old)
    return Change(file.path, Action.UPDATE, file.ownership, old, new)
