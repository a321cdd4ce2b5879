"""Apply if changed: a server-side apply that costs no request when the object
already is what would be applied.

A reconciler that builds each child whole and applies it still sends one
request per child per reconcile, converged or not. `apply_if_changed`
compares first, against the live object (read from the cache), and skips
the apply when both hold:

- **the live object holds every field `desired` sets**, with the same value.
  The API server adds defaults (a container's `terminationMessagePath`, a
  Service's `clusterIP`), so fields `desired` does not set are ignored;
  lists must have the same length, item by item; quantities in resource maps
  compare by value (`1000m` is `1`). A change someone else made to one of
  these fields (`kubectl scale` of a Deployment) fails this, and the apply
  puts it back;
- **its hash annotation is the hash of what would be applied**. This catches
  a field the operator *stopped* setting (a `command` removed from a
  template), which the live object still has and the comparison above cannot
  tell from a server default; the apply then drops it. The annotation is
  named by the caller, in its own domain (`ray.io/applied-hash`).

Of the live object only what the first check reads is converted to the wire
form: the top-level fields `desired` has and, of its metadata, the keys
`desired` has. The rest (status, times, the server's bookkeeping) is most of
a live object's conversion and is never compared. A live object of a built-in
kind that a cached read handed out is not converted at all: those fields are
taken from the JSON the read made it from (`resources.read_from`), the object
as the API server sent it, which is what the apply would change. Changes the
caller made to that copy since the read are not compared (its stamp aside: a
changed stamp still applies).
"""

from __future__ import annotations

import enum
import functools
import hashlib
import json
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Annotated, Any, Literal, TypeVar, cast

import msgspec
from pydantic import BaseModel, PlainSerializer, WrapSerializer
from typing_extensions import TypeAliasType

from opgen.api import ObjectMeta
from opgen.engine.openapi import quantity_amount
from opgen.runtime import errors, resources
from opgen.runtime.client import Client
from opgen.runtime.writes import Operation

__all__ = ["apply_if_changed", "holds", "stamp", "up_to_date"]

T = TypeVar("T")

QUANTITY_MAPS = frozenset({"limits", "requests", "overhead", "capacity", "hard"})
"""Maps whose values are quantities (resource requirements, pod overhead, quotas)."""


_KEY_SETS_KEPT = 1024
"""Key sets (the top-level fields of a kind's desired objects) whose decoders and
includes are kept: the same for every reconcile of a kind."""


class _Unread:
    """`live` was not given: read it."""


_UNREAD = _Unread()


async def apply_if_changed(
    client: Client,
    desired: T,
    *,
    annotation: str,
    live: T | _Unread | None = _UNREAD,
    field_manager: str | None = None,
    force: bool = False,
) -> tuple[T, Operation]:
    """Server-side apply `desired` unless the live object already holds it; returns
    the object as it now is and what was done (`CREATED` when there was none,
    `UPDATED`, or `UNCHANGED`: the live object, and no request).

    `desired` is stamped with `annotation`, the hash of the rest of it. `live` is
    the object as it is (None: there is none); when not given it is read
    through the client (the cache, for the manager's client)."""
    desired_wire = _stamped_wire(desired, annotation)
    if isinstance(live, _Unread):
        meta = resources.metadata(desired)
        try:
            live = await client.get(
                type(desired), str(meta["name"]), meta.get("namespace")
            )
        except errors.NotFound:
            live = None
    if live is not None and _up_to_date(live, desired, annotation, desired_wire):
        return live, Operation.UNCHANGED
    applied = await client.apply(desired, field_manager=field_manager, force=force)
    return applied, Operation.CREATED if live is None else Operation.UPDATED


def stamp(obj: object, annotation: str) -> None:
    """Set `obj`'s `annotation` to the hash of the rest of it."""
    _stamped_wire(obj, annotation)


