"""Single fields of an object's metadata, read and written in wire form.

`resources.metadata(obj)` converts the whole metadata to wire form, and
`resources.set_metadata` validates all of it again: managedFields make that
the larger part of a reconcile helper that wants one field (the owner's uid,
the finalizers). These read and write one field of a Pydantic metadata model
by its wire name, and fall back to the whole conversion for anything else (a
dict, a field the model does not declare).

`typed(obj)` gives the metadata as an `op.ObjectMeta` to read and change
through its attributes (`OwnerReference` models, not dicts): the object's own,
no conversion either way, for every kind; for any other metadata (a dict) a
validated copy, whose changed fields `write_back` puts back. A helper written
against it has one path for both.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import BaseModel, TypeAdapter

from opgen.api import ObjectMeta
from opgen.runtime import resources

__all__ = ["get", "put", "typed", "write_back"]


_PLAIN = (str, int, float, bool)
_SCALARS = frozenset(_PLAIN)

_attributes_of: dict[type, dict[str, str]] = {}
"""Per metadata model: wire name → attribute name."""


def _attributes(cls: type[BaseModel]) -> dict[str, str]:
    found = _attributes_of.get(cls)
    if found is None:
        found = _attributes_of[cls] = {
            field.serialization_alias or field.alias or name: name
            for name, field in cls.model_fields.items()
        }
    return found


class _NotPlain(Exception):
    """A value whose wire form this module does not compute itself (a timestamp)."""


def _wire(value: Any) -> Any:
    """`value` in wire form: models dumped as `resources.metadata` dumps them,
    containers copied (the caller may change what it gets)."""
    if value is None or isinstance(value, _PLAIN):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(value, list):
        return [_wire(item) for item in value]
    if isinstance(value, dict):
        return {key: _wire(item) for key, item in value.items()}
    raise _NotPlain


def get(obj: object, name: str) -> Any:
    """`obj.metadata`'s field `name` (its wire name: "ownerReferences") in wire
    form, None when unset; the same as `resources.metadata(obj).get(name)`."""
    meta = getattr(obj, "metadata", None)
    attributes = _attributes_of.get(type(meta))  # a model's, without isinstance
    if attributes is None and isinstance(meta, BaseModel):
        attributes = _attributes(type(meta))
    if attributes is not None:
        attribute = attributes.get(name)
        if attribute is not None:
            value = getattr(meta, attribute)
            if value is None or type(value) in _SCALARS:
                return value
            try:
                return _wire(value)
            except _NotPlain:
                pass
    elif isinstance(meta, Mapping):
        return meta.get(name)
    return resources.metadata(obj).get(name)


def put(obj: object, name: str, value: Any) -> None:
    """Set `obj.metadata`'s field `name` (wire name) to the wire-form `value`,
    validated into the model's type as `resources.set_metadata` would."""
    meta = getattr(obj, "metadata", None)
    if isinstance(meta, BaseModel):
        attribute = _attributes(type(meta)).get(name)
        if attribute is not None:
            meta.__pydantic_validator__.validate_assignment(meta, attribute, value)
            return
    merged = resources.metadata(obj)
    merged[name] = value
    resources.set_metadata(obj, merged)


def typed(obj: object) -> ObjectMeta:
    """`obj.metadata` as an `op.ObjectMeta`, to read and change through its typed
    attributes: the object's own when it holds one (every kind's metadata),
    changed in place; else one validated from the wire form (a dict, another
    model, none), a copy: `write_back` the fields changed."""
    meta = getattr(obj, "metadata", None)
    if type(meta) is ObjectMeta or isinstance(meta, ObjectMeta):
        return meta
    return ObjectMeta.model_validate(resources.metadata(obj))


def write_back(obj: object, meta: ObjectMeta, names: Iterable[str]) -> None:
    """Put the fields `names` (wire names) of `meta`, which `typed(obj)` gave, into
    `obj.metadata`, validated into its type as `resources.set_metadata` does;
    nothing to do when `meta` is the object's own."""
    if getattr(obj, "metadata", None) is meta:
        return
    attributes = _attributes(ObjectMeta)
    merged = resources.metadata(obj)
    for name in names:
        value = getattr(meta, attributes[name])
        merged[name] = (
            None
            if value is None
            else _adapter(type(value)).dump_python(
                value, mode="json", by_alias=True, exclude_none=True
            )
        )
    resources.set_metadata(obj, merged)


_adapter: Callable[[Any], TypeAdapter[Any]] = functools.cache(TypeAdapter)
