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

The informer builds an entry from the JSON text the server sent
(`entry_from_json`): only the metadata fields above are decoded, and
`managedFields` is cut out of the text, so the object is never built in Python
nor encoded again.

Indexes: by namespace and by controller-owner UID always; user-defined ones
(`add_index(name, fn)`) map an object to any number of string values. A
replaced entry moves only in the indexes whose values changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
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
    "entry_from_json",
]

Key = tuple[str, str]  # (namespace or "", name)
NAMESPACE_INDEX = "namespace"
OWNER_INDEX = "controller-owner-uid"

UNREAD: object = object()
"""An entry's `decoded` before its first read."""

_decode = msgspec.json.decode
_encode = msgspec.json.encode

_NONE: Mapping[str, str] = MappingProxyType({})
"""The labels or annotations of every entry that has none (most annotations)."""


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
    key: Key = field(init=False, compare=False, repr=False)
    """(namespace, name): one tuple, shared by the store's map and its indexes."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", (self.namespace, self.name))

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
        namespace=_shared(meta.get("namespace") or ""),
        name=meta.get("name") or "",
        uid=meta.get("uid") or "",
        resource_version=meta.get("resourceVersion") or "",
        generation=meta.get("generation"),
        labels=_shared_labels(meta.get("labels")),
        annotations=meta.get("annotations") or _NONE,
        owner_references=_references(meta.get("ownerReferences")),
        finalizers=tuple(meta.get("finalizers") or ()),
        deletion_timestamp=meta.get("deletionTimestamp"),
        raw=raw,
    )


class _Metadata(msgspec.Struct):
    """The metadata fields an entry keeps; the rest are skipped unread."""

    namespace: str | None = None
    name: str | None = None
    uid: str | None = None
    resourceVersion: str | None = None
    generation: int | None = None
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None
    ownerReferences: list[dict[str, Any]] | None = None
    finalizers: list[str] | None = None
    deletionTimestamp: str | None = None
    managedFields: msgspec.Raw = msgspec.Raw()


class _Object(msgspec.Struct):
    apiVersion: str | msgspec.UnsetType = msgspec.UNSET
    kind: str | msgspec.UnsetType = msgspec.UNSET
    metadata: _Metadata | None = None


_decode_object = msgspec.json.Decoder(_Object).decode
_MANAGED_FIELDS = b'"managedFields":'


def entry_from_json(raw: bytes, api_version: str, kind: str) -> Entry:
    """The entry of an object as the server sent it: `entry_from_dict` of it with
    `apiVersion` and `kind` filled in where missing, without building the object
    in Python: only its metadata is decoded, and `managedFields` is cut out of the
    JSON text. JSON this cannot take apart that way goes through `entry_from_dict`."""
    try:
        obj = _decode_object(raw)
    except msgspec.ValidationError:
        obj = None
    meta = obj.metadata if obj is not None else None
    if obj is None or meta is None:
        return _from_dict(raw, api_version, kind)
    managed = meta.managedFields
    if len(managed):
        cut = _without(raw, _MANAGED_FIELDS + bytes(managed))
        if cut is None:
            return _from_dict(raw, api_version, kind)
        raw = cut
    missing = b""
    if obj.apiVersion is msgspec.UNSET:
        missing += b'"apiVersion":' + _encode(api_version) + b","
    if obj.kind is msgspec.UNSET:
        missing += b'"kind":' + _encode(kind) + b","
    if missing:
        if raw[:1] != b"{":
            return _from_dict(raw, api_version, kind)
        raw = b"{" + missing + raw[1:]
    return Entry(
        namespace=_shared(meta.namespace or ""),
        name=meta.name or "",
        uid=meta.uid or "",
        resource_version=meta.resourceVersion or "",
        generation=meta.generation,
        labels=_shared_labels(meta.labels),
        annotations=meta.annotations or _NONE,
        owner_references=_references(meta.ownerReferences),
        finalizers=tuple(meta.finalizers or ()),
        deletion_timestamp=meta.deletionTimestamp,
        raw=raw,
    )


_SHARED: dict[str, str] = {}
_SHARED_MAX = 4096
"""Distinct strings `_shared` remembers; it forgets them all beyond that (each
entry keeps its own). Not `sys.intern`: Python 3.12 keeps interned strings for the
process's life, and label values may be one per object."""


