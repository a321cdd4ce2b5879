"""`metadata.managedFields` as the server keeps them, and server-side apply.

Every write records who set which fields. An update (a create, an update, a
merge or JSON patch) gives its manager the fields it added or changed
(operation `Update`, one entry per manager, apiVersion and subresource);
an apply gives its manager exactly the fields it applied (operation
`Apply`). Fields a write removes leave every manager's set; a manager left
with no fields leaves the list. An apply whose fields another manager owns
with another value is a conflict (409 naming them) unless it forces, which
takes them over; the fields a manager applied before and applies no more are
removed, unless another manager owns them too. Fields the server sets
itself (`metadata.name`, `uid`, ...) are nobody's; with a status
subresource, a write to the object does not record `status`, and a write to
`/status` records only `status`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from opgen.testing.memory import answers
from opgen.testing.memory.fields import (
    Path,
    from_fields_v1,
    members,
    merge,
    path_text,
    remove,
    to_fields_v1,
    without_equal,
)

__all__ = ["Entry", "Write", "apply", "read_entries", "record_update", "write_entries"]

APPLY = "Apply"
UPDATE = "Update"

_SERVER_SET = (
    ("f:apiVersion",),
    ("f:kind",),
    *(
        ("f:metadata", f"f:{name}")
        for name in (
            "name",
            "namespace",
            "uid",
            "resourceVersion",
            "generation",
            "creationTimestamp",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "selfLink",
            "managedFields",
        )
    ),
)


_SERVER_SET_FIRST = frozenset(s[0] for s in _SERVER_SET if len(s) == 1)
_SERVER_SET_METADATA = frozenset(s[1] for s in _SERVER_SET if len(s) == 2)


def _server_set(path: Path) -> bool:
    """Whether `path` is, or is inside, a field of `_SERVER_SET` (looked up by
    its first two steps: every write asks this of every path)."""
    if not path:
        return False
    if path[0] in _SERVER_SET_FIRST:
        return True
    return path[0] == "f:metadata" and len(path) > 1 and path[1] in _SERVER_SET_METADATA


@dataclass(frozen=True)
class Entry:
    """One manager's fields, as one item of `managedFields`."""

    manager: str
    operation: str
    api_version: str
    subresource: str
    time: str
    fields: frozenset[Path]
    fields_v1: Mapping[str, Any] | None = field(default=None, compare=False)
    """`fields` as the stored entry wrote them (None: not written yet)."""

    def identity(self) -> tuple[str, str, str, str]:
        """What makes two entries one: an applier's apiVersion does not."""
        version = "" if self.operation == APPLY else self.api_version
        return (self.manager, self.operation, version, self.subresource)

    def document(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "manager": self.manager,
            "operation": self.operation,
            "apiVersion": self.api_version,
            "time": self.time,
            "fieldsType": "FieldsV1",
            "fieldsV1": (
                _tree(self.fields) if self.fields_v1 is None else self.fields_v1
            ),
        }
        if self.subresource:
            entry["subresource"] = self.subresource
        return entry


@dataclass(frozen=True)
class Write:
    """Who writes: the manager, the kind's apiVersion and schema, the subresource."""

    manager: str
    api_version: str
    schema: Mapping[str, Any] | None
    subresource: str
    status_subresource: bool
    """Whether the kind has a status subresource (its writes split fields)."""
    time: str

    def recorded(self, paths: set[Path]) -> set[Path]:
        """The paths of `paths` this write may own."""
        kept = {p for p in paths if not _server_set(p)}
        if self.subresource == "status":
            return {p for p in kept if p[:1] == ("f:status",)}
        if self.status_subresource:
            return {p for p in kept if p[:1] != ("f:status",)}
        return kept

    def part(self, obj: dict[str, Any]) -> dict[str, Any]:
        """The top-level fields of `obj` whose paths `recorded` may keep: a
        walk of the rest would find only paths it drops (a path's members and
        parents lie under its own top-level field)."""
        if self.subresource == "status":
            return {key: value for key, value in obj.items() if key == "status"}
        if self.status_subresource:
            return {key: value for key, value in obj.items() if key != "status"}
        return obj

    def entry(self, operation: str, fields: set[Path]) -> Entry:
        return Entry(
            self.manager,
            operation,
            self.api_version,
            self.subresource,
            self.time,
            frozenset(fields),
        )


