"""Recognise, in a CRD's schema, the nodes that are Kubernetes' own types.

A CRD generated from Go inlines the schema of every `k8s.io/api` type its
fields use: a pod template is 60 KiB of it. `TypeMatcher` is the `Recogniser`
`opgen import` gives the OpenAPI reader (`opgen.openapi.read_schema`): for an
object node it answers the `op.k8s` type (or opgen value type: `Condition`,
`ObjectReference`, `LocalObjectReference`, `OwnerReference`, `ObjectMeta`)
whose schema the node is, so the imported field is typed
`op.k8s.PodTemplateSpec` instead of a copy.

The type's schema is the one opgen writes for it (this stage builds it, as
for any field), compared without descriptions:

- **the same** when every keyword matches, descriptions aside, where the
  node's descriptions (if it has any) read like the type's, and the node has
  at least three fields (counted all the way down), or a description word for
  word the type's, or the field's name shares a word with the type's
  (`secretRef`, LocalObjectReference): a lone `{name}` or a `{name, value}`
  is many projects' own reference or variable before it is `PodOS` or
  `HTTPHeader`;
- **the same type from an older Kubernetes release** when every leaf of the
  node is in the type's schema with the same value, and what the type has
  beyond the node is what newer releases add: fields, defaults, list and map
  types (never a constraint such as `required`, a bound or a pattern, which
  would make the model refuse objects the CRD accepts). Third-party CRDs are
  generated against whatever `k8s.io/api` their project pins. Such a match
  needs at least two of the node's fields and 60% of the type's, so that a
  lone `{name: string}` is not taken for a `LocalObjectReference`, and, where
  the node has descriptions, at least half of them must read like the type's
  (most words shared), so that another project's condition type is not taken
  for `PersistentVolumeClaimCondition`;
- a description inside the node worded otherwise than the type's is also
  what another release differs by: it is listed with the fields that
  release adds, and the type writes its own wording;
- the node's own keywords that a field adds to its type (a `default`, CEL
  rules, `nullable`, ...) stay with the field.

Types with the same schema (`SecretKeySelector` and `ConfigMapKeySelector`)
are told apart by the field's name. Nested `ObjectMeta` (a template's
`metadata`) is recognised in both of controller-gen's forms: `{type: object}`
and, with `generateEmbeddedObjectMeta`, the five fields it then describes.
Every match is recorded (`TypeMatcher.mapped`), with the fields only the
newer release has. The types' fields and schemas come from
`opgen.schema.typecatalogue`, built once per release of opgen and kept in the
user's cache.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from opgen.engine.naming import split_words
from opgen.openapi.parse import (
    EMBEDDED_OBJECT_META,
    UNDESCRIBED,
    Recognised,
    SchemaNode,
)
from opgen.schema.options import EMBEDDED_OBJECT_META_SCHEMA
from opgen.schema.typecatalogue import type_catalogue

__all__ = ["Mapped", "TypeMatcher", "has_descriptions"]

_NEWER_MAY_ADD = frozenset(
    {
        "description",
        "default",
        "x-kubernetes-list-type",
        "x-kubernetes-list-map-keys",
        "x-kubernetes-map-type",
    }
)
"""What a newer release may add to a node of a type, besides fields."""
_FIELD_KEYWORDS = frozenset(
    {
        "default",
        "nullable",
        "x-kubernetes-validations",
        "x-kubernetes-preserve-unknown-fields",
        "x-kubernetes-embedded-resource",
        "x-kubernetes-map-type",
        "title",
        "example",
        "externalDocs",
    }
)
"""What a field may add to the schema of the type it holds (its markers)."""
_MIN_FIELDS = 2
_DISTINCTIVE_FIELDS = 3
_MIN_COVERAGE = 0.6


@dataclass(frozen=True)
class Mapped:
    """One node of a CRD typed as a type opgen has."""

    path: str
    """Where: the reader's path (`Certificate.spec.template`)."""
    name: str
    """The type, as written after `op.` (`k8s.PodTemplateSpec`, `Condition`)."""
    newer_only: tuple[str, ...] = ()
    """What only the type's (newer) schema has: `.field`, or `.path keyword`."""
    embedded_object_meta: bool = False
    """The node describes nested ObjectMeta (controller-gen's
    `generateEmbeddedObjectMeta`)."""
    undescribed: bool = False
    """In a CRD with descriptions, nothing at or below the node is described
    where the type is (inside Argo Workflows' `templateDefaults`):
    `op.Undescribed()`."""


