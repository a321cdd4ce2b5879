"""Model-level enforcement of markers that are not simple `Annotated` metadata.

Field markers in `Annotated[...]` validate through Pydantic's core schema (see
`Marker.__get_pydantic_core_schema__`). Three kinds of rule need the whole
model instead, and `op.Model` runs its class's `model_check` after validation:

- markers used as class decorators (`@op.MinProperties(1)`, the one-of
  groups), checked against the model's wire form;
- `op.ListMapKey` keys of a field: items of a `map` list must differ in their
  keys, and a composite key needs all of the field's `ListMapKey` markers;
- `op.Required()` on a field that Python lets default to None: the API
  server requires it, so None is refused (unless the field is also
  `op.Nullable()`: the server takes null there).

CEL rules (`op.Rule`, `op.Immutable`) are evaluated by `opgen.api._cel`, on
the whole object at once, as the server does.
"""

from __future__ import annotations

import functools
import types
import typing
import weakref
from collections.abc import Callable, Sized
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError

from opgen.api._shape import Nullable
from opgen.api._structure import ListMapKey, Required
from opgen.engine.markers import Marker
from opgen.engine.naming import to_camel
from opgen.engine.reading import field_markers, type_markers
from opgen.engine.values import constraint_problem
from opgen.engine.wire import to_wire_value

__all__ = ["model_check"]


@dataclass(frozen=True)
class _Plan:
    type_checks: tuple[Marker, ...]
    map_lists: tuple[tuple[str, tuple[str, ...]], ...]
    required: tuple[str, ...]

    @property
    def empty(self) -> bool:
        return not (self.type_checks or self.map_lists or self.required)


_PLANS: weakref.WeakKeyDictionary[type, _Plan] = weakref.WeakKeyDictionary()


def _plan(cls: type) -> _Plan:
    plan = _PLANS.get(cls)
    if plan is None:
        if getattr(cls, "__pydantic_fields_complete__", True) is False:
            # A model validated inside another before it was used alone keeps
            # its forward references (classes defined further down the module)
            # unresolved in `model_fields`; resolve them, or the markers inside
            # `Annotated[...] | None` annotations would go unseen.
            cls.model_rebuild(raise_errors=False)  # type: ignore[attr-defined]
        fields: dict[str, Any] = getattr(cls, "model_fields", {})
        map_lists = []
        required = []
        for name, info in fields.items():
            markers = field_markers(info)
            keys = tuple(m.key for m in markers if isinstance(m, ListMapKey))
            if keys:
                map_lists.append((name, keys))
            # A nullable field may hold None (the server accepts null there).
            if any(isinstance(m, Required) for m in markers) and not any(
                isinstance(m, Nullable) for m in markers
            ):
                required.append(name)
        plan = _Plan(
            type_checks=tuple(
                m for m in type_markers(cls) if type(m).check is not Marker.check
            ),
            map_lists=tuple(map_lists),
            required=tuple(required),
        )
        _PLANS[cls] = plan
    return plan


def _wire_keys(items: list[Any], keys: tuple[str, ...]) -> list[str]:
    """The keys as the items spell them (a ListMapKey may name the Python field)."""
    present = {name for item in items if isinstance(item, dict) for name in item}
    return [
        key if key in present or to_camel(key) not in present else to_camel(key)
        for key in keys
    ]


_MISSING_KEY = (str, "\x00missing")
"""The identity of a key an item leaves out: `opgen.engine.values.map_key`'s."""
_PLAIN_KEYS = frozenset({str, int, bool})
"""Wire values whose JSON text differs exactly when their type or value does."""
_KEY_NAMES: weakref.WeakKeyDictionary[type, dict[tuple[str, ...], set[str]]] = (
    weakref.WeakKeyDictionary()
)