_TREES: dict[frozenset[Path], Mapping[str, Any]] = {}
"""The `fieldsV1` trees written, by their field sets: a test writes the same
objects, with the same fields, again and again. A tree is shared, as a
stored object's parts are: only to read."""
_PATHS: dict[int, tuple[Mapping[str, Any], frozenset[Path]]] = {}
"""The field set of each tree of `_TREES` (or read), by the tree's `id` (the
tree is held, so its `id` is not reused): a stored object's entries are read
back from the trees its write wrote."""
_MOST_TREES = 4096
"""Trees `_TREES` and `_PATHS` hold at most (each is emptied when full)."""


def _tree(fields: frozenset[Path]) -> Mapping[str, Any]:
    """`to_fields_v1(fields)`, made once for equal field sets."""
    tree = _TREES.get(fields)
    if tree is None:
        if len(_TREES) >= _MOST_TREES:
            _TREES.clear()
        tree = _TREES[fields] = to_fields_v1(fields)
        _known(tree, fields)
    return tree


def _known(tree: Mapping[str, Any], fields: frozenset[Path]) -> None:
    if len(_PATHS) >= _MOST_TREES:
        _PATHS.clear()
    _PATHS[id(tree)] = (tree, fields)


def _paths(tree: Mapping[str, Any]) -> frozenset[Path]:
    """`from_fields_v1(tree)`, read once for a tree this module wrote or read."""
    known = _PATHS.get(id(tree))
    if known is not None and known[0] is tree:
        return known[1]
    fields = frozenset(from_fields_v1(tree))
    _known(tree, fields)
    return fields


def read_entries(meta: Mapping[str, Any]) -> list[Entry]:
    return [
        Entry(
            item.get("manager", ""),
            item.get("operation", UPDATE),
            item.get("apiVersion", ""),
            item.get("subresource", ""),
            item.get("time", ""),
            _paths(item.get("fieldsV1") or {}),
            item.get("fieldsV1") or {},
        )
        for item in meta.get("managedFields") or ()
    ]


def write_entries(entries: list[Entry]) -> list[dict[str, Any]]:
    """The entries in the server's order: appliers first, then by time and manager."""
    ordered = sorted(
        entries,
        key=lambda e: (e.operation, e.time, e.manager, e.api_version, e.subresource),
    )
    return [entry.document() for entry in ordered]


_UNSET = object()


