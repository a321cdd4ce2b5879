"""`op.CustomResource[Spec, Status]`: a whole Kubernetes object of a custom kind.

`CustomResource[SpecModel, StatusModel]` is a base class with `api_version`,
`kind`, `metadata`, a required `spec` and an optional `status`. Pass `None` for
either parameter to leave that field out (a version with no spec, say), or
`SpecModel | None` for an optional spec.
`api_version` and `kind` default from `@op.kind` when they are not given.
"""

from __future__ import annotations

import functools
import typing
import weakref
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from pydantic import (
    BaseModel,
    Field,
    ModelWrapValidatorHandler,
    create_model,
    model_validator,
)
from pydantic_core import PydanticCustomError
from typing_extensions import Self

from opgen.api._cel import validate_kind
from opgen.api._meta import ObjectMeta
from opgen.api._model import Model
from opgen.engine.reading import KindMarkers, kind_markers
from opgen.engine.recording import KIND_MARKERS_ATTR
from opgen.engine.wire import to_wire_value

__all__ = ["CustomResource"]

SpecT = TypeVar("SpecT")
StatusT = TypeVar("StatusT")


def _type_name(value: object) -> str:
    return getattr(value, "__name__", None) or repr(value).replace("typing.", "")


def _admits_none(annotation: Any) -> bool:
    return type(None) in typing.get_args(annotation)


_KIND_FACTS: weakref.WeakKeyDictionary[type, tuple[int, KindMarkers]] = (
    weakref.WeakKeyDictionary()
)


def _kind_facts(cls: type) -> KindMarkers:
    """`kind_markers(cls)`, read again only when a decorator has added one (every
    decode of an object asks twice)."""
    count = len(cls.__dict__.get(KIND_MARKERS_ATTR) or ())
    known = _KIND_FACTS.get(cls)
    if known is None or known[0] != count:
        known = (count, kind_markers(cls))
        _KIND_FACTS[cls] = known
    return known[1]


@functools.cache
def _parametrize(base: type[Any], spec: Any, status: Any) -> type[Any]:
    fields: dict[str, Any] = {}
    if spec is not None:
        # `CustomResource[Spec | None, ...]` makes spec optional (CRD and Python alike).
        fields["spec"] = (spec, None if _admits_none(spec) else ...)
    if status is not None:
        fields["status"] = (status | None, None)
    name = f"{base.__name__}[{_type_name(spec)}, {_type_name(status)}]"
    created: type[Any] = create_model(
        name, __base__=base, __module__=base.__module__, **fields
    )
    return created


class CustomResource(Model, Generic[SpecT, StatusT]):
    """Base class of a custom resource kind; decorate subclasses with `@op.kind`."""

    __opgen_custom_resource__: ClassVar[bool] = True  # recording.CUSTOM_RESOURCE_FLAG

    api_version: str = ""
    """APIVersion of the object, e.g. `ray.io/v1` (filled in from `@op.kind`)."""
    kind: str = ""
    """Kind of the object, e.g. `RayCluster` (filled in from `@op.kind`)."""
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    """Standard object metadata."""

    if TYPE_CHECKING:
        spec: SpecT
        status: StatusT | None = None

    def __class_getitem__(cls, params: Any) -> Any:
        if not isinstance(params, tuple) or len(params) != 2:
            raise TypeError(
                "use CustomResource[SpecModel, StatusModel] (None for neither)"
            )
        return _parametrize(cls, params[0], params[1])

    @model_validator(mode="before")
    @classmethod
    def _fill_type_meta(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        if "kind" in data and ("apiVersion" in data or "api_version" in data):
            return data  # every object the API server sends: nothing to fill
        decl = _kind_facts(cls).decl
        if decl is None:
            return data
        filled = dict(data)
        if "apiVersion" not in filled and "api_version" not in filled:
            filled["apiVersion"] = f"{decl.group}/{decl.version}"
        if "kind" not in filled:
            filled["kind"] = cls.__name__
        return filled

    @model_validator(mode="wrap")
    @classmethod
    def _opgen_rules(cls, data: Any, handler: ModelWrapValidatorHandler[Self]) -> Self:
        # Every CEL rule of the object in one walk, all failures reported together.
        result: Self = validate_kind(cls, data, handler)
        return result

    @model_validator(mode="after")
    def _scale_replicas(self) -> Self:
        # The API server refuses replicas outside 0..2^31-1 at the scale
        # subresource's paths (customresource.ValidateScaleSpec/Status).
        scale = _kind_facts(type(self)).scale
        if scale is None:
            return self
        paths = (scale.spec_replicas_path, scale.status_replicas_path)
        if all(_replicas_in_range(self, path) for path in paths):
            return self
        wire = to_wire_value(self)
        for path in paths:
            value = _at_path(wire, path)
            if isinstance(value, int) and not 0 <= value <= _MAX_INT32:
                raise PydanticCustomError(
                    "kubernetes_constraint",
                    "{path}: must be between 0 and {limit}, the scale subresource's replicas "
                    "range",
                    {"path": path, "limit": _MAX_INT32},
                )
        return self


_MAX_INT32 = 2**31 - 1


def _replicas_in_range(obj: BaseModel, path: str) -> bool:
    """A quick accept for `_scale_replicas`: the field at `path` (wire names),
    read through the models, is unset or an int in range (False: look again, on
    the whole wire form)."""
    value: Any = obj
    for name in _path_names(path):
        if value is None:
            return True
        if not isinstance(value, BaseModel):
            return False
        field = _fields_by_wire_name(type(value)).get(name)
        if field is None:
            return False
        value = getattr(value, field)
    return value is None or (type(value) is int and 0 <= value <= _MAX_INT32)


_WIRE_NAMES: weakref.WeakKeyDictionary[type, dict[str, str]] = (
    weakref.WeakKeyDictionary()
)


def _fields_by_wire_name(cls: type[BaseModel]) -> dict[str, str]:
    names = _WIRE_NAMES.get(cls)
    if names is None:
        names = {
            info.serialization_alias or info.alias or name: name
            for name, info in cls.model_fields.items()
        }
        _WIRE_NAMES[cls] = names
    return names


@functools.lru_cache(maxsize=64)
def _path_names(path: str) -> tuple[str, ...]:
    """A scale subresource's replicas path (`.spec.replicas`) as its field names."""
    return tuple(path.strip(".").split("."))


def _at_path(value: Any, path: str) -> Any:
    for name in _path_names(path):
        if not isinstance(value, dict):
            return None
        value = value.get(name)
    return value
