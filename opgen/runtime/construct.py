"""Building a built-in kind's object from the API server's JSON without validating it again.

The API server validates every built-in object (`op.k8s.Deployment`, ...)
against the same Go types `op.k8s` was generated from before it stores or
sends it, so validating its answers again in Python buys nothing and costs
most of a read: Pydantic's validation of a Deployment, with opgen's marker
checks, takes 9 times the instructions of lightkube's msgspec decode (833 k
against 92 k for the benchmark's Deployment, `python -m benchmarks
builtin_decode -- --instructions`). `builder(cls)` returns a function
that builds the model tree from decoded JSON the way `model_construct` would,
nested models included: fields by wire name, defaults for what is absent,
unknown fields ignored. Only values that are not plain JSON (times,
durations, ...) go through Pydantic, one field at a time.

`unchecked(cls)` is the quicker way the runtime decodes: Pydantic's own
validator of `cls` (compiled, in Rust) with opgen's checks taken out (the
model-level markers and CEL rules, the field markers, the list-type checks,
the format checks of times and quantities: the API server made them when it
stored the object), so what it makes is what `model_validate` makes, in a
little over half the instructions of `builder`'s Python (279 k against 478 k
for the benchmark's Deployment). JSON that does not fit even that
validator (a `null` the Go types write for an empty list that the model does
not allow) is built by `builder`, which takes anything.

Used for built-in kinds only: a user's custom resource keeps full validation,
as the API server does not re-validate stored custom objects.

`trusted(cls, values)` makes one instance of values its caller made of the
fields' own types (an owner reference from the owner's strings): 10 k
instructions for an `OwnerReference`, against 18 k for `OwnerReference(...)`
and 38 k for `model_construct`.
"""

from __future__ import annotations

import copy
import datetime
import functools
import types
import typing
from collections.abc import Callable, Mapping
from typing import Annotated, Any, TypeVar, cast

from pydantic import AfterValidator, BaseModel, BeforeValidator, TypeAdapter
from pydantic_core import CoreSchema, PydanticUndefined, SchemaValidator
from typing_extensions import TypeAliasType

import opgen.api as op
from opgen.engine.markers import Marker

__all__ = ["builder", "trusted", "unchecked"]

Convert = Callable[[Any], Any]
M = TypeVar("M", bound=BaseModel)

_PLAIN = (str, int, bool, float)
_fromisoformat = datetime.datetime.fromisoformat
_new = object.__new__
_set = object.__setattr__
_BUILDERS: dict[type[BaseModel], Convert] = {}


def builder(cls: type[BaseModel]) -> Convert:
    """A function from `cls`'s decoded wire form to an instance of `cls`."""
    found = _BUILDERS.get(cls)
    if found is not None:
        return found
    if getattr(cls, "__pydantic_fields_complete__", True) is False:
        cls.model_rebuild(raise_errors=False)
    by_key: dict[str, tuple[str, Convert | None]] = {}
    defaults: dict[str, Any] = {}
    made: list[tuple[str, Callable[[], Any]]] = []
    """Defaults made afresh for each object (a copy, a factory's) when absent;
    `defaults` holds their place, so fields keep the order validation gives."""

    def build(data: Mapping[str, Any]) -> Any:
        given = {}
        for key, value in data.items():
            entry = by_key.get(key)
            if entry is not None:
                name, convert = entry
                given[name] = (
                    value if convert is None or value is None else convert(value)
                )
        values = defaults.copy()
        values.update(given)
        for name, make in made:
            if name not in given:
                values[name] = make()
        return _instance(cls, values, set(given))

    _BUILDERS[cls] = build  # before the fields: a model may contain itself
    for name, info in cls.model_fields.items():
        annotation: Any = info.annotation
        if info.metadata:
            params = (annotation, *info.metadata)
            annotation = Annotated[params]
        convert = _converter(annotation)
        by_key[info.alias or name] = (name, convert)
        if info.default_factory is not None:
            defaults[name] = None
            made.append((name, info.default_factory))  # type: ignore[arg-type]
        elif info.default is not PydanticUndefined:
            defaults[name] = info.default
            if isinstance(info.default, list | dict | set):
                made.append((name, functools.partial(copy.deepcopy, info.default)))
    return build


