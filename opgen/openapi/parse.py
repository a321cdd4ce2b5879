"""OpenAPI v3 schema nodes → the models IR.

One reader serves both sources of the reverse direction:
- `read_components(definitions, roots, ...)`: the `components.schemas` of the
  API server's `/openapi/v3/...` documents; every definition reached from a
  root through `$ref` (or `allOf: [{$ref}]`, the v3 form that carries a field's
  own description and default) becomes a model, unless `known` maps it onto a
  value type of `opgen.api` (`Quantity`, `Time`, `ObjectMeta`, ...);
- `read_schema(schema, key, ...)`: one inline schema (a CRD's
  `openAPIV3Schema`), where every object node becomes a model keyed by its
  path, unless `recognise` says it is the schema of a type opgen already has
  (`opgen import` maps nodes onto `op.k8s` types this way).

Value types are also recognised by shape, as controller-gen writes them:
int-or-string (a Quantity when it carries the quantity pattern), `date-time`
strings, preserve-unknown objects (`RawExtension`) and preserve-unknown values
(`JSON`).

Every keyword the shape does not say is kept as a fact, spelled as in the
schema, except those listed in `ignore` (the caller decides what its target
leaves out). A keyword the reader cannot place is an error naming the
definition and path, never silently dropped.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from opgen.engine.naming import to_camel
from opgen.engine.openapi import QUANTITY_PATTERN
from opgen.errors import SchemaError
from opgen.model.openapi import (
    NO_DEFAULT,
    FieldDecl,
    KnownType,
    ListOf,
    MapOf,
    ModelDecl,
    ModelRef,
    ModelSet,
    Node,
    Scalar,
    Shape,
    Untyped,
)

__all__ = [
    "EMBEDDED_OBJECT_META",
    "UNDESCRIBED",
    "Placement",
    "Recognised",
    "Recogniser",
    "SchemaReader",
    "attribute_names",
    "read_components",
    "read_schema",
    "snake_case",
    "wire_words",
]

SchemaNode = dict[str, Any]

_REF_PREFIXES = ("#/components/schemas/", "#/definitions/")
_SCALAR_TYPES = ("string", "integer", "number", "boolean")
_SHAPE_KEYWORDS = frozenset(
    {
        "type",
        "items",
        "additionalProperties",
        "properties",
        "required",
        "description",
        "default",
    }
)
_INT_OR_STRING = [{"type": "integer"}, {"type": "string"}]
_TYPES_DESCRIPTION = " description of the type"
"""Marks, among the keywords a shape accounts for, a description the type writes."""
_RESERVED = frozenset(
    {
        # Names the generated annotations use, which a field of the class body
        # would shadow for the fields after it (`list: ...` then `list[str]`;
        # resource.k8s.io's DeviceAttribute has a field called `bool`).
        "bool",
        "dict",
        "float",
        "int",
        "list",
        "op",
        "str",
        # Names a Pydantic model cannot use for a field, or should not shadow.
        "construct",
        "copy",
        "fields",
        "from_orm",
        "json",
        "parse_file",
        "parse_obj",
        "parse_raw",
        "schema",
        "schema_json",
        "update_forward_refs",
        "validate",
    }
)


@dataclass(frozen=True)
class Placement:
    """Where a model is written: its Python module and class name."""

    module: str
    name: str


@dataclass(frozen=True)
class Recognised:
    """An object node that is the schema of a type `opgen.api` has, by its name
    there (`Condition`, `k8s.PodTemplateSpec`), and the keywords that type's
    schema accounts for; the node's other keywords stay facts (field markers)."""

    name: str
    consumed: frozenset[str]
    description_is_the_types: bool = False
    """The node's description is the type's own, which the type writes anyway."""
    facts: tuple[tuple[str, Any], ...] = ()
    """What the field adds to the type, as keywords its markers write back
    (`EMBEDDED_OBJECT_META`)."""


EMBEDDED_OBJECT_META = "x-opgen-embedded-object-meta"
"""A recognised node's fact: its nested ObjectMeta is described
(`op.EmbeddedObjectMeta()`)."""
UNDESCRIBED = "x-opgen-undescribed"
"""A recognised node's fact: nothing below it is described (`op.Undescribed()`)."""


Recogniser = Callable[[SchemaNode, str], "Recognised | None"]
"""Given an object node and its path (`Kind.spec.template`), the type it is, if any."""


