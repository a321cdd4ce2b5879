"""`op.InapplicableKeywords`: keywords the API server keeps but does not apply.

A published CRD may carry a keyword on a node of a type it does not apply to
(`maxLength` and `pattern` on an array, as Karpenter's NodePool has): the
server accepts and stores it, and validates nothing with it (a string
keyword checks strings only). opgen's markers refuse such a placement, which
is usually a mistake (`op.MaxLength` on a list meant for its items); `opgen
import` writes these keywords with this marker instead, so the CRD generated
from the imported models is the published one again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar

from opgen.engine.markers import Marker, MarkerContext, SchemaNode, node_type
from opgen.errors import MarkerError

__all__ = ["InapplicableKeywords"]

_APPLIES_TO = {
    "maxLength": frozenset({"string", "int-or-string"}),
    "minLength": frozenset({"string", "int-or-string"}),
    "pattern": frozenset({"string", "int-or-string"}),
    "format": frozenset({"string", "integer", "number", "int-or-string"}),
    "maxItems": frozenset({"array"}),
    "minItems": frozenset({"array"}),
    "uniqueItems": frozenset({"array"}),
    "maxProperties": frozenset({"object"}),
    "minProperties": frozenset({"object"}),
    "maximum": frozenset({"integer", "number", "int-or-string"}),
    "minimum": frozenset({"integer", "number", "int-or-string"}),
    "exclusiveMaximum": frozenset({"integer", "number", "int-or-string"}),
    "exclusiveMinimum": frozenset({"integer", "number", "int-or-string"}),
    "multipleOf": frozenset({"integer", "number", "int-or-string"}),
}
"""Each keyword this marker writes, and the types the server applies it to."""


@dataclass(frozen=True, init=False, eq=False)
class InapplicableKeywords(Marker):
    """Keywords written on a node whose type they do not apply to: the API
    server stores them and checks nothing with them (`maxLength` on an array).
    Anywhere they apply, use their own markers (`op.MaxLength`, ...)."""

    keywords: tuple[tuple[str, Any], ...]
    applies_to: ClassVar[dict[str, frozenset[str]]] = _APPLIES_TO

    def __init__(self, **keywords: Any) -> None:
        unknown = sorted(set(keywords) - set(_APPLIES_TO))
        if unknown or not keywords:
            raise MarkerError(
                f"op.InapplicableKeywords({', '.join(unknown)}): give keywords of "
                f"{', '.join(sorted(_APPLIES_TO))}"
            )
        object.__setattr__(self, "keywords", tuple(sorted(keywords.items())))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, InapplicableKeywords) and other.keywords == self.keywords
        )

    def __hash__(self) -> int:
        return hash(json.dumps(self.keywords))

    def display(self) -> str:
        shown = ", ".join(f"{key}={value!r}" for key, value in self.keywords)
        return f"op.InapplicableKeywords({shown})"

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        kind = node_type(node)
        for key, _ in self.keywords:
            if kind is None or kind in _APPLIES_TO[key]:
                raise ctx.error(
                    self,
                    f"{key} applies to {kind or 'untyped'} values: here the API "
                    "server would check it",
                    hint="use its own marker (op.MaxLength, op.Pattern, ...)",
                )
        return {**node, **dict(self.keywords)}
