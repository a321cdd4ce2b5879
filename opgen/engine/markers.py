"""The marker machinery: what every field, type and kind marker has in common.

A schema marker is a small frozen dataclass deriving from `Marker`. It rides
in `Annotated[...]` metadata (or decorates a model class for type-level use).
When Pydantic builds the JSON schema, the marker's
`__get_pydantic_json_schema__` hands itself to the running generator if that
is a `MarkerCollector` (opgen's schema stage is one), which records it on the
schema node it belongs to. After `$ref`s are inlined the schema stage calls
`apply` on every recorded marker of a node, in priority order (lower first,
source order on ties), with a `MarkerContext` that says where the marker
stands. `apply` returns the new node or raises `MarkerError` naming the model
and field.

A marker that constrains values also enforces itself in Python: `check` says
why a value (in wire form) breaks it, and `__get_pydantic_core_schema__` runs
that check after Pydantic's own validation of the annotated type, so a model
refuses what the API server would refuse. Markers used as class decorators
are recorded on the class (`opgen.engine.recording`) and enforced by
`op.Model` itself.

The user-facing marker classes (`op.Minimum`, `op.Rule`, ...) live in
`opgen.api` and derive from `Marker`; the kind-level ones in
`opgen.engine.kinds`.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypeGuard, TypeVar, runtime_checkable

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

from opgen.engine.recording import TYPE_MARKERS_ATTR, record_on_class
from opgen.engine.wire import to_wire_value
from opgen.errors import Location, MarkerError

__all__ = [
    "FLOAT_FLAG",
    "OBJECT_META_DESCRIBED",
    "OBJECT_META_FLAG",
    "OBJECT_META_PLAIN",
    "Marker",
    "MarkerCollector",
    "MarkerContext",
    "Placement",
    "SchemaNode",
    "node_type",
]

SchemaNode = dict[str, Any]
"""A JSON-schema node as plain data."""

FLOAT_FLAG = "x-opgen-float"
"""Left on `float` nodes by the schema stage until `Type("number")` opts in."""

OBJECT_META_FLAG = "x-opgen-object-meta"
"""Left on nested ObjectMeta nodes until the schema stage applies the CRD options
(`{type: object}`, or the embedded-object-meta fields). `True` follows the
options; `OBJECT_META_DESCRIBED` and `OBJECT_META_PLAIN` are the forms
`op.EmbeddedObjectMeta` fixes for its subtree."""
OBJECT_META_DESCRIBED = "described"
OBJECT_META_PLAIN = "plain"

C = TypeVar("C", bound=type)


class Placement(enum.Flag):
    """Where a marker may stand."""

    FIELD = enum.auto()
    """Directly on a model field: `x: Annotated[int, op.Minimum(0)]`."""
    TYPE = enum.auto()
    """On a type: a class decorator, a named type (`TypeAliasType`), or nested
    inside a field's type (`list[Annotated[str, op.MinLength(1)]]`)."""
    KIND = enum.auto()
    """On a `CustomResource` class, as a kind-level decorator."""

    def describe(self) -> str:
        names = {
            Placement.FIELD: "a model field",
            Placement.TYPE: "a type (class decorator or nested type)",
            Placement.KIND: "a CustomResource class",
        }
        return " or ".join(text for flag, text in names.items() if flag in self)


@dataclass
class MarkerContext:
    """What a marker needs to know to apply itself, and what it leaves for the parent."""

    location: Location
    placement: Placement
    wire_name: str | None = None
    """The field's JSON name when the marker stands on a field."""
    required: bool = False
    """Whether the field is required; Required/Optional markers change it."""
    parent_rules: list[SchemaNode] = field(default_factory=list)
    """CEL rules the marker adds to the object that holds the field."""

    def error(
        self, marker: Marker, message: str, hint: str | None = None
    ) -> MarkerError:
        return MarkerError(
            f"{marker.display()}: {message}", location=self.location, hint=hint
        )


def node_type(node: SchemaNode) -> str | None:
    """The JSON type of a node, `int-or-string` for IntOrString nodes, or None."""
    if node.get("x-kubernetes-int-or-string"):
        return "int-or-string"
    node_kind = node.get("type")
    return node_kind if isinstance(node_kind, str) else None


def _format_argument(value: object) -> str:
    if isinstance(value, enum.Enum):
        return repr(value.value)
    return repr(value)