_WORDS = re.compile(
    r"[A-Z]{2,}s(?=[A-Z0-9_]|$)"  # an acronym's plural: podIPs → pod, IPs
    r"|[A-Z]+(?=[A-Z][a-z])"  # an acronym before a word: HTTPGet → HTTP, Get
    r"|[A-Z]?[a-z][a-z0-9]*"
    r"|[A-Z]+[0-9]*"
    r"|[0-9]+"
)


def wire_words(wire_name: str) -> list[str]:
    """The words of a JSON field name, as written: `podIPs` → `pod`, `IPs`;
    `HTTPGet` → `HTTP`, `Get`; `x-ray` → `x`, `ray`."""
    return _WORDS.findall(wire_name)


def snake_case(wire_name: str) -> str:
    """The Python attribute for a JSON field name: `hostIP` → `host_ip`,
    `podIPs` → `pod_ips`, `from` → `from_`."""
    words = [word.lower() for word in wire_words(wire_name)]
    name = "_".join(words) or "field"
    if name[0].isdigit():
        name = f"field_{name}"
    if keyword.iskeyword(name) or keyword.issoftkeyword(name) or name in _RESERVED:
        name += "_"
    if name.startswith("model_"):
        name = f"{name}_"  # Pydantic reserves the model_ prefix
    return name


def attribute_names(wire_names: Iterable[str]) -> dict[str, str]:
    """The Python attribute of each of a model's JSON field names. Where two
    would be one (`mirrorPercent` and `mirror_percent`), the name goes to the
    field whose JSON name `op.Model`'s camelCase rule gives back from it
    (`mirrorPercent`), else to the first in order, and the others get `_2`,
    `_3`, ... (each keeps its JSON name as the alias)."""
    wires = list(wire_names)
    claims: dict[str, list[str]] = {}
    for wire in wires:
        claims.setdefault(snake_case(wire), []).append(wire)
    taken = set(claims)
    names: dict[str, str] = {}
    for name, claimants in claims.items():
        natural = [w for w in claimants if to_camel(name) == w]
        ordered = natural[:1] + [w for w in claimants if w not in natural[:1]]
        names[ordered[0]] = name
        number = 2
        for wire in ordered[1:]:
            while f"{name}_{number}" in taken:
                number += 1
            names[wire] = f"{name}_{number}"
            taken.add(names[wire])
    return {wire: names[wire] for wire in wires}