def _keys_differ(
    items: Any,
    keys: tuple[str, ...],
    known: dict[tuple[type, tuple[str, ...]], set[str]] | None = None,
) -> bool:
    """A quick accept for a `map` list: True when no two of its items (models)
    have the same keys on the wire. Each item is dumped as the full check dumps
    it, but only its fields that may hold a key (a pod template's dozens of
    others left out), and the keys compared as values, not as JSON text. False:
    look again, on the whole wire form (`constraint_problem`), which also
    phrases a duplicate. `known`: the fields to dump, by item class and keys,
    kept by the caller (a plain dict, quicker than `_key_names`' weak one)."""
    if type(items) is not list:
        return False
    if _attributes_differ(items, keys):
        return True
    dumped = []
    for item in items:
        cls = type(item)
        if not isinstance(item, BaseModel) or cls.model_dump is not _DUMP:
            return False
        names = None if known is None else known.get((cls, keys))
        if names is None:
            names = _key_names(cls, keys)
            if known is not None:
                known[cls, keys] = names
        # what `model_dump` does, without its frame
        dumped.append(
            cls.__pydantic_serializer__.to_python(
                item, mode="json", by_alias=True, exclude_none=True, include=names
            )
        )
    spelled = _wire_keys(dumped, keys)
    seen: set[tuple[Any, ...]] = set()
    for wire in dumped:
        identity = []
        for key in spelled:
            value = wire.get(key, _MISSING_KEY)
            if value is not _MISSING_KEY:
                if type(value) not in _PLAIN_KEYS:
                    return False
                value = (type(value), value)
            identity.append(value)
        found = tuple(identity)
        if found in seen:
            return False
        seen.add(found)
    return True


_DUMP = BaseModel.model_dump


def _attributes_differ(items: list[Any], keys: tuple[str, ...]) -> bool:
    """`_keys_differ`'s quicker accept, without dumping: True when every item is a
    model whose keys are plain fields (`_key_fields`), and no two items hold the
    same key values. False: not known (a duplicate, or a key that is not such a
    field), for `_keys_differ` to look again."""
    seen: set[tuple[Any, ...]] = set()
    for item in items:
        names = _key_fields(type(item), keys)
        if names is None:
            return False
        values = item.__dict__
        identity = []
        for name in names:
            value = values.get(name, _MISSING_KEY)
            if value is None:
                value = _MISSING_KEY  # left out of the wire form, as exclude_none does
            elif value is not _MISSING_KEY:
                if type(value) not in _PLAIN_KEYS:
                    return False
                value = (type(value), value)
            identity.append(value)
        found = tuple(identity)
        if found in seen:
            return False
        seen.add(found)
    return True


_KEY_FIELDS: weakref.WeakKeyDictionary[
    type, dict[tuple[str, ...], tuple[str, ...] | None]
] = weakref.WeakKeyDictionary()


def _key_fields(cls: type, keys: tuple[str, ...]) -> tuple[str, ...] | None:
    """The fields of `cls` that hold `keys` (one each, found once per class), when
    each is on the wire exactly as its str, int or bool value (no serializer,
    alias clash or exclusion); None when one is not, or `cls` is no such model."""
    known = _KEY_FIELDS.get(cls)
    if known is None:
        if not isinstance(cls, type) or not issubclass(cls, BaseModel):
            return None
        known = _KEY_FIELDS[cls] = {}
    if keys not in known:
        known[keys] = _plain_key_fields(cls, keys)
    return known[keys]


def _plain_key_fields(
    cls: type[BaseModel], keys: tuple[str, ...]
) -> tuple[str, ...] | None:
    decorators = cls.__pydantic_decorators__
    if (
        cls.model_dump is not _DUMP
        or decorators.field_serializers
        or decorators.model_serializers
        or cls.model_computed_fields
        or cls.model_config.get("extra") == "allow"
    ):
        return None
    names = []
    for key in keys:
        # the key as `_wire_keys` spells it: the field whose wire name it is
        spellings = {key, to_camel(key)}
        matches = [
            (name, info)
            for name, info in cls.model_fields.items()
            if (info.serialization_alias or info.alias or name) in spellings
        ]
        if len(matches) != 1:
            return None
        name, info = matches[0]
        if (
            info.exclude
            or getattr(info, "exclude_if", None) is not None
            or not all(_describes(m) for m in info.metadata)
            or not _plain(info.annotation)
        ):
            return None
        names.append(name)
    return tuple(names)


