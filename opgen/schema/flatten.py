"""Inline `$ref`s, apply markers, and leave only Kubernetes schema keys.

The flattener walks Pydantic's JSON schema once. Each `$defs` entry is
flattened at most once and the result shared by every use site (memoised, so a
model used in many places costs one build; the YAML dumper writes the copies).
Shared nodes are never modified afterwards: a use site with its own
description, default or markers gets a shallow copy.

At each node, in order:
1. `Schemaless` replaces the node (nothing of the type is described);
2. otherwise a `$ref` is replaced by its flattened definition, the field's own
   description/default/title winning over the type's (controller-gen's rule),
   or the children (properties, items, map values) are flattened;
3. Pydantic leftovers are cleaned (empty defaults, titles, `examples`, ...);
4. markers run by priority, then in source order; the type's CEL rules come
   after the field's;
5. the node's origin (file, class, field) is recorded for error messages.

A `$ref` back to a definition being flattened is a recursive type: an error
naming the chain of fields, unless a `Schemaless` marker cuts it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic_core import PydanticUndefined

from opgen.engine.markers import FLOAT_FLAG, MarkerContext, Placement, SchemaNode
from opgen.engine.openapi import is_known_format
from opgen.engine.values import json_type, validate_value
from opgen.engine.wire import to_wire_value
from opgen.errors import Diagnostic, Location, MarkerError, SchemaError
from opgen.model.kinds import source_file
from opgen.schema.generator import (
    CLASS_KEY,
    ENUM_TITLE_KEY,
    MARKERS_KEY,
    NONE_FLAG,
    KubeJsonSchema,
    PendingMarker,
)

__all__ = ["INTERNAL_KEYS", "Flattened", "Flattener"]

INTERNAL_KEYS = frozenset(
    {MARKERS_KEY, CLASS_KEY, NONE_FLAG, FLOAT_FLAG, ENUM_TITLE_KEY}
)
VALIDATIONS = "x-kubernetes-validations"
_DOC_KEYS = ("description", "title", "example", "externalDocs")
_DROPPED_KEYS = frozenset(
    {
        "readOnly",
        "writeOnly",
        "deprecated",
        "$schema",
        "$id",
        "$comment",
        "discriminator",
    }
)
_EMPTY_DEFAULTS: tuple[Any, ...] = (None, "", [], {})


@dataclass(frozen=True)
class Site:
    """Where a node sits: its origin, whether it is a field, and its JSON path."""

    location: Location
    placement: Placement
    path: str = ""

    def child(self, suffix: str, *, location: Location | None = None) -> Site:
        return Site(location or self.location, Placement.TYPE, self.path + suffix)


@dataclass
class Flattened:
    """A flattened schema and what was learnt on the way."""

    schema: SchemaNode
    origins: dict[int, Location]
    diagnostics: list[Diagnostic] = field(default_factory=list)


class Flattener:
    """Flatten one generated schema (single use, like the generator)."""

    def __init__(self, raw: SchemaNode, generator: KubeJsonSchema) -> None:
        self.raw = raw
        self.defs: dict[str, SchemaNode] = raw.get("$defs", {})
        self.generator = generator
        self.cache: dict[str, SchemaNode] = {}
        self.in_progress: list[tuple[str, SchemaNode, Location]] = []
        self.origins: dict[int, Location] = {}
        self.diagnostics: list[Diagnostic] = []

    def flatten(self, location: Location) -> Flattened:
        top = {key: value for key, value in self.raw.items() if key != "$defs"}
        site = Site(location, Placement.TYPE, "")
        schema = self.node(top, site, self.type_context(location))
        return Flattened(schema, self.origins, self.diagnostics)

    def type_context(self, location: Location) -> MarkerContext:
        return MarkerContext(location, Placement.TYPE)

    # -- one node ------------------------------------------------------------
    def node(self, raw: SchemaNode, site: Site, ctx: MarkerContext) -> SchemaNode:
        raw = dict(raw)
        pending = [self.generator.pending[i] for i in raw.pop(MARKERS_KEY, ())]
        nullable = raw.pop(NONE_FLAG, False) and site.placement is not Placement.FIELD
        location = self.class_location(raw) or site.location
        type_rules: list[SchemaNode] = []
        if any(p.marker.clears_node for p in pending):
            node = {key: raw[key] for key in _DOC_KEYS if key in raw}
        elif "$ref" in raw:
            target = self.definition(raw.pop("$ref"), site)
            siblings = self.clean(raw, site)
            if not siblings and not pending and not nullable:
                return target  # shared as is: the YAML dumper writes each use
            node = dict(target)
            type_rules = node.pop(VALIDATIONS, [])
            node.update(siblings)
        else:
            node = self.clean(self.children(raw, site, location), site)
        if nullable:
            node["nullable"] = True
        node = self.apply_markers(node, pending, site, ctx)
        if type_rules:
            node[VALIDATIONS] = [*node.get(VALIDATIONS, ()), *type_rules]
        node = _with_type(node)
        self.origins[id(node)] = location
        return node

    def class_location(self, raw: SchemaNode) -> Location | None:
        index = raw.get(CLASS_KEY)
        if index is None:
            return None
        cls = self.generator.classes[index]
        return Location(file=source_file(cls), cls=cls.__qualname__)

    def definition(self, ref: str, site: Site) -> SchemaNode:
        name = ref.rsplit("/", 1)[-1]
        cached = self.cache.get(name)
        if cached is not None:
            return cached
        if any(entry[0] == name for entry in self.in_progress):
            raise self.recursion(name, site)
        raw = self.defs[name]
        self.in_progress.append((name, raw, site.location))
        try:
            location = self.class_location(raw) or site.location
            node = self.node(
                raw,
                Site(location, Placement.TYPE, site.path),
                self.type_context(location),
            )
        finally:
            self.in_progress.pop()
        self.cache[name] = node
        return node

    def display_name(self, name: str, raw: SchemaNode) -> str:
        index = raw.get(CLASS_KEY)
        if index is not None:
            return str(self.generator.classes[index].__qualname__)
        name = self.generator.short_name(name)
        return name.split("__")[-2] if "__" in name else name

    def recursion(self, name: str, site: Site) -> SchemaError:
        start = next(i for i, entry in enumerate(self.in_progress) if entry[0] == name)
        chain = [_where(entry[2]) for entry in self.in_progress[start:]]
        chain.append(_where(site.location))
        target = self.display_name(name, self.in_progress[start][1])
        return SchemaError(
            f"recursive type: {_where(site.location)} refers back to {target} "
            f"({' → '.join(chain)} → {target}); a Kubernetes schema cannot be recursive",
            location=site.location,
            hint='cut the cycle: annotate the field with op.Schemaless(), op.Type("object") '
            "and op.PreserveUnknownFields() (for a list, put them on the item type: "
            "list[Annotated[T, ...]])",
        )

    # -- children --------------------------------------------------------------
    def children(self, raw: SchemaNode, site: Site, location: Location) -> SchemaNode:
        index = raw.pop(CLASS_KEY, None)
        cls = self.generator.classes[index] if index is not None else None
        if isinstance(raw.get("properties"), dict):
            self.properties(raw, cls, site)
        if isinstance(raw.get("items"), dict):
            item_site = site.child("[*]", location=location)
            raw["items"] = self.node(
                raw["items"], item_site, self.type_context(location)
            )
        if isinstance(raw.get("additionalProperties"), dict):
            value_site = site.child("{*}", location=location)
            raw["additionalProperties"] = self.node(
                raw["additionalProperties"], value_site, self.type_context(location)
            )
        for junctor in ("anyOf", "allOf", "oneOf"):
            if isinstance(raw.get(junctor), list):
                raw[junctor] = [
                    self.node(branch, site.child(""), self.type_context(location))
                    for branch in raw[junctor]
                ]
        return raw

    def properties(self, raw: SchemaNode, cls: type | None, site: Site) -> None:
        required_in = set(raw.get("required", ()))
        python_names: dict[str, str] = {}
        if cls is not None:
            for name, info in getattr(cls, "model_fields", {}).items():
                python_names[info.alias or name] = name
        file = source_file(cls) if cls is not None else site.location.file
        owner = cls.__qualname__ if cls is not None else site.location.cls
        properties: dict[str, SchemaNode] = {}
        required: list[str] = []
        parent_rules: list[SchemaNode] = []
        for wire, sub in raw["properties"].items():
            location = Location(
                file=file, cls=owner, field=python_names.get(wire, wire)
            )
            admits_none = bool(sub.get(NONE_FLAG))
            base_required = wire in required_in and not admits_none
            ctx = MarkerContext(
                location,
                Placement.FIELD,
                wire_name=wire,
                required=base_required,
            )
            field_site = Site(location, Placement.FIELD, f"{site.path}.{wire}")
            node = self.node(sub, field_site, ctx)
            if node.get("nullable") and not admits_none:
                raise MarkerError(
                    "op.Nullable(): the API server would store null here, which the "
                    "field's Python type cannot hold, so such objects would not parse",
                    location=location,
                    hint="let the type admit None: `Annotated[X, op.Nullable()] | None`",
                )
            if cls is not None and "default" not in node:
                _check_unwritten_default(
                    cls, python_names.get(wire, wire), node, location
                )
            properties[wire] = node
            if ctx.required:
                required.append(wire)
                if "default" in node:
                    self.diagnostics.append(
                        Diagnostic(
                            "the field is required and has a default: the API server "
                            "fills in defaults before it checks required fields, so "
                            "`required` never triggers (and clients that always send "
                            "the field never get the default)",
                            location=location,
                            hint="drop op.Required() (a field with a default is optional), "
                            "or drop the default",
                        )
                    )
            elif admits_none and wire in required_in:
                self.diagnostics.append(
                    Diagnostic(
                        "`X | None` without a default: the CRD makes the field optional, "
                        "but the Python model requires it, so objects without it fail "
                        "to decode",
                        location=location,
                        hint="add `= None`",
                    )
                )
            parent_rules.extend(ctx.parent_rules)
        if properties:
            raw["properties"] = properties
        else:
            # A model without fields is `type: object`, as controller-gen
            # writes a Go `struct{}`.
            raw.pop("properties", None)
        raw.pop("required", None)
        if required:
            raw["required"] = sorted(required)
        if parent_rules:
            raw[VALIDATIONS] = [*raw.get(VALIDATIONS, ()), *parent_rules]

    # -- cleaning and markers -------------------------------------------------
    def clean(self, raw: SchemaNode, site: Site) -> SchemaNode:
        node = {key: value for key, value in raw.items() if key not in _DROPPED_KEYS}
        enum_title = node.pop(ENUM_TITLE_KEY, None)
        if enum_title is not None and node.get("title") == enum_title:
            del node["title"]
        if "default" in node and node["default"] in _EMPTY_DEFAULTS:
            del node["default"]
        if "const" in node:
            node["enum"] = [node.pop("const")]
        if "examples" in node:
            examples = node.pop("examples")
            if isinstance(examples, list) and len(examples) > 1:
                raise SchemaError(
                    "a Kubernetes schema holds one example, not several",
                    location=site.location,
                    hint="keep one (op.Example(value))",
                )
            if examples:
                node["example"] = (
                    examples[0] if isinstance(examples, list) else examples
                )
        fmt = node.get("format")
        if isinstance(fmt, str) and not is_known_format(fmt, node.get("type")):
            # Pydantic's own formats (path, time, ...), which the server ignores.
            del node["format"]
        return node

    def apply_markers(
        self,
        node: SchemaNode,
        pending: list[PendingMarker],
        site: Site,
        ctx: MarkerContext,
    ) -> SchemaNode:
        for item in sorted(pending, key=lambda p: p.marker.priority):
            marker = item.marker
            placement = Placement.TYPE if item.on_class else site.placement
            ctx.location = item.location
            ctx.placement = placement
            if placement not in marker.placements:
                raise MarkerError(
                    f"{marker.display()} cannot stand on "
                    f"{placement.describe()}; it belongs on {marker.placements.describe()}",
                    location=item.location,
                )
            node = marker.apply(node, ctx)
        return node


def _check_unwritten_default(
    cls: type, name: str, node: SchemaNode, location: Location
) -> None:
    """An empty Python default is not written to the CRD, but every object that
    keeps it sends it; refuse one the API server would refuse (`b""` for op.Bytes,
    `""` under a MinLength, `[]` under a MinItems, ...)."""
    info = getattr(cls, "model_fields", {}).get(name)
    if info is None:
        return
    if (
        info.default_factory is not None
        and not info.default_factory_takes_validated_data
    ):
        default = info.default_factory()
    else:
        default = info.default
    if default is None or default is PydanticUndefined:
        return
    wire = to_wire_value(default)
    if wire not in ("", [], {}):
        return  # written to the CRD as its default; the checker validates it
    problems = validate_value(wire, node, "default")
    if problems:
        problem = problems[0].removeprefix("default: ")
        raise SchemaError(
            f"the default {default!r} is sent to the API server by every object "
            f"that keeps it, and the server refuses it: {problem}",
            location=location,
            hint="make the field `X | None = None` to leave it out, or give a "
            "default the schema accepts",
        )


def _where(location: Location) -> str:
    return ".".join(part for part in (location.cls, location.field) if part) or "?"


def _with_type(node: SchemaNode) -> SchemaNode:
    if "type" in node or node.get("x-kubernetes-int-or-string"):
        return node
    if "properties" in node or "additionalProperties" in node:
        return {**node, "type": "object"}
    enum = node.get("enum")
    if isinstance(enum, list) and enum:
        kinds = {json_type(value) for value in enum if value is not None}
        if len(kinds) == 1 and kinds <= {"string", "boolean", "integer"}:
            return {**node, "type": kinds.pop()}
    return node