class SchemaReader:
    """Reads schema nodes into one `ModelSet` (single use)."""

    def __init__(
        self,
        definitions: Mapping[str, SchemaNode],
        *,
        place: Callable[[str], Placement],
        known: Mapping[str, str] | None = None,
        ignore: Collection[str] = (),
        recognise: Recogniser | None = None,
    ) -> None:
        self.definitions = definitions
        self.place = place
        self.known = dict(known or {})
        self.ignore = frozenset(ignore)
        self.recognise = recognise
        self._recognised_facts: dict[str, tuple[tuple[str, Any], ...]] = {}
        self.models: dict[str, ModelDecl] = {}
        self._reading: set[str] = set()
        self._names: dict[tuple[str, str], str] = {}

    def result(self) -> ModelSet:
        return ModelSet(models=dict(sorted(self.models.items())))

    # -- definitions ---------------------------------------------------------
    def definition(self, key: str, where: str) -> Shape:
        """The shape a `$ref` to `key` stands for (reading the model once)."""
        if key in self.known:
            return KnownType(self.known[key])
        if key not in self.definitions:
            raise SchemaError(f"{where}: $ref to {key!r}, which is not defined")
        if key not in self.models and key not in self._reading:
            raw = self.definitions[key]
            if _is_object_with_properties(raw):
                self.read_model(key, raw)
            else:
                return self.node(raw, owner=key, path="").shape
        return ModelRef(key)

    def read_model(self, key: str, raw: SchemaNode, *, inline: bool = False) -> str:
        """Read an object schema as the model `key`. An inline model leaves its
        description to the node that holds it (as the field's own)."""
        self._reading.add(key)
        placement = self.place(key)
        clash = self._names.get((placement.module, placement.name))
        if clash is not None and clash != key:
            raise SchemaError(
                f"{key} and {clash} would both be the class "
                f"{placement.module}.{placement.name}",
                hint="place one of them in another module or under another name",
            )
        self._names[(placement.module, placement.name)] = key
        required = set(raw.get("required", ()))
        unknown_required = sorted(required - set(raw.get("properties", {})))
        if unknown_required:
            raise SchemaError(
                f"{key}: required lists {', '.join(unknown_required)}, "
                "which are not properties"
            )
        fields: list[FieldDecl] = []
        python_names = attribute_names(raw.get("properties", {}))
        for wire, sub in raw.get("properties", {}).items():
            name = python_names[wire]
            fields.append(
                FieldDecl(
                    name=name,
                    wire_name=wire,
                    node=self.node(sub, owner=key, path=f".{wire}"),
                    required=wire in required,
                )
            )
        # The node that holds the model carries its default (a field's own).
        facts = self.facts(
            raw,
            exclude={"properties", "required", "description", "type", "default"},
            where=key,
        )
        self.models[key] = ModelDecl(
            key=key,
            name=placement.name,
            module=placement.module,
            description=None if inline else raw.get("description"),
            fields=tuple(fields),
            facts=facts,
            source=key,
        )
        self._reading.discard(key)
        return key

    # -- nodes -----------------------------------------------------------------
    def node(self, raw: SchemaNode, *, owner: str, path: str) -> Node:
        """One schema node at `path` inside the definition (or model) `owner`."""
        where = f"{owner}{path}"
        raw = _single_ref(raw, where)
        description = raw.get("description")
        default = raw.get("default", NO_DEFAULT)
        if "$ref" in raw:
            shape = self.definition(_ref_key(raw["$ref"], where), where)
            exclude = {"$ref", "description", "default"}
            return Node(
                shape,
                description,
                default,
                self.facts(raw, exclude=exclude, where=where),
            )
        shape, consumed = self.shape(raw, owner=owner, path=path)
        facts = self.facts(
            raw, exclude=consumed | {"description", "default"}, where=where
        )
        facts = tuple(sorted(facts + self._recognised_facts.pop(where, ())))
        if _TYPES_DESCRIPTION in consumed:
            description = None
        return Node(shape, description, default, facts)

    def shape(
        self, raw: SchemaNode, *, owner: str, path: str
    ) -> tuple[Shape, set[str]]:
        """The shape of a node without `$ref`, and the keywords it accounts for."""
        where = f"{owner}{path}"
        node_type = raw.get("type")
        if raw.get("x-kubernetes-int-or-string") or _is_oneof_int_or_string(raw):
            consumed = {"x-kubernetes-int-or-string", "anyOf", "oneOf"}
            if raw.get("format") == "int-or-string":
                consumed.add("format")
            if raw.get("pattern") == QUANTITY_PATTERN:
                return KnownType("Quantity"), consumed | {"pattern"}
            return KnownType("IntOrString"), consumed
        if node_type in _SCALAR_TYPES:
            fmt = raw.get("format")
            if node_type == "string" and fmt == "date-time":
                return KnownType("Time"), {"type", "format"}
            return Scalar(node_type, fmt), {"type", "format"}
        if node_type == "array":
            items = raw.get("items")
            if not isinstance(items, dict):
                raise SchemaError(f"{where}: an array without items")
            item = self.node(items, owner=owner, path=f"{path}[*]")
            return ListOf(item), {"type", "items"}
        if node_type == "object" or (node_type is None and "properties" in raw):
            found = self.recognise(raw, where) if self.recognise else None
            if found is not None:
                consumed = set(found.consumed)
                if found.description_is_the_types:
                    consumed.add(_TYPES_DESCRIPTION)
                if found.facts:
                    self._recognised_facts[where] = found.facts
                return KnownType(found.name), consumed
            values = raw.get("additionalProperties")
            if isinstance(values, dict) and "properties" not in raw:
                value = self.node(values, owner=owner, path=f"{path}{{*}}")
                return MapOf(value), {"type", "additionalProperties"}
            # A list item's or map value's description is its type's (the class
            # docstring); a field's stays with the field.
            inline = not path.endswith(("[*]", "{*}"))
            if "properties" in raw:
                key = f"{owner}{path}"
                return ModelRef(self.read_model(key, raw, inline=inline)), {
                    "type",
                    "properties",
                    "required",
                    *(k for k in raw if k not in _SHAPE_KEYWORDS),
                }
            if raw.get("x-kubernetes-preserve-unknown-fields"):
                return KnownType("RawExtension"), {
                    "type",
                    "x-kubernetes-preserve-unknown-fields",
                }
            key = f"{owner}{path}"
            return ModelRef(self.read_model(key, raw, inline=inline)), {"type"} | set(
                raw
            ) - {
                "description",
                "default",
            }
        if node_type is None:
            if raw.get("x-kubernetes-preserve-unknown-fields") and not (
                set(raw) & {"items", "additionalProperties", "properties"}
            ):
                return KnownType("JSON"), {"x-kubernetes-preserve-unknown-fields"}
            return Untyped(), set()
        raise SchemaError(f"{where}: unknown type {node_type!r}")

    def facts(
        self, raw: SchemaNode, *, exclude: Collection[str], where: str
    ) -> tuple[tuple[str, Any], ...]:
        kept = []
        for key in sorted(raw):
            if key in exclude or key in self.ignore:
                continue
            if key in ("properties", "items", "additionalProperties"):
                raise SchemaError(
                    f"{where}: {key!r} where it cannot be read",
                    hint="the schema mixes shapes opgen cannot turn into one Python type",
                )
            kept.append((key, raw[key]))
        return tuple(kept)