def _differing(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The top-level fields whose values differ between `old` and `new`: a
    field's paths lie under it alone, so the others add, change and remove
    nothing, and are not walked (compared whole, in C, instead)."""
    return [
        key for key in {**old, **new} if old.get(key, _UNSET) != new.get(key, _UNSET)
    ]


def _walked(part: dict[str, Any], keys: list[str]) -> dict[str, Any]:
    """The fields `keys` of `part`; `metadata` without `managedFields`, whose
    paths are all the server's (`_server_set`), which no write records."""
    walked = {key: part[key] for key in keys if key in part}
    meta = walked.get("metadata")
    if isinstance(meta, dict) and "managedFields" in meta:
        walked["metadata"] = {k: v for k, v in meta.items() if k != "managedFields"}
    return walked


def _changes(
    write: Write, old: dict[str, Any], new: dict[str, Any]
) -> tuple[set[Path], set[Path]]:
    """The paths `new` adds or changes, and those it removes, from `old`."""
    old_part, new_part = write.part(old), write.part(new)
    keys = _differing(old_part, new_part)
    old_walked, new_walked = without_equal(
        write.schema, _walked(old_part, keys), _walked(new_part, keys), root=True
    )
    before = members(old_walked, write.schema, every_node=True)
    after = members(new_walked, write.schema, every_node=True)
    if not before:  # a create: every path is new
        return write.recorded(set(after)), set()
    parents = {path[:n] for path in after for n in range(1, len(path))}
    changed = {
        path
        for path, value in after.items()
        if path not in before or (path not in parents and before[path] != value)
    }
    return write.recorded(changed), write.recorded(set(before) - set(after))


def _stamped(entry: Entry, fields: set[Path], write: Write) -> Entry:
    """`entry` with `fields`; its time is the write's when they changed."""
    if fields == entry.fields:
        return entry
    return Entry(
        entry.manager,
        entry.operation,
        entry.api_version,
        entry.subresource,
        write.time,
        frozenset(fields),
    )


def record_update(
    entries: list[Entry], old: dict[str, Any], new: dict[str, Any], write: Write
) -> list[Entry]:
    """The entries after `write.manager` wrote `new` over `old` by an update."""
    changed, removed = _changes(write, old, new)
    mine = write.entry(UPDATE, set())
    result = []
    for entry in entries:
        if entry.identity() == mine.identity():
            mine = entry
            continue
        result.append(_stamped(entry, set(entry.fields) - changed - removed, write))
    result.append(_stamped(mine, (set(mine.fields) - removed) | changed, write))
    return [entry for entry in result if entry.fields]


def apply(
    entries: list[Entry],
    live: dict[str, Any],
    config: dict[str, Any],
    write: Write,
    force: bool,
) -> tuple[dict[str, Any], list[Entry]]:
    """`config` applied by `write.manager` over `live`: the object and its entries
    (a `Refusal` 409 listing the conflicts when not forced)."""
    applied = write.recorded(set(members(config, write.schema)))
    mine = write.entry(APPLY, applied)
    others = [e for e in entries if e.identity() != mine.identity()]
    before = next((e for e in entries if e.identity() == mine.identity()), None)
    merged = merge(write.schema, live, config)
    if before is not None:
        owned = set().union(*(e.fields for e in others))
        merged = remove(write.schema, merged, set(before.fields) - applied - owned)
    changed, removed = _changes(write, live, merged)
    conflicts = [(e, sorted(e.fields & changed)) for e in others if e.fields & changed]
    if conflicts and not force:
        raise _conflict(conflicts)
    result = [_stamped(e, set(e.fields) - changed - removed, write) for e in others]
    if before is not None and before.fields == frozenset(applied):
        mine = before
    result.append(mine)
    return merged, [entry for entry in result if entry.fields]


def _manager_text(entry: Entry) -> str:
    text = f'"{entry.manager}"'
    if entry.subresource:
        text += f' with subresource "{entry.subresource}"'
    if entry.operation == UPDATE:
        text += f" using {entry.api_version}"
    return text


def _conflict(conflicts: list[tuple[Entry, list[Path]]]) -> answers.Refusal:
    causes = [
        {
            "reason": "FieldManagerConflict",
            "message": f"conflict with {_manager_text(entry)}",
            "field": path_text(path),
        }
        for entry, paths in conflicts
        for path in paths
    ]
    if len(causes) == 1:
        message = (
            f"Apply failed with 1 conflict: {causes[0]['message']}: "
            f"{causes[0]['field']}"
        )
    else:
        lines = []
        for entry, paths in sorted(conflicts, key=lambda c: _manager_text(c[0])):
            lines.append(f"conflicts with {_manager_text(entry)}:")
            lines += [f"- {path_text(path)}" for path in paths]
        message = f"Apply failed with {len(causes)} conflicts: " + "\n".join(lines)
    return answers.status(409, "Conflict", message, {"causes": causes})
