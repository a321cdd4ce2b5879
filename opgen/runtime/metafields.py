"""Single fields of an object's metadata, read and written in wire form.

`resources.metadata(obj)` converts the whole metadata to wire form, and
`resources.set_metadata` validates all of it again: managedFields make that
the larger part of a reconcile helper that wants one field (the owner's uid,
the finalizers). These read and write one field of a Pydantic metadata model
by its wire name, and fall back to the whole conversion for anything else (a
dict, a field the model does not declare).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from opgen.runtime import resources

__all__ = ["get", "put"]

_PLAIN = (str, int, float, bool)

_attributes_of: dict[type[BaseModel], dict[str, str]] = {}
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
    if isinstance(meta, BaseModel):
        attribute = _attributes(type(meta)).get(name)
        if attribute is not None:
            try:
                return _wire(getattr(meta, attribute))
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