def _shared(text: str) -> str:
    """`text`, or an equal string an earlier entry already holds: namespaces, label
    keys and values, owners' apiVersion and kind repeat across a kind's objects."""
    shared = _SHARED.setdefault(text, text)
    if len(_SHARED) > _SHARED_MAX:
        _SHARED.clear()
    return shared


def _shared_labels(labels: dict[str, str] | None) -> Mapping[str, str]:
    """The labels, their keys and values `_shared`."""
    if not labels:
        return _NONE
    return {_shared(key): _shared(value) for key, value in labels.items()}


_SHARED_REFERENCE_FIELDS = ("apiVersion", "kind")


def _references(
    references: list[dict[str, Any]] | None,
) -> tuple[Mapping[str, Any], ...]:
    """Owner references with their owner's apiVersion and kind shared (every child
    of one kind of owner names the same)."""
    if not references:
        return ()
    for reference in references:
        for name in _SHARED_REFERENCE_FIELDS:
            value = reference.get(name)
            if type(value) is str:
                reference[name] = _shared(value)
    return tuple(references)


def _from_dict(raw: bytes, api_version: str, kind: str) -> Entry:
    data = _decode(raw)
    data.setdefault("apiVersion", api_version)
    data.setdefault("kind", kind)
    return entry_from_dict(data)


def _without(raw: bytes, member: bytes) -> bytes | None:
    """`raw` with one object member (`"key":value`, as the server writes it, without
    spaces) and its separating comma removed; None if it is not there so."""
    start = raw.find(member)
    if start < 1:
        return None
    end = start + len(member)
    if raw[start - 1 : start] == b",":
        return raw[: start - 1] + raw[end:]
    if raw[start - 1 : start] == b"{":
        if raw[end : end + 1] == b",":
            end += 1
        elif raw[end : end + 1] != b"}":
            return None
        return raw[:start] + raw[end:]
    return None


IndexFunc = Callable[[Entry], Iterable[str]]

_Keys = Key | set[Key]
"""The keys under one index value: one key alone (an owner's one child, a unique
value), a set once there are more; a set of one costs about 200 bytes more."""


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
        self._indexes: dict[str, dict[str, _Keys]] = {
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
            keys = self._indexes[name].get(value)
        except KeyError:
            raise KeyError(f"no index named {name!r}") from None
        if keys is None:
            return []
        if not isinstance(keys, set):
            return [self._items[keys]]
        return [self._items[k] for k in sorted(keys)]

    def upsert(self, entry: Entry) -> Entry | None:
        """Insert or replace; returns the previous entry."""
        key = entry.key
        old = self._items.get(key)
        self._items[key] = entry
        if old is None:
            for name in self._index_funcs:
                self._index_one(name, entry)
            return old
        for name, func in self._index_funcs.items():
            if name == NAMESPACE_INDEX:
                continue  # the same key, the same namespace
            before, after = tuple(func(old)), tuple(func(entry))
            if before == after:
                continue  # most updates: only the indexes they change are touched
            index = self._indexes[name]
            for value in set(before).difference(after):
                self._drop(index, value, key)
            for value in set(after).difference(before):
                self._add(index, value, key)
        return old

    def delete(self, key: Key) -> Entry | None:
        old = self._items.pop(key, None)
        if old is not None:
            self._unindex(old)
        return old

    def _index_one(self, name: str, entry: Entry) -> None:
        index = self._indexes[name]
        key = entry.key
        for value in self._index_funcs[name](entry):
            self._add(index, value, key)

    def _unindex(self, entry: Entry) -> None:
        key = entry.key
        for name, func in self._index_funcs.items():
            index = self._indexes[name]
            for value in func(entry):
                self._drop(index, value, key)

    @staticmethod
    def _add(index: dict[str, _Keys], value: str, key: Key) -> None:
        keys = index.get(value)
        if keys is None:
            index[value] = key
        elif isinstance(keys, set):
            keys.add(key)
        elif keys != key:
            index[value] = {keys, key}

    @staticmethod
    def _drop(index: dict[str, _Keys], value: str, key: Key) -> None:
        keys = index.get(value)
        if keys is None:
            return
        if not isinstance(keys, set):
            if keys == key:
                del index[value]
            return
        keys.discard(key)
        if len(keys) == 1:
            index[value] = keys.pop()
        elif not keys:
            del index[value]