def trusted(cls: type[M], values: dict[str, Any]) -> M:
    """An instance of `cls` holding `values` (field name to value, every field of
    `cls` in its order, each set), built without validation: for values the caller
    made of the fields' own types (a reference from an owner's strings): what
    `cls(**values)` makes of them, for about half its instructions and a quarter
    of `cls.model_construct(**values)`'s (the module's docstring)."""
    return _instance(cls, values, set(values))


def _instance(cls: type[M], values: dict[str, Any], fields_set: set[str]) -> M:
    obj: M = _new(cls)
    _set(obj, "__dict__", values)
    _set(obj, "__pydantic_fields_set__", fields_set)
    _set(obj, "__pydantic_extra__", None)
    _set(obj, "__pydantic_private__", None)
    return obj


def _converter(annotation: Any) -> Convert | None:
    """How to turn a decoded JSON value into the field's type; None: as it is."""
    shape = _bare(annotation)
    if shape in _PLAIN or shape is Any:
        return None
    if isinstance(shape, type) and issubclass(shape, BaseModel):
        return builder(shape)
    origin = typing.get_origin(shape)
    if origin is list:
        item = _converter(typing.get_args(shape)[0])
        if item is None:
            return list
        return lambda values: [item(v) for v in values]
    if origin is dict:
        value_of = _converter(typing.get_args(shape)[1])
        if value_of is None:
            return dict
        return lambda values: {k: value_of(v) for k, v in values.items()}
    if origin is typing.Union or origin is types.UnionType:
        arguments = [a for a in typing.get_args(shape) if a is not type(None)]
        if all(_bare(a) in _PLAIN for a in arguments):
            return None  # int | str: JSON gives the right one
    validate: Convert = TypeAdapter(annotation).validate_python
    if shape is datetime.datetime:
        return functools.partial(_time, validate)
    return validate


def _time(validate: Convert, value: Any) -> Any:
    """An RFC 3339 time as the API server writes it (`2024-05-01T12:00:00Z`,
    `...00.000001Z`), parsed in C; any other form through Pydantic."""
    if type(value) is str and value.endswith("Z"):
        try:
            return _fromisoformat(value[:-1] + "+00:00")
        except ValueError:
            pass
    return validate(value)


def _bare(annotation: Any) -> Any:
    """The type under aliases, `Annotated[...]` and `X | None`."""
    while True:
        if isinstance(annotation, TypeAliasType):
            annotation = annotation.__value__
            continue
        origin = typing.get_origin(annotation)
        if origin is Annotated:
            annotation = typing.get_args(annotation)[0]
            continue
        if origin is typing.Union or origin is types.UnionType:
            arguments = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(arguments) == 1:
                annotation = arguments[0]
                continue
        return annotation


def unchecked(cls: type[BaseModel]) -> SchemaValidator:
    """`cls`'s Pydantic validator without opgen's checks (the module's docstring)."""
    if getattr(cls, "__pydantic_complete__", True) is False:
        cls.model_rebuild(raise_errors=False)
    schema = cast("CoreSchema", _without_checks(cls.__pydantic_core_schema__))
    # not the nested classes' own validators, which pydantic-core reuses when built
    return SchemaValidator(schema, _use_prebuilt=False)


_CHECKS = (
    op.Model.__dict__["_opgen_markers"],
    *(
        check.func
        for check in (*typing.get_args(op.Time)[1:], *typing.get_args(op.Quantity)[1:])
        if isinstance(check, BeforeValidator | AfterValidator)
    ),
)
"""Validators that only check what the API server checked, or normalise what it
always sends normalised (its times are RFC 3339 to the second, `...Z`; its
quantities strings): all of `op.Model`'s and of opgen's markers, and these."""

_FUNCTION_VALIDATORS = ("function-after", "function-before")


def _without_checks(node: Any) -> Any:
    """A copy of core schema `node` without the validators `_CHECKS` names."""
    if isinstance(node, dict):
        kind = node.get("type")  # a field named `type` holds a schema here
        if kind in _FUNCTION_VALIDATORS and _is_check(node["function"]):
            inner = _without_checks(node["schema"])
            if "ref" in node:  # a model's: the definitions name it
                inner = {**inner, "ref": node["ref"]}
            return inner
        return {key: _without_checks(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_without_checks(value) for value in node]
    return node


def _is_check(function: Any) -> bool:
    call = function.get("function") if isinstance(function, dict) else function
    return any(call is check for check in _CHECKS) or isinstance(
        getattr(call, "__self__", None), Marker
    )