def _describes(metadata: Any) -> bool:
    """Whether `Annotated` metadata leaves a value's wire form alone: an opgen
    marker, or a `Field(description=...)` as `op.k8s`'s type aliases carry."""
    if isinstance(metadata, Marker):
        return True
    return (
        isinstance(metadata, FieldInfo)
        and not metadata.metadata
        and not metadata.exclude
        and metadata.serialization_alias is None
    )


def _plain(annotation: Any) -> bool:
    """Whether a field so annotated is dumped as its value when that is a str, int
    or bool: one of those types or literals of them, possibly optional, under a
    type alias or `Annotated` with opgen's markers only."""
    while True:
        if annotation in _PLAIN_KEYS:
            return True
        origin = typing.get_origin(annotation)
        args = typing.get_args(annotation)
        if origin is Annotated:
            if not all(_describes(m) for m in args[1:]):
                return False
            annotation = args[0]
        elif origin is Literal:
            return all(type(a) in _PLAIN_KEYS for a in args)
        elif origin in (typing.Union, types.UnionType):
            others = [a for a in args if a is not type(None)]
            if len(others) != 1:
                return False
            annotation = others[0]
        elif hasattr(annotation, "__value__"):  # a type alias
            annotation = annotation.__value__
        else:
            return False


def _key_names(cls: type[BaseModel], keys: tuple[str, ...]) -> set[str]:
    """What of `cls` to dump for its keys: every field (and computed field)
    whose name or alias is a spelling of one, and those spellings (extra
    fields); found once per class."""
    known = _KEY_NAMES.get(cls)
    if known is None:
        known = _KEY_NAMES[cls] = {}
    names = known.get(keys)
    if names is None:
        spellings = {*keys, *(to_camel(key) for key in keys)}
        fields: dict[str, Any] = {**cls.model_fields, **cls.model_computed_fields}
        names = known[keys] = spellings | {
            name
            for name, info in fields.items()
            if spellings
            & {
                name,
                getattr(info, "alias", None),
                getattr(info, "serialization_alias", None),
            }
        }
    return names


def _refuse(where: str, problem: str) -> PydanticCustomError:
    return PydanticCustomError(
        "kubernetes_constraint",
        "{where}{problem}",
        {"where": where, "problem": problem},
    )


def model_check(cls: type) -> Callable[[Any], None] | None:
    """What raises a Pydantic error when an instance of `cls` breaks a
    model-level marker, its plan found once (None: nothing to check): `op.Model`
    runs it after every validation."""
    plan = _plan(cls)
    if plan.empty:
        return None
    return functools.partial(_enforce_plan, plan, {})


def _enforce_plan(
    plan: _Plan, key_names: dict[tuple[type, tuple[str, ...]], set[str]], model: Any
) -> None:
    # a validated model holds every field in its __dict__: read there, not
    # through attribute lookup (this runs after every validation of a pod spec)
    values = model.__dict__
    for name in plan.required:
        if (values[name] if name in values else getattr(model, name)) is None:
            raise _refuse(f"{name}: ", "Required value (op.Required())")
    for name, keys in plan.map_lists:
        items = values[name] if name in values else getattr(model, name)
        if items is None:
            continue
        if (type(items) is list or isinstance(items, Sized)) and len(items) < 2:
            continue  # nothing to duplicate: most condition lists hold one
        _enforce_map_list(name, keys, items, key_names)
    if plan.type_checks:
        wire = to_wire_value(model)
        for marker in plan.type_checks:
            problem = marker.check(wire)
            if problem is not None:
                raise _refuse("", f"{problem} ({marker.display()})")


def _enforce_map_list(
    name: str,
    keys: tuple[str, ...],
    items: Any,
    key_names: dict[tuple[type, tuple[str, ...]], set[str]],
) -> None:
    """Refuse a `map` list (field `name`) two of whose items have the same keys."""
    if _keys_differ(items, keys, key_names):
        return
    items = to_wire_value(items)
    if not isinstance(items, list):
        return
    constraint = {
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": _wire_keys(items, keys),
    }
    problem = constraint_problem(items, constraint)
    if problem is not None:
        raise _refuse(f"{name}: ", f"{problem} (keys: {', '.join(keys)})")
