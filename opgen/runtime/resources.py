"""What the runtime needs to know about a kind, whatever class describes it.

Every kind is a Pydantic model: the user's custom resources (`op.CustomResource`
subclasses decorated with `@op.kind`) and Kubernetes' built-in kinds of
`op.k8s` (`op.k8s.Deployment`, `op.k8s.ConfigMap`, ..., whose facts the API
server's discovery gave when they were generated). `resource_type(cls)` turns
either into a `ResourceType`: group, version, kind, plural, scope,
subresources, and the functions that decode wire JSON into the class and
encode an instance back.

This module is the only place in the runtime that reads kind metadata, through
`opgen.engine.reading` and `opgen.engine.builtin` (the loader reads kinds
through the same functions), so the coupling between the runtime and the
types lives here.

Objects are handled on the wire as JSON-compatible dicts; `metadata(obj)`
returns an object's metadata in wire form (camelCase keys), which is what the
helpers (finalizers, owner references, conditions) read.
"""

from __future__ import annotations

import functools
import typing
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar, cast

import msgspec
from pydantic import BaseModel, ValidationError
from pydantic_core import SchemaValidator

from opgen.engine.builtin import BuiltinResource, builtin_info, builtin_resource
from opgen.engine.cel.rules import rules_skipped
from opgen.engine.reading import ResourceInfo, is_custom_resource, resource_info
from opgen.runtime import construct

__all__ = [
    "Encoder",
    "ResourceType",
    "ScalePaths",
    "assign",
    "forget_read",
    "metadata",
    "read_from",
    "remember_read",
    "resource_type",
    "set_metadata",
    "status_model",
]

T = TypeVar("T")
T_contra = TypeVar("T_contra", contravariant=True)


class Encoder(Protocol[T_contra]):
    """Turns an object into its wire form (a JSON-compatible dict with apiVersion and
    kind); `exclude_unset` leaves out the fields the caller never set (server-side apply);
    `include` keeps only the fields it names, as Pydantic's `model_dump(include=...)`.
    """

    def __call__(
        self,
        obj: T_contra,
        *,
        exclude_unset: bool = False,
        include: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]: ...


@dataclass(frozen=True)
class ScalePaths:
    """The scale subresource's JSON paths (`.spec.replicas` form)."""

    spec_replicas_path: str
    status_replicas_path: str | None = None
    label_selector_path: str | None = None


@dataclass(frozen=True, eq=False)
class ResourceType(Generic[T]):
    """One kind as the runtime sees it: REST coordinates plus codecs."""

    cls: type[T]
    builtin: bool
    """A kind of `op.k8s`: the API server validated what it sends of it."""
    info: ResourceInfo
    """The kind's facts: the `opgen.model.kinds` values the generator's IR is
    made of (`opgen.engine.kinds.ResourceInfo`), read, never copied."""
    decode_json: Callable[[bytes], T] = field(repr=False)
    decode_dict: Callable[[Mapping[str, Any]], T] = field(repr=False)
    encode_obj: Encoder[T] = field(repr=False)
    # The facts below are read off `info` once each (cached_property): a reconcile
    # helper reads them on every call, and `info`'s are computed properties.

    @functools.cached_property
    def group(self) -> str:
        return self.info.group

    @functools.cached_property
    def version(self) -> str:
        return self.info.version

    @functools.cached_property
    def kind(self) -> str:
        return self.info.kind

    @functools.cached_property
    def plural(self) -> str:
        return self.info.plural

    @functools.cached_property
    def namespaced(self) -> bool:
        return self.info.namespaced

    @functools.cached_property
    def status_subresource(self) -> bool:
        return self.info.status_subresource

    @functools.cached_property
    def scale(self) -> ScalePaths | None:
        scale = self.info.scale
        return None if scale is None else ScalePaths(*scale)

    @functools.cached_property
    def api_version(self) -> str:
        return self.info.api_version

    def with_kind(self, data: dict[str, Any]) -> dict[str, Any]:
        """`data` with `apiVersion` and `kind` filled in where missing (the server leaves
        them out of list items); returns `data` itself."""
        data.setdefault("apiVersion", self.api_version)
        data.setdefault("kind", self.kind)
        return data

    def __str__(self) -> str:
        return (
            f"{self.kind}.{self.version}.{self.group}"
            if self.group
            else f"{self.kind}.{self.version}"
        )