class _CoreSchemaHook:
    """`__get_pydantic_core_schema__` that also answers on a marker class.

    `Annotated[int, op.Minimum]` (the class, not called) must reach the schema
    stage, which reports it with the field's location; so on the class the
    hook leaves the schema alone.
    """

    def __get__(
        self, instance: Marker | None, owner: type[Marker]
    ) -> Callable[[Any, GetCoreSchemaHandler], CoreSchema]:
        if instance is None:
            return lambda source, handler: handler(source)
        return instance._core_schema


@dataclass(frozen=True)
class Marker:
    """Base of every opgen marker. Subclasses are frozen dataclasses."""

    placements: ClassVar[Placement] = Placement.FIELD | Placement.TYPE
    priority: ClassVar[int] = 10
    """Lower runs first on a node (Type and ListType before the rest)."""
    repeatable: ClassVar[bool] = False
    clears_node: ClassVar[bool] = False
    """True when the schema stage must start the node empty, describing nothing of
    the Python type, before any marker runs (`op.Schemaless`)."""

    @classmethod
    def marker_name(cls) -> str:
        return cls.__name__

    def display(self) -> str:
        """How the marker is written in user code, for messages: `op.MinLength(3)`."""
        arguments = ", ".join(
            _format_argument(getattr(self, item.name))
            for item in dataclasses.fields(self)
            if item.init and getattr(self, item.name) is not None
        )
        return f"op.{self.marker_name()}({arguments})"

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        """Return `node` with this marker applied; raise `ctx.error(...)` on misuse."""
        raise NotImplementedError

    def check(self, value: Any) -> str | None:
        """Why `value`, in wire form, breaks this marker (None when it does not).

        The default: the marker does not constrain values.
        """
        return None

    def _core_schema(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        schema = handler(source)
        if type(self).check is Marker.check:
            return schema
        return core_schema.no_info_after_validator_function(self._enforce, schema)

    __get_pydantic_core_schema__: ClassVar[_CoreSchemaHook] = _CoreSchemaHook()

    def _enforce(self, value: Any) -> Any:
        if value is not None:
            problem = self.check(to_wire_value(value))
            if problem is not None:
                raise PydanticCustomError(
                    "kubernetes_constraint",
                    "{problem} ({marker})",
                    {"problem": problem, "marker": self.display()},
                )
        return value

    def __get_pydantic_json_schema__(
        self, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> SchemaNode:
        schema = handler(core_schema)
        return _attach(handler, schema, self)

    def __call__(self, cls: C) -> C:
        """Use the marker as a class decorator (type level)."""
        if Placement.TYPE not in self.placements:
            raise MarkerError(
                f"{self.display()} cannot decorate a class: it stands on "
                f"{self.placements.describe()}",
                location=Location(cls=getattr(cls, "__qualname__", None)),
                hint="write it in the field's annotation: Annotated[T, marker]",
            )
        if not (isinstance(cls, type) and hasattr(cls, "model_fields")):
            raise MarkerError(
                f"{self.display()} decorates Pydantic models (op.Model subclasses), "
                f"not {cls!r}",
                hint="for a scalar type, use Annotated[..., marker] instead",
            )
        record_on_class(cls, TYPE_MARKERS_ATTR, self)
        return cls


@runtime_checkable
class MarkerCollector(Protocol):
    """A JSON-schema generator that wants the opgen markers it meets.

    Pydantic passes its running generator to `__get_pydantic_json_schema__`;
    when it has `attach_marker`, every marker in the schema being generated is
    handed over with the node it stands on, and the returned node replaces it.
    Plain Pydantic generators do not, and simply ignore opgen markers.
    """

    def attach_marker(self, schema: SchemaNode, marker: Marker) -> SchemaNode: ...


def _attach(
    handler: GetJsonSchemaHandler, schema: SchemaNode, marker: Marker
) -> SchemaNode:
    generator = getattr(handler, "generate_json_schema", None)
    if _is_collector(generator):
        return generator.attach_marker(schema, marker)
    return schema


_COLLECTOR_CLASSES: dict[type[Any], bool] = {}


def _is_collector(generator: object) -> TypeGuard[MarkerCollector]:
    """`isinstance(generator, MarkerCollector)`, decided once per class: the check
    of a runtime-checkable protocol gathers the protocol's members anew each time,
    and a schema asks it for every marker."""
    cls = type(generator)
    known = _COLLECTOR_CLASSES.get(cls)
    if known is None:
        known = _COLLECTOR_CLASSES[cls] = isinstance(generator, MarkerCollector)
    return known
