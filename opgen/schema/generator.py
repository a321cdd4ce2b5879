"""Pydantic's JSON-schema generator, adjusted for Kubernetes one type at a time.

`KubeJsonSchema` overrides one method per type adjustment (Optional, ints and
floats, Literal, Enum, dicts, Any, unions, sets, tuples, bytes, models) and
refuses types with no Kubernetes mapping with a `SchemaError` naming the class
and field. It leaves `$ref`s and `$defs` as Pydantic makes them; `flatten`
inlines them afterwards.

It also keeps what the later stages need and Pydantic would lose:
- markers found in `Annotated` metadata are recorded (`attach_marker`: the
  generator is a `MarkerCollector`, see `opgen.engine.reading`) with the class
  and field they were written on, and tagged onto their node by index; the
  markers decorating a model come from `type_markers(cls)`;
- model nodes are tagged with the model class they describe;
- small flags for `X | None` (optional) and floats.
Internal keys all start with `x-opgen-` and never reach the output.
"""

from __future__ import annotations

import enum
import inspect
import math
from dataclasses import dataclass
from typing import Any

import pydantic_core
from pydantic import PydanticUserError
from pydantic.json_schema import (
    DefsRef,
    GenerateJsonSchema,
    JsonSchemaMode,
    JsonSchemaValue,
)
from pydantic_core import core_schema

from opgen.api import Model
from opgen.engine.markers import FLOAT_FLAG, Marker, SchemaNode
from opgen.engine.naming import to_camel
from opgen.engine.reading import type_markers
from opgen.engine.values import json_type
from opgen.engine.wire import to_wire_value
from opgen.errors import Location, SchemaError
from opgen.load import docstrings
from opgen.load.context import RunContext
from opgen.model.kinds import source_file
from opgen.schema import annotated

__all__ = [
    "CLASS_KEY",
    "ENUM_TITLE_KEY",
    "MARKERS_KEY",
    "NONE_FLAG",
    "KubeJsonSchema",
    "PendingMarker",
]

MARKERS_KEY = "x-opgen-markers"
CLASS_KEY = "x-opgen-class"
NONE_FLAG = "x-opgen-none"
ENUM_TITLE_KEY = "x-opgen-enum-title"


@dataclass(frozen=True)
class PendingMarker:
    """A marker found during generation, and where it was written."""

    marker: Marker
    location: Location
    on_class: bool = False
    """True for markers used as decorators on the model class."""