@functools.cache
def _cached_resource_type(cls: type) -> ResourceType[Any]:
    builtin = builtin_resource(cls)
    if builtin is not None:
        return _builtin_type(cast("type[BaseModel]", cls), builtin)
    if is_custom_resource(cls):
        return _model_type(cls)
    raise TypeError(
        f"{cls!r} is not a Kubernetes kind: expected a kind of op.k8s "
        "(op.k8s.Deployment, ...) or an opgen.api.CustomResource subclass "
        "decorated with @op.kind"
    )


def resource_type(cls: type[T]) -> ResourceType[T]:
    """The `ResourceType` of a kind of `op.k8s` or of a user custom resource class."""
    found = _RESOURCE_TYPES.get(cls)  # a plain dict's get: read on every helper call
    if found is None:
        found = _RESOURCE_TYPES[cls] = _cached_resource_type(cast(type, cls))
    return found


_RESOURCE_TYPES: dict[type, Any] = {}


def _encoder(api_version: str, kind: str) -> Encoder[Any]:
    def encode_obj(
        obj: Any,
        *,
        exclude_unset: bool = False,
        include: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        data = cast(
            "dict[str, Any]",
            obj.model_dump(
                mode="json",
                by_alias=True,
                exclude_none=True,
                exclude_unset=exclude_unset,
                include=include,
            ),
        )
        data["apiVersion"] = api_version
        data["kind"] = kind
        return data

    return encode_obj


def _builtin_type(cls: type[BaseModel], facts: BuiltinResource) -> ResourceType[Any]:
    # The API server validated what it sends of a built-in kind (construct.py):
    # its decoders evaluate no CEL rule, without `rules_skipped` around them.
    @functools.cache
    def validator() -> SchemaValidator:
        return construct.unchecked(cls)

    def decode_json(raw: bytes) -> Any:
        try:
            return validator().validate_json(raw)
        except ValidationError:
            with rules_skipped():  # the builder validates some fields with Pydantic
                return construct.builder(cls)(msgspec.json.decode(raw))

    def decode_dict(data: Mapping[str, Any]) -> Any:
        try:
            return validator().validate_python(data)
        except ValidationError:
            with rules_skipped():
                return construct.builder(cls)(data)

    info = builtin_info(cls, facts)
    return ResourceType(
        cls=cls,
        builtin=True,
        info=info,
        decode_json=decode_json,
        decode_dict=decode_dict,
        encode_obj=_encoder(info.api_version, info.kind),
    )


def _model_type(cls: type[BaseModel]) -> ResourceType[Any]:
    # The one read of a user kind's metadata.
    info = resource_info(cls)
    return ResourceType(
        cls=cls,
        builtin=False,
        info=info,
        decode_json=_json_decoder(cls),
        decode_dict=cls.model_validate,
        encode_obj=_encoder(info.api_version, info.kind),
    )


def _json_decoder(cls: type[BaseModel]) -> Callable[[bytes], Any]:
    """`cls.model_validate_json`, or what does the same quicker: msgspec parses
    the JSON and Pydantic validates the Python data (an object's managedFields,
    half of a server's answer, cost Pydantic's JSON mode a third of the decode).
    The two modes differ only where a field is strict (JSON strings are then
    still taken for times, enums, UUIDs...; Python data is not): a class with a
    strict field anywhere is decoded by `model_validate_json`, decided at its
    first decode. Validators see `info.mode == "python"`, as in the admission
    webhooks' decodes."""

    def decode_json(raw: bytes) -> Any:
        if _strict_anywhere(cls):
            return cls.model_validate_json(raw)
        try:
            data = msgspec.json.decode(raw)
        except msgspec.DecodeError:  # Pydantic's error says it (`json_invalid`)
            return cls.model_validate_json(raw)
        return cls.__pydantic_validator__.validate_python(data)

    return decode_json


@functools.cache
def _strict_anywhere(cls: type[BaseModel]) -> bool:
    """Whether `cls`'s core schema (its nested models' included) is strict anywhere."""
    if getattr(cls, "__pydantic_complete__", True) is False:
        cls.model_rebuild(raise_errors=False)
    pending: list[Any] = [cls.__pydantic_core_schema__]
    seen: set[int] = set()
    while pending:
        node = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            if node.get("strict") is True:
                return True
            if node.get("type") == "model" and _generated(node.get("cls")):
                continue
            pending.extend(node.values())
        elif isinstance(node, list | tuple):
            pending.extend(node)
    return False


def _generated(cls: Any) -> bool:
    """Whether `cls` is one of `op.k8s`'s generated models, which hold no strict
    field (its schema, a pod template's thousands of nodes, is not walked)."""
    return isinstance(cls, type) and cls.__module__.startswith(_GENERATED)


_GENERATED = "opgen.api.k8s."


def status_model(cls: type) -> type[BaseModel] | None:
    """The model of a custom resource's `status` field (`StatusT` of
    `op.CustomResource[SpecT, StatusT]`); None when the kind has no status model."""
    fields = getattr(cls, "model_fields", None)
    if not isinstance(cls, type) or not issubclass(cls, BaseModel) or not fields:
        return None
    field_info = fields.get("status")
    if field_info is None:
        return None
    for candidate in (field_info.annotation, *typing.get_args(field_info.annotation)):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return None


def metadata(obj: object) -> dict[str, Any]:
    """`obj.metadata` in wire form; an empty dict when it has none."""
    meta = getattr(obj, "metadata", None)
    if meta is None:
        return {}
    if isinstance(meta, BaseModel):
        return meta.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(meta, Mapping):
        return dict(meta)
    raise TypeError(f"cannot read the metadata of a {type(obj).__name__}")


class _ReadFrom(weakref.ref):  # type: ignore[type-arg]
    """A weak reference to an object a cached read made, with the JSON it was
    made from; `key` is the object's id, under which `_READS` holds it."""

    __slots__ = ("key", "raw")
    key: int
    raw: bytes


_READS: dict[int, _ReadFrom] = {}
"""The objects of built-in kinds that cached reads handed out (or that a write's
answer refreshed) and that are still alive, by id: each leaves when its object is
freed, before its id can be reused."""


def _forget(ref: _ReadFrom) -> None:
    if _READS.get(ref.key) is ref:
        del _READS[ref.key]


def remember_read(obj: object, raw: bytes) -> None:
    """Remember that `obj` was made from `raw` as it is (`read_from`)."""
    ref = _ReadFrom(obj, _forget)
    ref.key = key = id(obj)
    ref.raw = raw
    _READS[key] = ref


def forget_read(obj: object) -> None:
    """`obj` no longer is what `remember_read` was told it was made from."""
    ref = _READS.get(id(obj))
    if ref is not None and ref() is obj:
        del _READS[ref.key]


def read_from(obj: object) -> bytes | None:
    """The JSON that a cached read of a built-in kind made `obj` from, or that a
    write's answer refreshed it from (`decoding.refresh`, `assign`): the object as
    the API server sent it (whatever the caller has changed in `obj` since); None
    for any other object.

    Built-in kinds are built from that JSON as it is, without the normalising
    checks (`opgen.runtime.construct.unchecked`), so every value the model has
    reads the same in it; fields the model does not know are there too."""
    ref = _READS.get(id(obj))
    if ref is not None and ref() is obj:
        return ref.raw
    return None


def assign(target: T, source: T) -> T:
    """Copy every field of `source` onto `target` in place (a write's response
    refreshes the caller's object, as controller-runtime does); returns `target`."""
    if isinstance(target, BaseModel):
        for name in type(target).model_fields:
            setattr(target, name, getattr(source, name))
        extra = getattr(source, "__pydantic_extra__", None)
        if extra is not None:
            object.__setattr__(target, "__pydantic_extra__", dict(extra))
        object.__setattr__(target, "__pydantic_fields_set__", set(source.__pydantic_fields_set__))  # type: ignore[attr-defined]
    elif isinstance(target, dict) and isinstance(source, Mapping):
        target.clear()
        target.update(source)
    else:
        raise TypeError(f"cannot refresh a {type(target).__name__} in place")
    raw = read_from(source)
    if raw is None:
        forget_read(target)
    else:
        remember_read(target, raw)
    return target


def set_metadata(obj: object, meta: Mapping[str, Any]) -> None:
    """Replace `obj.metadata` with the wire-form `meta`, converted to the object's metadata type."""
    current = getattr(obj, "metadata", None)
    target: Any = obj
    if isinstance(obj, BaseModel):
        annotation = type(obj).model_fields["metadata"].annotation
        meta_cls = type(current) if current is not None else _model_in(annotation)
        target.metadata = meta_cls.model_validate(dict(meta))
    elif isinstance(obj, dict):
        obj["metadata"] = dict(meta)
    else:
        raise TypeError(f"cannot set metadata on a {type(obj).__name__}")


def _model_in(annotation: Any) -> type[BaseModel]:
    """The model of a field typed `Model` or `Model | None`."""
    for candidate in (annotation, *typing.get_args(annotation)):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    raise TypeError(f"{annotation!r} is not a model type")