@functools.cache
def _by_field() -> Mapping[str, frozenset[int]]:
    index: dict[str, set[int]] = {}
    for position, fields in enumerate(type_catalogue().fields):
        for name in fields:
            index.setdefault(name, set()).add(position)
    return {name: frozenset(positions) for name, positions in index.items()}


def _schema(position: int, embedded_object_meta: bool) -> SchemaNode:
    """The type's schema, as compared: without descriptions."""
    return type_catalogue().schemas[embedded_object_meta, False][position]


def _described(position: int, embedded_object_meta: bool) -> SchemaNode:
    """The type's schema with its descriptions, to tell types of one shape apart."""
    return type_catalogue().schemas[embedded_object_meta, True][position]


@functools.cache
def _has_object_meta(position: int) -> bool:
    return _schema(position, True) != _schema(position, False)


class TypeMatcher:
    """The reader's `Recogniser` for one import: which object nodes are types
    opgen has. `mapped` lists every match, in reading order."""

    def __init__(self, *, described: bool = False) -> None:
        self.mapped: list[Mapped] = []
        self.described = described
        """The CRD has descriptions: a node without the type's is then
        another release's (or a trimmed copy), as one worded otherwise is."""

    def __call__(self, raw: SchemaNode, where: str) -> Recognised | None:
        field = where.rsplit(".", 1)[-1] if "." in where else ""
        if field == "metadata":
            return self._object_meta(raw, where)
        properties = raw.get("properties")
        if not isinstance(properties, dict) or not properties:
            return None
        names = frozenset(properties)
        positions = _containing(names)
        if not positions:
            return None
        passed: list[tuple[int, Mapped, frozenset[str]]] = []
        catalogue = type_catalogue()
        for position in sorted(positions):
            fields = catalogue.fields[position]
            if names != fields and not _enough(names, fields):
                continue
            if not _names_fit(raw, catalogue.classes[position], depth=3):
                continue  # cheaper than building the type's schema
            for embedded in (False, True):
                if embedded and not _has_object_meta(position):
                    break
                outcome = _compare(raw, _schema(position, embedded))
                if outcome is None:
                    continue
                newer, consumed = outcome
                described = _described(position, embedded)
                undescribed = self.described and not has_descriptions(raw)
                if self.described and not undescribed:
                    newer = [*newer, *_reworded(raw, described, "")]
                if (
                    not newer
                    and _documented_alike(raw, described)
                    and (
                        _distinctive(raw)
                        or _agreement(raw, described) > 0
                        or _affinity(catalogue.names[position], _spelled_out(field)) > 0
                    )
                ) or (
                    newer
                    and _enough(names, fields)
                    and _documented_alike(raw, described)
                ):
                    found = Mapped(
                        where,
                        catalogue.names[position],
                        tuple(newer),
                        embedded,
                        undescribed and _described_inside(described),
                    )
                    passed.append((position, found, consumed))
                break
        if not passed:
            return None
        fewest = min(len(found.newer_only) for _, found, _ in passed)
        passed = [item for item in passed if len(item[1].newer_only) == fewest]
        if len(passed) > 1:
            # Types of the same shape: their documentation, then the field's name.
            context = f"{field} {raw.get('description', '')}"

            def evidence(item: tuple[int, Mapped, frozenset[str]]) -> tuple[int, int]:
                described = _described(item[0], item[1].embedded_object_meta)
                return -_agreement(raw, described), -_affinity(item[1].name, context)

            passed.sort(key=lambda item: (*evidence(item), item[1].name))
            if fewest and evidence(passed[0]) == evidence(passed[1]):
                # Several older releases' types fit (DaemonSetCondition,
                # DeploymentCondition, ...) and nothing tells them apart: the
                # node is the project's own type (KEDA's condition).
                return None
        position, found, consumed = passed[0]
        theirs = _described(position, found.embedded_object_meta).get("description")
        mine = raw.get("description")
        self.mapped.append(found)
        return Recognised(
            found.name,
            consumed,
            description_is_the_types=isinstance(mine, str)
            and isinstance(theirs, str)
            and mine.split() == theirs.split(),
            facts=_form_of(found),
        )

    def _object_meta(self, raw: SchemaNode, where: str) -> Recognised | None:
        bare = {k: v for k, v in raw.items() if k != "description"}
        if bare == {"type": "object"}:
            embedded = False
        elif _without_descriptions(bare) == EMBEDDED_OBJECT_META_SCHEMA:
            embedded = True
        else:
            return None
        found = Mapped(where, "ObjectMeta", (), embedded)
        self.mapped.append(found)
        return Recognised("ObjectMeta", frozenset(bare), facts=_form_of(found))


