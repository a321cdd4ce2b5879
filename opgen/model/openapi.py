"""The IR of the reverse direction: models and fields read from OpenAPI schemas.

`opgen.openapi` builds it from the API server's `/openapi/v3` documents or from
a CRD's `openAPIV3Schema`; `opgen.render.models` writes it as Python modules of
`op.Model` classes. Plain frozen dataclasses, no I/O.

Every schema node is a `Node`: its `shape` (what Python type it becomes) and
the schema keywords that shape does not already say (`facts`, spelled as in
the schema: `maxLength`, `x-kubernetes-list-type`, `x-kubernetes-validations`,
...), each of which the renderer writes as the matching opgen marker, so a CRD
generated from the rendered models carries them again. Nothing of the schema
is dropped here: what a target leaves out is decided by the stage that builds
the IR for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from opgen.model.kinds import (
    BuiltinResource,
    KindNames,
    KindVersion,
    Scope,
)

__all__ = [
    "NO_DEFAULT",
    "AliasDecl",
    "FieldDecl",
    "KnownType",
    "ListOf",
    "MapOf",
    "ModelDecl",
    "ModelRef",
    "ModelSet",
    "ModuleDecl",
    "Node",
    "ResourceDecl",
    "Scalar",
    "Shape",
    "Untyped",
    "walk",
]


class _NoDefault:
    """The absence of a `default` keyword (a default may be JSON `null`)."""

    _instance: _NoDefault | None = None

    def __new__(cls) -> _NoDefault:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NO_DEFAULT"

    def __bool__(self) -> bool:
        return False


NO_DEFAULT: Any = _NoDefault()

ScalarType = Literal["string", "integer", "number", "boolean"]


@dataclass(frozen=True)
class Scalar:
    """`type: string | integer | number | boolean` (with its `format`, if any)."""

    type: ScalarType
    format: str | None = None


@dataclass(frozen=True)
class KnownType:
    """A value type `opgen.api` defines, by its name there (`Quantity`, `Time`,
    `IntOrString`, `ObjectMeta`, `Condition`, ...): its schema is fixed."""

    name: str


@dataclass(frozen=True)
class ModelRef:
    """A model (or alias) of the set, by its key."""

    key: str


@dataclass(frozen=True)
class ListOf:
    """`type: array` with `items`."""

    item: Node


@dataclass(frozen=True)
class MapOf:
    """`type: object` with `additionalProperties`."""

    value: Node


@dataclass(frozen=True)
class Untyped:
    """A node with no type of its own: any JSON value (with
    `x-kubernetes-preserve-unknown-fields`), or whatever its facts say."""


Shape = Scalar | KnownType | ModelRef | ListOf | MapOf | Untyped


def _fact(facts: tuple[tuple[str, Any], ...], keyword: str, missing: Any) -> Any:
    return next((value for key, value in facts if key == keyword), missing)


@dataclass(frozen=True)
class Node:
    """One schema node: what it is, what it says, and its documentation."""

    shape: Shape
    description: str | None = None
    default: Any = NO_DEFAULT
    facts: tuple[tuple[str, Any], ...] = ()
    """Further keywords as the schema spells them, in a stable order."""

    def fact(self, keyword: str, missing: Any = None) -> Any:
        return _fact(self.facts, keyword, missing)


@dataclass(frozen=True)
class FieldDecl:
    """One property of a model."""

    name: str
    """The Python attribute name (snake_case, never a keyword)."""
    wire_name: str
    node: Node
    required: bool = False


@dataclass(frozen=True)
class ResourceDecl:
    """What makes a model the root of a kind (`op.CustomResource`): one version
    of a CRD, in the shape the loader gives a kind read from classes (its
    names, scope and `KindVersion`), with what only a CRD read back adds."""

    group: str
    names: KindNames
    scope: Scope
    version: KindVersion
    """Its `source` names the CRD file and the kind, which no class defines yet."""
    several_versions: bool = False
    """Whether the CRD has other versions (its storage version is then written)."""
    crd_annotations: tuple[tuple[str, str], ...] = ()
    """Annotations of the CRD object the kind must carry again (the API
    server's `api-approved.kubernetes.io` for `*.k8s.io` groups)."""

    @property
    def namespaced(self) -> bool:
        return self.scope == "Namespaced"


@dataclass(frozen=True)
class ModelDecl:
    """An object schema with properties: one `op.Model` class."""

    key: str
    """Unique in the set: the OpenAPI definition name, or a CRD path."""
    name: str
    """The Python class name."""
    module: str
    """The dotted Python module the class is written into."""
    description: str | None = None
    fields: tuple[FieldDecl, ...] = ()
    facts: tuple[tuple[str, Any], ...] = ()
    """Type-level keywords (`x-kubernetes-map-type`, `x-kubernetes-validations`,
    `minProperties`, `x-kubernetes-preserve-unknown-fields`, ...)."""
    source: str | None = None
    """Where the model was read from, for messages and headers (e.g. the Go type)."""
    resource: ResourceDecl | None = None
    """Set on the root of a kind: the class is an `op.CustomResource` whose
    `spec` and `status` fields are its type parameters."""
    builtin: BuiltinResource | None = None
    """Set on a built-in kind of `opgen.api.k8s`: its resource facts."""

    def fact(self, keyword: str, missing: Any = None) -> Any:
        return _fact(self.facts, keyword, missing)


@dataclass(frozen=True)
class AliasDecl:
    """A named scalar type with its own documentation (Go's `type Capability
    string`): written as a type alias and used where the schema shows the
    type's description (list items, map values)."""

    key: str
    name: str
    module: str
    node: Node
    source: str | None = None


@dataclass(frozen=True)
class ModuleDecl:
    """One Python module to write, with the models and aliases it holds."""

    name: str
    """The dotted module name (`opgen.api.k8s.core_v1`)."""
    doc: str
    """The first line of its docstring; the renderer adds provenance."""
    models: tuple[ModelDecl, ...] = ()
    aliases: tuple[AliasDecl, ...] = ()


@dataclass(frozen=True)
class ModelSet:
    """Models and aliases by key, and the modules they are written into."""

    models: dict[str, ModelDecl] = field(default_factory=dict)
    aliases: dict[str, AliasDecl] = field(default_factory=dict)

    def modules(self, docs: dict[str, str] | None = None) -> tuple[ModuleDecl, ...]:
        """The modules of the set, each with its models and aliases sorted by name."""
        names = sorted(
            {m.module for m in self.models.values()}
            | {a.module for a in self.aliases.values()}
        )
        return tuple(
            ModuleDecl(
                name=name,
                doc=(docs or {}).get(name, ""),
                models=tuple(
                    sorted(
                        (m for m in self.models.values() if m.module == name),
                        key=lambda m: m.name,
                    )
                ),
                aliases=tuple(
                    sorted(
                        (a for a in self.aliases.values() if a.module == name),
                        key=lambda a: a.name,
                    )
                ),
            )
            for name in names
        )

    def named(self, key: str) -> ModelDecl | AliasDecl:
        found = self.models.get(key) or self.aliases.get(key)
        if found is None:
            raise KeyError(key)
        return found


def walk(node: Node) -> Iterator[Node]:
    """`node` and the nodes inside it (items, map values), not crossing into models."""
    yield node
    if isinstance(node.shape, ListOf):
        yield from walk(node.shape.item)
    elif isinstance(node.shape, MapOf):
        yield from walk(node.shape.value)