def _stamped_wire(obj: object, annotation: str) -> dict[str, Any]:
    """`stamp(obj, annotation)`, returning `obj`'s wire form as stamped: one
    conversion to the wire form, hashed with the annotation left out."""
    wire = _wire(obj)
    meta = wire.setdefault("metadata", {})
    annotations = {
        k: v for k, v in (meta.get("annotations") or {}).items() if k != annotation
    }
    meta["annotations"] = annotations
    body = _canonical(wire, _float_check(type(obj)))
    annotations[annotation] = hashlib.sha256(body).hexdigest()[:16]
    current = getattr(obj, "metadata", None)
    if isinstance(current, ObjectMeta):
        # a copy, as set_metadata makes: the metadata may be shared with another object
        obj.metadata = _with_annotations(current, dict(annotations))  # type: ignore[attr-defined]
    else:
        resources.set_metadata(obj, meta)
    return wire


_set = object.__setattr__


def _with_annotations(meta: ObjectMeta, annotations: dict[str, str]) -> ObjectMeta:
    """`meta.model_copy(update={"annotations": annotations})`, built directly (a
    shallow copy, as model_copy makes) for a fraction of its cost."""
    duplicate = ObjectMeta.__new__(type(meta))
    values = meta.__dict__.copy()
    values["annotations"] = annotations
    _set(duplicate, "__dict__", values)
    _set(
        duplicate,
        "__pydantic_fields_set__",
        {*meta.__pydantic_fields_set__, "annotations"},
    )
    extra = meta.__pydantic_extra__
    _set(duplicate, "__pydantic_extra__", None if extra is None else dict(extra))
    private = meta.__pydantic_private__
    _set(duplicate, "__pydantic_private__", None if private is None else dict(private))
    return duplicate


_encode_sorted = msgspec.json.Encoder(order="sorted").encode


class _FloatFound(Exception):
    pass


def _refuse_float(text: str) -> Any:
    raise _FloatFound(text)


_decode_integers = msgspec.json.Decoder(float_hook=_refuse_float).decode


Check = Callable[[Any], bool]
"""Whether a model's wire form (or a part of it) provably holds no float."""


def _never(value: Any) -> bool:
    return False


def _canonical(wire: dict[str, Any], no_float: Check = _never) -> bytes:
    """`json.dumps(wire, sort_keys=True, separators=(",", ":")).encode()`: what the
    stamp hashes. msgspec writes it, several times quicker, when its text is
    provably the same: ASCII with nothing escaped (json escapes DEL and all but
    printable ASCII), no null and no float (the two write some floats differently,
    `1e+16`; msgspec writes NaN as null). `no_float(wire)` proves there is no
    float from where the model's types allow one (`_float_check`); when it cannot,
    the text is parsed again to look for one. (A float assigned, unvalidated, to a
    field typed `int` escapes the proof: the stamp is then msgspec's text, still
    the same on every call, and an upgrade from a release that hashed json's text
    re-applies that one object once.)"""
    try:
        body = _encode_sorted(wire)
        if (
            body.isascii()
            and b"\\" not in body
            and b"\x7f" not in body
            and b"null" not in body
        ):
            if not no_float(wire):
                _decode_integers(body)
            return body
    except (_FloatFound, TypeError, OverflowError):
        pass
    return json.dumps(wire, sort_keys=True, separators=(",", ":")).encode()


def up_to_date(live: object, desired: object, annotation: str) -> bool:
    """Whether applying `desired` (stamped) would change nothing `live` holds."""
    return _up_to_date(live, desired, annotation, None)


def _up_to_date(
    live: object,
    desired: object,
    annotation: str,
    desired_wire: dict[str, Any] | None,
) -> bool:
    wanted = _stamp_of(desired, annotation)
    if wanted is None or wanted != _stamp_of(live, annotation):
        return False
    wire = _wire(desired) if desired_wire is None else desired_wire
    raw = resources.read_from(live)
    if raw is not None:
        return holds(_top_level(raw, tuple(wire)), wire)
    return holds(_wire(live, _compared(live, wire)), wire)


def _top_level(raw: bytes, keys: tuple[str, ...]) -> dict[str, Any]:
    """The `keys` of the JSON object `raw` that it has, decoded; its other fields
    are skipped unread."""
    values = msgspec.structs.astuple(_decoder_of(keys)(raw))
    return {
        key: value
        for key, value in zip(keys, values, strict=True)
        if value is not msgspec.UNSET
    }