def read_components(
    definitions: Mapping[str, SchemaNode],
    roots: Iterable[str],
    *,
    place: Callable[[str], Placement],
    known: Mapping[str, str] | None = None,
    ignore: Collection[str] = (),
) -> ModelSet:
    """Every model reachable from `roots` in OpenAPI `components.schemas`."""
    reader = SchemaReader(definitions, place=place, known=known, ignore=ignore)
    for root in roots:
        reader.definition(root, where=root)
    return reader.result()


def read_schema(
    schema: SchemaNode,
    key: str,
    *,
    place: Callable[[str], Placement],
    known: Mapping[str, str] | None = None,
    ignore: Collection[str] = (),
    recognise: Recogniser | None = None,
) -> ModelSet:
    """The models of one inline schema; the root object is the model `key`, nested
    objects are keyed `key.field.sub[*]...` by their path."""
    reader = SchemaReader(
        {}, place=place, known=known, ignore=ignore, recognise=recognise
    )
    is_object = schema.get("type") == "object" or (
        "type" not in schema and isinstance(schema.get("properties"), dict)
    )
    if not is_object:
        raise SchemaError(f"{key}: the schema is not an object")
    reader.read_model(key, schema)
    return reader.result()


def _single_ref(raw: SchemaNode, where: str) -> SchemaNode:
    """`{allOf: [{$ref: X}], description, default}` (OpenAPI v3's way to give a
    reference siblings) → `{$ref: X, description, default}`."""
    all_of = raw.get("allOf")
    if all_of is None:
        return raw
    if (
        isinstance(all_of, list)
        and len(all_of) == 1
        and isinstance(all_of[0], dict)
        and set(all_of[0]) == {"$ref"}
        and "$ref" not in raw
    ):
        flattened = {k: v for k, v in raw.items() if k != "allOf"}
        flattened["$ref"] = all_of[0]["$ref"]
        return flattened
    if isinstance(all_of, list) and all(
        isinstance(part, dict) and not (set(part) & {"$ref", "type", "properties"})
        for part in all_of
    ):
        return raw  # validation-only allOf: kept as a fact
    raise SchemaError(f"{where}: allOf that is not a single $ref cannot be read")


def _ref_key(ref: object, where: str) -> str:
    if isinstance(ref, str):
        for prefix in _REF_PREFIXES:
            if ref.startswith(prefix):
                return ref.removeprefix(prefix)
    raise SchemaError(f"{where}: unsupported $ref {ref!r}")


def _is_oneof_int_or_string(raw: SchemaNode) -> bool:
    """The API server's own spelling of IntOrString: oneOf integer/string with
    `format: int-or-string`."""
    branches = raw.get("oneOf") or raw.get("anyOf")
    return (
        raw.get("format") == "int-or-string"
        and isinstance(branches, list)
        and sorted(branches, key=lambda b: str(b.get("type"))) == _INT_OR_STRING
    )


def _is_object_with_properties(raw: SchemaNode) -> bool:
    return raw.get("type") in ("object", None) and isinstance(
        raw.get("properties"), dict
    )