class KubeJsonSchema(GenerateJsonSchema):
    """Single-use generator (as all Pydantic generators): one per kind version.

    `run` is the run's context, where the loader left the user modules' files and
    the attribute docstrings are read from (see `opgen.load.docstrings`)."""

    def __init__(self, run: RunContext | None = None) -> None:
        super().__init__(by_alias=True)
        self.run = RunContext() if run is None else run
        self.pending: list[PendingMarker] = []
        self.classes: list[type[Any]] = []
        self._class_index: dict[type[Any], int] = {}
        self._field_names: dict[int, str] = {}
        self._frames: list[tuple[type[Any], str | None]] = []
        self._mode_config: object = None
        self._mode_override: JsonSchemaMode | None = None

    @property
    def mode(self) -> JsonSchemaMode:
        """Pydantic's: the innermost config's `json_schema_mode_override`, else the
        mode asked for. Read for every node, so the override is looked up once per
        config rather than through `ConfigWrapper.__getattr__` each time."""
        config = self._config_wrapper_stack.tail
        if config is not self._mode_config:
            self._mode_config = config
            self._mode_override = config.json_schema_mode_override
        return self._mode if self._mode_override is None else self._mode_override

    def generate(
        self, schema: core_schema.CoreSchema, mode: JsonSchemaMode = "validation"
    ) -> JsonSchemaValue:
        """Pydantic's `generate`, without renaming the `$defs` to short names.

        The flattener inlines every `$ref`, so no name reaches a CRD; Pydantic's
        renaming deep-copies and compares every definition, a tenth of the schema
        stage. `short_name` gives the name Pydantic would have, for messages."""
        self._mode = mode
        if self._used:
            raise PydanticUserError(
                "This JSON schema generator has already been used to generate a "
                f"JSON schema. You must create a new instance of {type(self).__name__} "
                "to generate a new JSON schema.",
                code="json-schema-already-used",
            )
        json_schema: JsonSchemaValue = self.generate_inner(schema)
        counts = self.get_json_ref_counts(json_schema)  # raises for invalid types
        ref = json_schema.get("$ref")
        if ref is not None and len(json_schema) == 1 and counts[ref] == 1:
            # The only reference to the top model, and nothing beside it: unpacked.
            target = self.get_schema_from_definitions(ref)
            if target is not None:
                json_schema = target.copy()
        self._garbage_collect_definitions(json_schema)
        if self.definitions:
            json_schema["$defs"] = self.definitions
        self._used = True
        return self.sort(json_schema)

    def short_name(self, name: str) -> str:
        """The name Pydantic's `generate` gives the definition `name` (this one keeps
        the long, unique ones)."""
        remapping = self._build_definitions_remapping()
        return str(remapping.defs_remapping.get(DefsRef(name), name))

    # -- context -----------------------------------------------------------
    def location(self) -> Location:
        """The class and field being generated right now."""
        if not self._frames:
            return Location()
        cls, field = self._frames[-1]
        return Location(file=source_file(cls), cls=cls.__qualname__, field=field)

    def error(self, message: str, hint: str | None = None) -> SchemaError:
        return SchemaError(message, location=self.location(), hint=hint)

    def attach_marker(self, schema: SchemaNode, marker: Marker) -> SchemaNode:
        """Called by a marker's `__get_pydantic_json_schema__`: remember it on its node."""
        return self._tag(schema, PendingMarker(marker, self.location()))

    def _tag(self, schema: SchemaNode, pending: PendingMarker) -> SchemaNode:
        self.pending.append(pending)
        tagged = dict(schema)
        tagged[MARKERS_KEY] = [*schema.get(MARKERS_KEY, ()), len(self.pending) - 1]
        return tagged

    # -- models and fields -------------------------------------------------
    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        cls = schema["cls"]
        if not issubclass(cls, Model):
            raise self.error(
                f"{cls.__qualname__} is a pydantic.BaseModel, not an op.Model"
                f"{_snake_example(cls)}",
                hint=f"make it `class {cls.__qualname__}(op.Model)`: op.Model is "
                "configured for Kubernetes (camelCase on the wire, docstrings as "
                "descriptions, markers enforced)",
            )
        self._frames.append((cls, None))
        try:
            annotated.check_model(cls, self.location())
            json_schema = super().model_schema(schema)
        finally:
            self._frames.pop()
        if "$ref" in json_schema:
            # A custom __get_pydantic_json_schema__ returned a reference.
            return json_schema
        json_schema.pop("title", None)
        json_schema.pop("deprecated", None)
        extra = json_schema.pop("additionalProperties", None)
        if extra is True:  # extra="allow": keep what the schema does not describe
            json_schema["x-kubernetes-preserve-unknown-fields"] = True
        if cls not in self._class_index:
            self._class_index[cls] = len(self.classes)
            self.classes.append(cls)
        json_schema[CLASS_KEY] = self._class_index[cls]
        for marker in type_markers(cls):
            where = Location(file=source_file(cls), cls=cls.__qualname__)
            json_schema = self._tag(
                json_schema, PendingMarker(marker, where, on_class=True)
            )
        return json_schema

    def model_fields_schema(
        self, schema: core_schema.ModelFieldsSchema
    ) -> JsonSchemaValue:
        for name, field in schema["fields"].items():
            self._field_names[id(field)] = name
        return super().model_fields_schema(schema)

    def model_field_schema(self, schema: core_schema.ModelField) -> JsonSchemaValue:
        cls = self._frames[-1][0] if self._frames else object
        name = self._field_names.get(id(schema))
        self._frames.append((cls, name))
        try:
            json_schema = super().model_field_schema(schema)
        finally:
            self._frames.pop()
        # The attribute docstring Pydantic was not asked to read, from the run's
        # data: where Pydantic puts it, and an explicit Field(description=) still
        # wins (Pydantic applies it over this node).
        doc = docstrings.field_docstring(cls, name, self.run) if name else None
        if doc is not None and "description" not in json_schema:
            json_schema = {**json_schema, "description": doc}
        return json_schema

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        json_schema = dict(self.generate_inner(schema["schema"]))
        if "default" not in schema:  # default_factory: optional, nothing to publish
            return json_schema
        try:
            json_schema["default"] = self._wire_default(
                schema["default"], schema["schema"]
            )
        except (
            pydantic_core.PydanticSerializationError,
            ValueError,
            TypeError,
        ) as error:
            raise self.error(
                f"the default {schema['default']!r} cannot be written as JSON ({error})"
            ) from None
        return json_schema

    def _wire_default(self, value: Any, inner: core_schema.CoreSchema) -> Any:
        if value is None:
            return None
        try:
            # The field's own serialiser knows special types (Duration, Bytes, Time).
            serializer = pydantic_core.SchemaSerializer(inner)
            encoded = serializer.to_python(
                value, mode="json", by_alias=True, exclude_none=True
            )
        except (pydantic_core.SchemaError, pydantic_core.PydanticSerializationError):
            # SchemaError: a schema that refers to definitions (a model, a recursive
            # or shared type) cannot stand alone. PydanticSerializationError: the
            # field's serialiser refuses the value, e.g. a default not of the
            # field's type (Pydantic does not validate defaults). Either way the
            # value's own wire form is written; the checker judges it.
            encoded = to_wire_value(value)
        return _drop_nulls(encoded)

    # -- scalars -----------------------------------------------------------
    def int_schema(self, schema: core_schema.IntSchema) -> JsonSchemaValue:
        return _openapi_bounds(super().int_schema(schema))

    def float_schema(self, schema: core_schema.FloatSchema) -> JsonSchemaValue:
        json_schema = _openapi_bounds(super().float_schema(schema))
        json_schema[FLOAT_FLAG] = True
        return json_schema

    def decimal_schema(self, schema: core_schema.DecimalSchema) -> JsonSchemaValue:
        raise self.error(
            "Decimal has no exact Kubernetes type",
            hint="use op.Quantity for amounts, or str, or op.Float (rounding!)",
        )

    def bytes_schema(self, schema: core_schema.BytesSchema) -> JsonSchemaValue:
        raise self.error(
            "plain bytes would be sent as URL-safe base64, which the API server rejects",
            hint="use op.Bytes (standard base64 on the wire)",
        )

    def timedelta_schema(self, schema: core_schema.TimedeltaSchema) -> JsonSchemaValue:
        raise self.error(
            "timedelta is written as ISO 8601 (PT30S); Kubernetes durations are Go strings (30s)",
            hint="use op.Duration",
        )

    def none_schema(self, schema: core_schema.NoneSchema) -> JsonSchemaValue:
        raise self.error("a field that can only be None has no Kubernetes type")

    def complex_schema(self, schema: core_schema.ComplexSchema) -> JsonSchemaValue:
        raise self.error("complex numbers have no Kubernetes type")

    def literal_schema(self, schema: core_schema.LiteralSchema) -> JsonSchemaValue:
        values = [
            v.value if isinstance(v, enum.Enum) else v for v in schema["expected"]
        ]
        return self._enum_node(values, "Literal")

    def enum_schema(self, schema: core_schema.EnumSchema) -> JsonSchemaValue:
        enum_type = schema["cls"]
        node = self._enum_node(
            [member.value for member in schema["members"]], enum_type.__name__
        )
        doc = enum_type.__doc__
        if doc and inspect.cleandoc(doc) != "An enumeration.":
            node["description"] = inspect.cleandoc(doc)
        # Pydantic stamps the enum's class name as `title` afterwards; flatten drops it.
        node[ENUM_TITLE_KEY] = enum_type.__name__
        return node

    def _enum_node(self, values: list[Any], what: str) -> JsonSchemaValue:
        encoded = [pydantic_core.to_jsonable_python(v) for v in values]
        kinds = {json_type(v) for v in encoded}
        if kinds == {"string"}:
            return {"type": "string", "enum": encoded}
        if kinds <= {"integer"}:
            return {"type": "integer", "enum": encoded}
        if kinds <= {"integer", "number"}:
            return {"type": "number", "enum": encoded, FLOAT_FLAG: True}
        if kinds == {"boolean"}:
            return {"type": "boolean", "enum": encoded}
        if kinds == {"integer", "string"}:
            return {
                "anyOf": [{"type": "integer"}, {"type": "string"}],
                "x-kubernetes-int-or-string": True,
                "enum": encoded,
            }
        raise self.error(
            f"{what} mixes values of types {', '.join(sorted(kinds))}; "
            "a Kubernetes enum holds one type (or integers and strings)"
        )

    # -- containers --------------------------------------------------------
    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        inner = dict(self.generate_inner(schema["schema"]))
        inner[NONE_FLAG] = True
        return inner

    def union_schema(self, schema: core_schema.UnionSchema) -> JsonSchemaValue:
        choices: list[JsonSchemaValue] = []
        for choice in core_schema.iter_union_choices(schema):
            generated = self.generate_inner(choice)
            if generated not in choices:
                choices.append(generated)
        if len(choices) == 1:  # e.g. Path: a str-or-instance union with one JSON form
            return choices[0]
        kinds = [choice.get("type") for choice in choices]
        if sorted(str(k) for k in kinds) == ["integer", "string"] and all(
            set(choice) == {"type"} for choice in choices
        ):
            return {
                "anyOf": [{"type": "integer"}, {"type": "string"}],
                "x-kubernetes-int-or-string": True,
            }
        shown = ", ".join(str(k or "a model") for k in kinds)
        raise self.error(
            f"a union ({shown}) has no structural Kubernetes schema",
            hint="use one model with optional fields and op.ExactlyOneOf(...), "
            "or op.IntOrString for int | str",
        )

    def tagged_union_schema(
        self, schema: core_schema.TaggedUnionSchema
    ) -> JsonSchemaValue:
        raise self.error(
            "a discriminated union has no structural Kubernetes schema",
            hint="use one model with optional fields and op.ExactlyOneOf(...)",
        )

    def dict_schema(self, schema: core_schema.DictSchema) -> JsonSchemaValue:
        keys = schema.get("keys_schema")
        if keys is not None and keys.get("type") not in ("str", "any"):
            raise self.error(
                "map keys must be plain strings in Kubernetes",
                hint="use dict[str, ...]; constrain keys with an op.Rule on the field",
            )
        if keys is not None and any(
            k in keys for k in ("pattern", "min_length", "max_length")
        ):
            raise self.error(
                "map keys cannot be constrained in a Kubernetes schema",
                hint="use dict[str, ...] and an op.Rule such as "
                "\"self.all(k, k.matches('^[a-z]+$'))\"",
            )
        json_schema: JsonSchemaValue = {"type": "object"}
        values = schema.get("values_schema")
        if values is None or (
            values.get("type") == "any" and not values.get("metadata")
        ):
            json_schema["x-kubernetes-preserve-unknown-fields"] = True
        else:
            json_schema["additionalProperties"] = self.generate_inner(values)
        self.update_with_validations(
            json_schema, schema, self.ValidationsMapping.object
        )
        return json_schema

    def list_schema(self, schema: core_schema.ListSchema) -> JsonSchemaValue:
        json_schema = super().list_schema(schema)
        if not json_schema.get("items"):
            json_schema["items"] = {"x-kubernetes-preserve-unknown-fields": True}
        return json_schema

    def set_schema(self, schema: core_schema.SetSchema) -> JsonSchemaValue:
        return self._set(super().set_schema(schema))

    def frozenset_schema(self, schema: core_schema.FrozenSetSchema) -> JsonSchemaValue:
        return self._set(super().frozenset_schema(schema))

    def _set(self, json_schema: JsonSchemaValue) -> JsonSchemaValue:
        json_schema.pop("uniqueItems", None)
        json_schema["x-kubernetes-list-type"] = "set"
        return json_schema

    def tuple_schema(self, schema: core_schema.TupleSchema) -> JsonSchemaValue:
        variadic = schema.get("variadic_item_index")
        items = schema["items_schema"]
        if variadic == 0 and len(items) == 1:
            json_schema: JsonSchemaValue = {
                "type": "array",
                "items": self.generate_inner(items[0]),
            }
            self.update_with_validations(
                json_schema, schema, self.ValidationsMapping.array
            )
            return json_schema
        raise self.error(
            "a fixed-shape tuple has no Kubernetes schema",
            hint="use list[T] with op.MinItems/op.MaxItems, or a model with named fields",
        )

    def any_schema(self, schema: core_schema.AnySchema) -> JsonSchemaValue:
        return {"x-kubernetes-preserve-unknown-fields": True}

    # -- refusals ------------------------------------------------------------
    def dataclass_schema(self, schema: core_schema.DataclassSchema) -> JsonSchemaValue:
        cls = schema["cls"]
        raise self.error(
            f"{cls.__qualname__} is a dataclass; opgen describes op.Model classes "
            "only (a dataclass's fields would keep their Python names on the wire, "
            "and its title would leak into the CRD)",
            hint=f"make it `class {cls.__qualname__}(op.Model)` with the same fields",
        )

    def is_instance_schema(
        self, schema: core_schema.IsInstanceSchema
    ) -> JsonSchemaValue:
        cls = schema["cls"]
        raise self.error(
            f"{getattr(cls, '__qualname__', cls)} is an arbitrary class with no Kubernetes schema",
            hint="use an op.Model subclass, or a plain type (str, int, list, dict)",
        )

    def handle_invalid_for_json_schema(
        self, schema: Any, error_info: str
    ) -> JsonSchemaValue:
        raise self.error(f"this type has no Kubernetes schema ({error_info})")

    def emit_warning(self, kind: Any, detail: str) -> None:
        raise self.error(f"cannot describe this field: {detail}")


def _snake_example(cls: type[Any]) -> str:
    """`: its field secret_name would be 'secret_name' on the wire, not 'secretName'`,
    for the first field whose wire name is not Kubernetes' camelCase."""
    for name, info in getattr(cls, "model_fields", {}).items():
        wire = info.serialization_alias or info.alias or name
        if wire != to_camel(name):
            return (
                f": its field {name} would be {wire!r} on the wire, "
                f"not {to_camel(name)!r}"
            )
    return ""


def _openapi_bounds(json_schema: JsonSchemaValue) -> JsonSchemaValue:
    """JSON Schema 2020 numeric exclusive bounds → OpenAPI 3.0 boolean form."""
    for bound, limit in (
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ):
        value = json_schema.get(bound)
        if isinstance(value, int | float) and not isinstance(value, bool):
            json_schema[limit] = value
            json_schema[bound] = True
    for key in ("minimum", "maximum", "multipleOf"):
        value = json_schema.get(key)
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            json_schema[key] = int(value)
    return json_schema


def _drop_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_nulls(v) for v in value]
    return value