def _form_of(found: Mapped) -> tuple[tuple[str, Any], ...]:
    """The field's markers: nested ObjectMeta described in the node
    (`op.EmbeddedObjectMeta()`; the plain form is the default), nothing
    described at or below it (`op.Undescribed()`)."""
    facts: list[tuple[str, Any]] = []
    if found.embedded_object_meta:
        facts.append((EMBEDDED_OBJECT_META, True))
    if found.undescribed:
        facts.append((UNDESCRIBED, True))
    return tuple(facts)


def _described_inside(node: Any) -> bool:
    """Whether anything below the node (not the node itself) has a description."""
    return isinstance(node, dict) and has_descriptions(
        {key: value for key, value in node.items() if key != "description"}
    )


def _is_object_meta(schema: Any) -> bool:
    """Whether a node of a type's schema is nested ObjectMeta, in either form."""
    bare = _without_descriptions(schema)
    return bool(bare == {"type": "object"} or bare == EMBEDDED_OBJECT_META_SCHEMA)


def _names_fit(node: Any, model: str, *, depth: int) -> bool:
    """Whether the field names of `node`, `depth` levels down, are the model's
    (read off the catalogue's classes, without comparing schemas)."""
    properties = node.get("properties") if isinstance(node, dict) else None
    if not isinstance(properties, dict):
        return True
    fields = type_catalogue().nested[model]
    if not set(properties) <= set(fields):
        return False
    if depth == 0:
        return True
    for name, sub in properties.items():
        inner = fields[name]
        while isinstance(sub, dict) and (
            "items" in sub or "additionalProperties" in sub
        ):
            sub = sub.get("items") or sub.get("additionalProperties")
        if inner is not None and not _names_fit(sub, inner, depth=depth - 1):
            return False
    return True


def _containing(names: frozenset[str]) -> frozenset[int]:
    """The candidates that have every one of `names`."""
    index = _by_field()
    sets = sorted((index.get(name, frozenset()) for name in names), key=len)
    found = sets[0]
    for other in sets[1:]:
        found &= other
        if not found:
            break
    return found


def _enough(names: frozenset[str], fields: frozenset[str]) -> bool:
    return len(names) >= _MIN_FIELDS and len(names) >= _MIN_COVERAGE * len(fields)


def _distinctive(node: Any) -> bool:
    """Whether a node's shape alone says which type it is: at least
    `_DISTINCTIVE_FIELDS` fields, counted all the way down. A `{name}` or a
    `{name, value}` is many projects' own type (a reference to their kind, an
    environment variable) before it is `PodOS` or `HTTPHeader`; such a node is
    a type of opgen's only where the field's name says so."""
    return _field_count(node) >= _DISTINCTIVE_FIELDS


def has_descriptions(node: Any) -> bool:
    """Whether a schema has a description anywhere."""
    if isinstance(node, dict):
        return any(
            (key == "description" and isinstance(value, str)) or has_descriptions(value)
            for key, value in node.items()
        )
    if isinstance(node, list):
        return any(has_descriptions(value) for value in node)
    return False


def _reworded(node: Any, schema: Any, path: str) -> Iterator[str]:
    """Paths inside `node` whose description is not the type's, word for word
    (another release's wording): the type writes its own there."""
    if not isinstance(node, dict) or not isinstance(schema, dict):
        return
    for name, sub in (node.get("properties") or {}).items():
        theirs = (schema.get("properties") or {}).get(name)
        if not isinstance(sub, dict) or not isinstance(theirs, dict):
            continue
        mine, other = sub.get("description"), theirs.get("description")
        if str(mine or "").split() != str(other or "").split():
            yield f"{path}.{name} description"
        yield from _reworded(sub, theirs, f"{path}.{name}")
    for key, suffix in (("items", "[*]"), ("additionalProperties", "{*}")):
        yield from _reworded(node.get(key), schema.get(key), path + suffix)


def _spelled_out(field: str) -> str:
    """A field's name with a trailing `Ref` read as `Reference`."""
    return field + "erence" if field.endswith("Ref") else field


def _field_count(node: Any) -> int:
    if not isinstance(node, dict):
        return 0
    properties = node.get("properties") or {}
    count = len(properties) + sum(_field_count(sub) for sub in properties.values())
    for key in ("items", "additionalProperties"):
        count += _field_count(node.get(key))
    return count


