"""The informer's store: one compact entry per object, plus indexes.

An entry keeps the object's JSON bytes (without `managedFields`) and the few
metadata fields predicates, handlers and indexes need: storing a version decodes
nothing into the kind's model. The first read of the entry does
(`decoding.Decoder.read`) and keeps the outcome in it (`decoded`: for a user
model, a pickle of the validated object, or the problems when it does not fit),
so each stored version is validated at most once, and only if something reads
it: a version replaced before any read (a status change the predicates filter
out, a burst of updates) costs its JSON alone. Every read builds a fresh object
from that, so a reconciler may mutate what it read without corrupting the cache,
and cached objects cost bytes, not a tree of Python objects.

Indexes: by namespace and by controller-owner UID always; user-defined ones
(`add_index(name, fn)`) map an object to any number of string values.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

__all__ = [
    "NAMESPACE_INDEX",
    "OWNER_INDEX",
    "UNREAD",
    "Entry",
    "Key",
    "Store",
    "entry_from_dict",
]

Key = tuple[str, str]  # (namespace or "", name)
NAMESPACE_INDEX = "namespace"
OWNER_INDEX = "controller-owner-uid"

UNREAD: object = object()
"""An entry's `decoded` before its first read."""

_decode = msgspec.json.decode
_encode = msgspec.json.encode


@dataclass(frozen=True, slots=True)
class Entry:
    """One cached object: its JSON and the metadata the runtime looks at."""

    namespace: str
    name: str
    uid: str
    resource_version: str
    generation: int | None
    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    owner_references: tuple[Mapping[str, Any], ...]
    finalizers: tuple[str, ...]
    deletion_timestamp: str | None
    raw: bytes
    decoded: object = field(default=UNREAD, compare=False, repr=False)
    """What `decoding.Decoder.prepare` made of `raw` (None: decode `raw` on each
    read), set at the entry's first read (`keep`)."""

    @property
    def key(self) -> Key:
        return (self.namespace, self.name)

    def controller_owner(self) -> Mapping[str, Any] | None:
        """The owner reference with `controller: true`, if any."""
        for ref in self.owner_references:
            if ref.get("controller"):
                return ref
        return None

    def to_dict(self) -> dict[str, Any]:
        return dict(_decode(self.raw))

    def keep(self, decoded: object) -> None:
        """Remember what the first read made of `raw`. The one field set after
        construction: it belongs to this version, so a newer entry replacing this
        one in the store starts unread while readers of this one keep theirs."""
        object.__setattr__(self, "decoded", decoded)


def entry_from_dict(data: dict[str, Any]) -> Entry:
    """Build an entry from a decoded object, dropping `metadata.managedFields` in
    place; its model is decoded at its first read, not here."""
    meta = data.get("metadata") or {}
    meta.pop("managedFields", None)
    raw = _encode(data)
    return Entry(
        namespace=meta.get("namespace") or "",
        name=meta.get("name") or "",
        uid=meta.get("uid") or "",
        resource_version=meta.get("resourceVersion") or "",
        generation=meta.get("generation"),
        labels=meta.get("labels") or {},
        annotations=meta.get("annotations") or {},
        owner_references=tuple(meta.get("ownerReferences") or ()),
        finalizers=tuple(meta.get("finalizers") or ()),
        deletion_timestamp=meta.get("deletionTimestamp"),
        raw=raw,
    )


IndexFunc = Callable[[Entry], Iterable[str]]


def _namespace_index(entry: Entry) -> Iterable[str]:
    return (entry.namespace,)


def _owner_index(entry: Entry) -> Iterable[str]:
    owner = entry.controller_owner()
    return (str(owner["uid"]),) if owner and owner.get("uid") else ()


class Store:
    """Entries by key, with indexes kept up to date on every change."""

    def __init__(self) -> None:
        self._items: dict[Key, Entry] = {}
        self._index_funcs: dict[str, IndexFunc] = {
            NAMESPACE_INDEX: _namespace_index,
            OWNER_INDEX: _owner_index,
        }
        self._indexes: dict[str, dict[str, set[Key]]] = {
            name: {} for name in self._index_funcs
        }

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __iter__(self) -> Iterator[Entry]:
        return iter(list(self._items.values()))

    def keys(self) -> list[Key]:
        return list(self._items)

    def get(self, key: Key) -> Entry | None:
        return self._items.get(key)

    def add_index(self, name: str, func: IndexFunc) -> None:
        """Index entries by `func(entry)`'s values; existing entries are indexed now."""
        if name in self._index_funcs:
            raise ValueError(f"index {name!r} already exists")
        self._index_funcs[name] = func
        self._indexes[name] = {}
        for entry in self._items.values():
            self._index_one(name, entry)

    def by_index(self, name: str, value: str) -> list[Entry]:
        """Entries whose index `name` contains `value`."""
        try:
            keys = self._indexes[name].get(value, ())
        except KeyError:
            raise KeyError(f"no index named {name!r}") from None
        return [self._items[k] for k in sorted(keys)]

    def upsert(self, entry: Entry) -> Entry | None:
        """Insert or replace; returns the previous entry."""
        old = self._items.get(entry.key)
        if old is not None:
            self._unindex(old)
        self._items[entry.key] = entry
        for name in self._index_funcs:
            self._index_one(name, entry)
        return old

    def delete(self, key: Key) -> Entry | None:
        old = self._items.pop(key, None)
        if old is not None:
            self._unindex(old)
        return old

    def _index_one(self, name: str, entry: Entry) -> None:
        index = self._indexes[name]
        for value in self._index_funcs[name](entry):
            index.setdefault(value, set()).add(entry.key)

    def _unindex(self, entry: Entry) -> None:
        for name, func in self._index_funcs.items():
            index = self._indexes[name]
            for value in func(entry):
                keys = index.get(value)
                if keys is not None:
                    keys.discard(entry.key)
                    if not keys:
                        del index[value]