@functools.lru_cache(maxsize=_KEY_SETS_KEPT)
def _decoder_of(keys: tuple[str, ...]) -> Callable[[bytes], msgspec.Struct]:
    names = [f"f{index}" for index in range(len(keys))]
    struct = msgspec.defstruct(
        "TopLevel",
        [(name, Any, msgspec.UNSET) for name in names],
        rename=dict(zip(names, keys, strict=True)),
    )
    return msgspec.json.Decoder(struct).decode


def holds(live: Any, desired: Any, *, quantities: bool = False) -> bool:
    """Whether `live` has every field of `desired` with the same value (wire form)."""
    if not desired:
        # An empty or zero value: the server omits it, so absent is the same.
        return not live
    if live == desired:
        return True  # most of a converged child: compared in C, not field by field
    kind = type(desired)  # a dump's dicts and lists: no isinstance through the ABCs
    if kind is dict or (kind is not list and isinstance(desired, Mapping)):
        if type(live) is not dict and not isinstance(live, Mapping):
            return False
        for key, value in desired.items():
            if not holds(
                live.get(key), value, quantities=quantities or key in QUANTITY_MAPS
            ):
                return False
        return True
    if kind is list or isinstance(desired, list):
        return (
            isinstance(live, list)
            and len(live) == len(desired)
            and all(holds(have, want) for have, want in zip(live, desired, strict=True))
        )
    if quantities and isinstance(desired, str) and isinstance(live, str):
        return _same_quantity(live, desired)
    return False