def _documented_alike(node: Any, schema: Any) -> bool:
    """Whether the fields' descriptions, where the node has them, read like the
    type's: at least half of them share most of their words. An older release
    rewords a few; another project's own type of a similar shape (a condition
    with `status`, `type`, `reason` and `message`) says other things."""
    pairs = list(_description_pairs(node, schema))
    if not pairs:
        return True  # nothing to go by (a CRD without descriptions)
    alike = sum(1 for mine, theirs in pairs if _similar(mine, theirs))
    return alike * 2 >= len(pairs)


def _description_pairs(node: Any, schema: Any) -> Iterator[tuple[str, str]]:
    if not isinstance(node, dict) or not isinstance(schema, dict):
        return
    for name, sub in (node.get("properties") or {}).items():
        theirs = (schema.get("properties") or {}).get(name)
        if isinstance(sub, dict) and isinstance(theirs, dict):
            mine, other = sub.get("description"), theirs.get("description")
            if isinstance(mine, str) and isinstance(other, str):
                yield mine, other
            yield from _description_pairs(sub, theirs)
    for key in ("items", "additionalProperties"):
        yield from _description_pairs(node.get(key), schema.get(key))


def _similar(mine: str, theirs: str) -> bool:
    """Most words shared (Jaccard index of the lower-cased words at least 0.5)."""
    first, second = set(mine.lower().split()), set(theirs.lower().split())
    return len(first & second) * 2 >= len(first | second)


def _agreement(node: Any, schema: Any) -> int:
    """How many descriptions inside `node` are the type's, word for word."""
    if not isinstance(node, dict) or not isinstance(schema, dict):
        return 0
    count = 0
    for name, sub in (node.get("properties") or {}).items():
        theirs = (schema.get("properties") or {}).get(name)
        if isinstance(sub, dict) and isinstance(theirs, dict):
            mine, other = sub.get("description"), theirs.get("description")
            if isinstance(mine, str) and isinstance(other, str):
                count += mine.split() == other.split()
            count += _agreement(sub, theirs)
    for key in ("items", "additionalProperties"):
        count += _agreement(node.get(key), schema.get(key))
    return count


def _affinity(name: str, context: str) -> int:
    """How many words of the type's name the field's name and description have
    (`secretKeyRef` and SecretKeySelector: 2)."""
    lowered = context.lower()
    return sum(
        1 for word in split_words(name.removeprefix("k8s.")) if word.lower() in lowered
    )


def _compare(
    node: SchemaNode, schema: SchemaNode
) -> tuple[list[str], frozenset[str]] | None:
    """None unless `node` is `schema`, or an older release's form of it; else what
    only `schema` has, and the keywords of `node` the type accounts for (the rest
    are the field's own)."""
    newer: list[str] = []
    consumed = set()
    for key in node:
        if key == "description":
            continue
        if key in schema:
            consumed.add(key)
        elif key in _FIELD_KEYWORDS:
            continue
        else:
            return None
    top = {key: node[key] for key in consumed}
    if not _covers(top, schema, "", newer):
        return None
    return newer, frozenset(consumed)


def _covers(node: SchemaNode, schema: SchemaNode, path: str, newer: list[str]) -> bool:
    for key, value in node.items():
        if key == "description":
            continue
        if key == "properties":
            theirs = schema.get("properties")
            if not isinstance(value, dict) or not isinstance(theirs, dict):
                return False
            for name, sub in value.items():
                if name not in theirs or not _covers(
                    sub, theirs[name], f"{path}.{name}", newer
                ):
                    return False
                if (
                    name == "metadata"
                    and _is_object_meta(theirs[name])
                    and _without_descriptions(sub)
                    != _without_descriptions(theirs[name])
                ):
                    # Nested ObjectMeta in the other form, or a project's own
                    # metadata type (prometheus-operator's EmbeddedMetadata):
                    # no release writes it otherwise.
                    return False
            newer.extend(f"{path}.{name}" for name in theirs if name not in value)
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            theirs = schema.get(key)
            suffix = "[*]" if key == "items" else "{*}"
            if not isinstance(theirs, dict) or not _covers(
                value, theirs, path + suffix, newer
            ):
                return False
        elif key == "required":
            if sorted(value) != sorted(schema.get("required", ())):
                return False
        elif key not in schema or schema[key] != value:
            return False
    for key in schema:
        if key not in node:
            if key not in _NEWER_MAY_ADD:
                return False
            if key != "description":
                newer.append(f"{path or '.'} {key}")
    return True


def _without_descriptions(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            key: _without_descriptions(value)
            for key, value in node.items()
            if key != "description"
        }
    if isinstance(node, list):
        return [_without_descriptions(value) for value in node]
    return node
