"""Structural markers: required/optional, defaults, docs, topology, pruning, items.

These shape the schema rather than bound a value: whether a field is
required, what the API server fills in, how server-side apply merges lists and
maps (`ListType`, `ListMapKey`, `MapType`, `StructType`), what it keeps
(`PreserveUnknownFields`, `EmbeddedResource`, `Schemaless`), and markers for
the items of a list (`Items`).
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pydantic_core
from pydantic import GetCoreSchemaHandler
from pydantic_core import CoreSchema

from opgen.api._validation import choice_argument
from opgen.engine.markers import Marker, MarkerContext, Placement, SchemaNode, node_type
from opgen.engine.naming import to_camel
from opgen.engine.values import constraint_problem
from opgen.engine.wire import to_wire_value
from opgen.errors import MarkerError

__all__ = [
    "Default",
    "EmbeddedResource",
    "Example",
    "ExternalDocs",
    "Items",
    "ListMapKey",
    "ListType",
    "MapType",
    "Optional",
    "PreserveUnknownFields",
    "Required",
    "Schemaless",
    "StructType",
    "Title",
    "Undescribed",
]


@dataclass(frozen=True)
class _Presence(Marker):
    """Base of Required and Optional: they set whether the field is required."""

    placements: ClassVar[Placement] = Placement.FIELD
    priority: ClassVar[int] = 3
    required: ClassVar[bool]

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        ctx.required = self.required
        return node


@dataclass(frozen=True)
class Required(_Presence):
    """The field must be present, even though it has a default or admits None."""

    required: ClassVar[bool] = True


@dataclass(frozen=True)
class Optional(_Presence):
    """The field may be omitted, even though the Python model requires it."""

    required: ClassVar[bool] = False


@dataclass(frozen=True, eq=False)
class _ValueMarker(Marker):
    """Base of markers holding any JSON value: written (and compared) in wire form."""

    value: Any
    keyword: ClassVar[str]

    def __post_init__(self) -> None:
        try:
            to_wire_value(self.value)
        except pydantic_core.PydanticSerializationError as error:
            raise MarkerError(
                f"op.{self.marker_name()}({self.value!r}): not JSON-serialisable"
            ) from error

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, _ValueMarker)
            and type(other) is type(self)
            and to_wire_value(other.value) == to_wire_value(self.value)
        )

    def __hash__(self) -> int:
        return hash((self.marker_name(), repr(to_wire_value(self.value))))

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        return {**node, self.keyword: to_wire_value(self.value)}


@dataclass(frozen=True, eq=False)
class Default(_ValueMarker):
    """The API server fills in `value` when the field is missing (`default`).
    Needed only for `None`, `[]` and `{}`; other Python defaults are written
    automatically."""

    keyword: ClassVar[str] = "default"


@dataclass(frozen=True, eq=False)
class Example(_ValueMarker):
    """An example value shown in documentation (`example`)."""

    keyword: ClassVar[str] = "example"


@dataclass(frozen=True)
class Title(Marker):
    """A short title (`title`). A field's title wins over its type's."""

    text: str
    keyword: ClassVar[str] = "title"

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise MarkerError(f"op.Title({self.text!r}): the title must be a string")

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        return {**node, "title": self.text}


@dataclass(frozen=True)
class Undescribed(Marker):
    """No description at or below the node: the field's, and the ones its type
    brings (a pod template's, hundreds of them), are left out of the CRD.
    What `--max-description-length 0` does for a whole CRD, for one field;
    `opgen import` writes it where a CRD leaves them out."""

    keyword: ClassVar[str] = "x-opgen-undescribed"
    """The fact `opgen.openapi` reads off a node nothing below which is described."""

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        copies: dict[int, SchemaNode] = {}

        def bare(schema: SchemaNode) -> SchemaNode:
            if id(schema) not in copies:
                copies[id(schema)] = below(
                    {k: v for k, v in schema.items() if k != "description"}
                )
            return copies[id(schema)]

        def below(schema: SchemaNode) -> SchemaNode:
            result = dict(schema)
            properties = schema.get("properties")
            if isinstance(properties, dict):
                result["properties"] = {
                    name: bare(child) if isinstance(child, dict) else child
                    for name, child in properties.items()
                }
            for key in ("items", "additionalProperties", "not"):
                if isinstance(schema.get(key), dict):
                    result[key] = bare(schema[key])
            for key in ("anyOf", "allOf", "oneOf"):
                if isinstance(schema.get(key), list):
                    result[key] = [
                        bare(child) if isinstance(child, dict) else child
                        for child in schema[key]
                    ]
            return result

        return bare(node)


@dataclass(frozen=True)
class ExternalDocs(Marker):
    """A link to further documentation (`externalDocs`)."""

    url: str
    description: str | None = None
    keyword: ClassVar[str] = "externalDocs"

    def __post_init__(self) -> None:
        parsed = urllib.parse.urlparse(self.url)
        if not (parsed.scheme and parsed.netloc):
            raise MarkerError(
                f"op.ExternalDocs({self.url!r}): not an absolute URL",
                hint="write the full address, e.g. https://example.com/docs",
            )

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        docs = {"url": self.url}
        if self.description:
            docs["description"] = self.description
        return {**node, "externalDocs": docs}


@dataclass(frozen=True)
class EmbeddedResource(Marker):
    """The value is a whole Kubernetes object with apiVersion, kind and metadata
    (`x-kubernetes-embedded-resource`)."""

    keyword: ClassVar[str] = "x-kubernetes-embedded-resource"

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        if node_type(node) != "object":
            raise ctx.error(
                self,
                f"needs an object, but this is {node_type(node) or 'untyped'}",
                hint="use it on op.RawExtension or on a model",
            )
        return {**node, "x-kubernetes-embedded-resource": True}


@dataclass(frozen=True)
class PreserveUnknownFields(Marker):
    """Keep fields the schema does not describe instead of pruning them
    (`x-kubernetes-preserve-unknown-fields`)."""

    keyword: ClassVar[str] = "x-kubernetes-preserve-unknown-fields"

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        if node.get("x-kubernetes-int-or-string"):
            raise ctx.error(self, "cannot be combined with an int-or-string value")
        return {**node, "x-kubernetes-preserve-unknown-fields": True}


@dataclass(frozen=True)
class Schemaless(Marker):
    """Do not describe the value at all: the schema starts empty, and the other
    markers (usually `Type` and `PreserveUnknownFields`) fill it in. The way to
    cut a recursive type."""

    priority: ClassVar[int] = 0
    clears_node: ClassVar[bool] = True

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        # The schema stage has emptied the node (`clears_node`) before any marker ran.
        return node


_LIST_TYPES = ("atomic", "set", "map")
_MAP_TYPES = ("granular", "atomic")


@dataclass(frozen=True)
class ListType(Marker):
    """How server-side apply merges a list (`x-kubernetes-list-type`): `atomic`
    (replace whole), `set` (unique scalars) or `map` (items keyed by ListMapKey)."""

    kind: str
    keyword: ClassVar[str] = "x-kubernetes-list-type"
    priority: ClassVar[int] = 2

    def __post_init__(self) -> None:
        choice_argument("ListType", self.kind, _LIST_TYPES)

    def check(self, value: Any) -> str | None:
        return constraint_problem(value, {"x-kubernetes-list-type": self.kind})

    def _core_schema(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        # Only a set constrains values (no duplicates; a map's keys are checked
        # by the model, `model_check`): a map or atomic list has no validator,
        # which would run on every list validated for nothing.
        if self.kind != "set":
            return handler(source)
        return super()._core_schema(source, handler)

    def _enforce(self, value: Any) -> Any:
        if isinstance(value, list) and len(value) < 2:
            return value
        return super()._enforce(value)

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        if node_type(node) != "array":
            raise ctx.error(
                self, f"applies to lists, but this is {node_type(node) or 'untyped'}"
            )
        return {**node, "x-kubernetes-list-type": self.kind}


@dataclass(frozen=True)
class ListMapKey(Marker):
    """A key of a `ListType("map")` list (`x-kubernetes-list-map-keys`); repeat it
    for composite keys. Give the wire name or the Python field name."""

    key: str
    keyword: ClassVar[str] = "x-kubernetes-list-map-keys"
    repeatable: ClassVar[bool] = True

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        if node.get("x-kubernetes-list-type") != "map":
            raise ctx.error(self, "needs op.ListType('map') on the same list")
        properties = node.get("items", {}).get("properties", {})
        key = self.key
        if key not in properties and to_camel(key) in properties:
            key = to_camel(key)
        if key not in properties:
            known = ", ".join(sorted(properties)) or "none"
            raise ctx.error(
                self,
                f"the list items have no field {self.key!r}",
                hint=f"their fields: {known}",
            )
        keys = list(node.get("x-kubernetes-list-map-keys", ()))
        if key in keys:
            raise ctx.error(self, f"{key!r} is already a key")
        return {**node, "x-kubernetes-list-map-keys": [*keys, key]}


@dataclass(frozen=True)
class _ObjectMergeType(Marker):
    """Base of MapType and StructType: `x-kubernetes-map-type` on an object node."""

    kind: str
    keyword: ClassVar[str] = "x-kubernetes-map-type"
    applies_to: ClassVar[str]
    """What the marker decorates, for the error message."""

    def __post_init__(self) -> None:
        choice_argument(self.marker_name(), self.kind, _MAP_TYPES)

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        if node_type(node) != "object":
            raise ctx.error(
                self,
                f"applies to {self.applies_to}, but this is {node_type(node) or 'untyped'}",
            )
        return {**node, "x-kubernetes-map-type": self.kind}


@dataclass(frozen=True)
class MapType(_ObjectMergeType):
    """How server-side apply merges a map (`x-kubernetes-map-type`): `granular`
    (per key) or `atomic` (replace whole)."""

    applies_to: ClassVar[str] = "maps"


@dataclass(frozen=True)
class StructType(_ObjectMergeType):
    """How server-side apply merges a model's fields: `granular` or `atomic`
    (written as `x-kubernetes-map-type`, as the API server expects)."""

    applies_to: ClassVar[str] = "models"


@dataclass(frozen=True, init=False)
class Items(Marker):
    """Apply markers to the items of a list: `op.Items(op.MinLength(1), op.Pattern(...))`."""

    markers: tuple[Marker, ...] = field(default=())
    priority: ClassVar[int] = 20

    def __init__(self, *markers: Marker) -> None:
        if not markers:
            raise MarkerError("op.Items(): give at least one marker for the items")
        for marker in markers:
            if isinstance(marker, type) and issubclass(marker, Marker):
                raise MarkerError(
                    f"op.Items({marker.__name__}): call the marker, e.g. {marker.__name__}(...)"
                )
            if not isinstance(marker, Marker):
                raise MarkerError(f"op.Items({marker!r}): not an opgen marker")
            if Placement.TYPE not in marker.placements:
                raise MarkerError(
                    f"op.Items({marker.display()}): {marker.display()} cannot stand on "
                    "list items; it belongs on a field"
                )
        object.__setattr__(self, "markers", tuple(markers))

    def display(self) -> str:
        return f"op.Items({', '.join(m.display() for m in self.markers)})"

    def check(self, value: Any) -> str | None:
        if not isinstance(value, list):
            return None
        for position, item in enumerate(value):
            for marker in self.markers:
                problem = marker.check(item)
                if problem is not None:
                    return f"item {position}: {problem}"
        return None

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        if node_type(node) != "array" or "items" not in node:
            raise ctx.error(
                self,
                f"applies to lists, but this is {node_type(node) or 'untyped'}",
                hint="for map values write dict[str, Annotated[V, marker]]",
            )
        items_ctx = MarkerContext(location=ctx.location, placement=Placement.TYPE)
        items: SchemaNode = dict(node["items"])
        for marker in sorted(self.markers, key=lambda m: m.priority):
            items = marker.apply(items, items_ctx)
        return {**node, "items": items}