def _wire(obj: object, include: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return resources.resource_type(type(obj)).encode_obj(obj, include=include)


def _compared(live: object, desired: Mapping[str, Any]) -> dict[str, Any] | None:
    """The fields of `live` that `holds(..., desired)` reads, as `model_dump`'s
    `include` (shared: not to be changed); None: all of them. The same for every
    reconcile of a kind, so worked out once per key set."""
    meta = desired.get("metadata")
    meta_keys = tuple(meta) if isinstance(meta, Mapping) else None
    key = (type(live), tuple(desired), type(getattr(live, "metadata", None)), meta_keys)
    found = _INCLUDES.get(key, _UNREAD)
    if found is _UNREAD:
        if len(_INCLUDES) >= _KEY_SETS_KEPT:
            _INCLUDES.clear()
        found = _INCLUDES[key] = _include(*key)
    return cast("dict[str, Any] | None", found)


_INCLUDES: dict[tuple[Any, ...], object] = {}


def _include(
    cls: type, keys: tuple[str, ...], meta_cls: type, meta_keys: tuple[str, ...] | None
) -> dict[str, Any] | None:
    include = _named(cls, keys)
    if include is not None and "metadata" in include and meta_keys is not None:
        of_meta = _named(meta_cls, meta_keys)
        if of_meta is not None:
            include["metadata"] = of_meta
    return include


def _named(cls: type, wire: Iterable[str]) -> dict[str, Any] | None:
    """`{field name: True}` for the keys `wire`, fields of model `cls`; None
    when one is not a field (an extra) or `cls` is not a plain model."""
    fields = _fields_by_key(cls)
    if fields is None:
        return None
    include: dict[str, Any] = {}
    for key in wire:
        name = fields.get(key)
        if name is None:
            return None
        include[name] = True
    return include


@functools.cache
def _fields_by_key(cls: type) -> Mapping[str, str] | None:
    """Field names by wire name of model `cls`; None when `cls` is not a model
    whose `include`d dump is its whole dump cut down (a model serializer or a
    computed field may read other fields)."""
    if not (isinstance(cls, type) and issubclass(cls, BaseModel)):
        return None
    if (
        cls.__pydantic_decorators__.model_serializers
        or cls.__pydantic_computed_fields__
    ):
        return None
    return {
        info.serialization_alias or info.alias or name: name
        for name, info in cls.model_fields.items()
    }


def _stamp_of(obj: object, annotation: str) -> str | None:
    meta = getattr(obj, "metadata", None)
    if isinstance(meta, ObjectMeta):
        annotations: Mapping[str, Any] | None = meta.annotations
    else:
        annotations = resources.metadata(obj).get("annotations")
    value = (annotations or {}).get(annotation)
    return str(value) if value is not None else None


def _same_quantity(live: str, desired: str) -> bool:
    if live == desired:
        return True
    amount = quantity_amount(live)
    return amount is not None and amount == quantity_amount(desired)


_WIRE_KIND = frozenset({"apiVersion", "kind"})
"""Keys the encoder adds to an object's wire form: strings."""


def _float_check(cls: type) -> Check:
    """`_canonical`'s proof for the wire form of an object of `cls`."""
    found = _TOP_CHECKS.get(cls)
    if found is None:
        if isinstance(cls, type) and issubclass(cls, BaseModel):
            found = _model_check(cls, _WIRE_KIND) or _always
        else:
            found = _never
        _TOP_CHECKS[cls] = found
    return found


def _always(value: Any) -> bool:
    return True


_TOP_CHECKS: dict[type, Check] = {}
_MODEL_CHECKS: dict[tuple[type, frozenset[str]], Check | None] = {}
_PLAIN_TYPES = (str, int, bool, type(None))
"""Types whose values the JSON dump writes as strings, integers, booleans or null."""


def _model_check(cls: type[BaseModel], known: frozenset[str]) -> Check | None:
    """None when the wire form of a `cls` holds no float whatever its values, else
    a check of one (`known`: more keys its wire form has that are not fields)."""
    key = (cls, known)
    if key in _MODEL_CHECKS:
        return _MODEL_CHECKS[key]
    fields: list[tuple[str, Check]] = []
    keys = _fields_by_key(cls)
    extra = cls.model_config.get("extra") == "allow"
    if keys is None or cls.__pydantic_decorators__.field_serializers:
        _MODEL_CHECKS[key] = _never
        return _never
    known = known | frozenset(keys)

    def check(value: Any) -> bool:
        if type(value) is not dict:
            return False
        if extra and not value.keys() <= known:
            return False  # an extra field: any JSON value
        for wire_key, field_check in fields:
            item = value.get(wire_key)
            if item is not None and not field_check(item):
                return False
        return True

    _MODEL_CHECKS[key] = check  # before the fields: a model may contain itself
    for wire_key, name in keys.items():
        info = cls.model_fields[name]
        annotation: Any = info.annotation
        if info.metadata:
            params = (annotation, *info.metadata)
            annotation = Annotated[params]
        field_check = _type_check(annotation)
        if field_check is not None:
            fields.append((wire_key, field_check))
    if not fields and not extra:
        _MODEL_CHECKS[key] = None
        return None
    return check


def _type_check(annotation: Any) -> Check | None:
    """`_model_check` for a field's type."""
    while True:
        if isinstance(annotation, TypeAliasType):
            annotation = annotation.__value__
        elif typing.get_origin(annotation) is Annotated:
            annotation, *metadata = typing.get_args(annotation)
            for item in metadata:
                if isinstance(item, PlainSerializer | WrapSerializer):
                    return None if item.return_type is str else _never
        else:
            break
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        arguments = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(arguments) == 1:  # `X | None`: a dump leaves the None out
            return _type_check(arguments[0])
        checks = [_type_check(a) for a in arguments]
        return None if all(c is None for c in checks) else _never
    if origin is Literal:
        plain = all(isinstance(a, _PLAIN_TYPES) for a in typing.get_args(annotation))
        return None if plain else _never
    if origin in (list, tuple, set, frozenset):
        arguments = [a for a in typing.get_args(annotation) if a is not Ellipsis]
        items = [_type_check(a) for a in arguments]
        if not arguments or (len(items) > 1 and any(i is not None for i in items)):
            return _never
        item = items[0]
        return None if item is None else functools.partial(_all_of, item)
    if origin is dict:
        key_type, value_type = typing.get_args(annotation) or (Any, Any)
        value = _type_check(value_type)
        if key_type is not str:
            return _never
        return None if value is None else functools.partial(_values_of, value)
    if annotation in _PLAIN_TYPES:
        return None
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        plain = all(isinstance(member.value, _PLAIN_TYPES) for member in annotation)
        return None if plain else _never
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _model_check(annotation, frozenset())
    return _never  # float, Any, and whatever else a dump may write as a number


def _all_of(check: Check, values: Any) -> bool:
    return type(values) is list and all(check(value) for value in values)


def _values_of(check: Check, values: Any) -> bool:
    return type(values) is dict and all(check(value) for value in values.values())
