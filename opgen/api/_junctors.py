"""Markers for OpenAPI's junctors: `oneOf`, `anyOf`, `allOf` and `not`.

The API server takes them in a structural schema as value validations only:
inside them no `type`, `description`, `default`, `additionalProperties`,
`nullable` or Kubernetes extension, and only fields the node itself declares
(the schema checks enforce this on the CRD written). Published CRDs use them
for "exactly one of these fields" (`oneOf: [{required: [a]}, {required:
[b]}]`) and for bounds that depend on each other; `opgen import` writes them
as these markers, and the models check values against them as the server
does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar

from opgen.engine.markers import Marker, MarkerContext, SchemaNode
from opgen.engine.values import constraint_problem
from opgen.errors import MarkerError

__all__ = ["AllOf", "AnyOf", "Not", "OneOf"]


def _schema(marker: str, value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise MarkerError(
            f"op.{marker}({value!r}): give schemas as dicts of OpenAPI keywords",
            hint='for example {"required": ["name"]}',
        )
    try:
        copied: dict[str, Any] = json.loads(json.dumps(value))
    except (TypeError, ValueError) as error:
        raise MarkerError(f"op.{marker}({value!r}): not JSON ({error})") from None
    return copied


@dataclass(frozen=True, init=False, eq=False)
class _Junctor(Marker):
    """A value validation made of schemas (`oneOf`, `anyOf`, `allOf`)."""

    schemas: tuple[dict[str, Any], ...]
    keyword: ClassVar[str]

    def __init__(self, *schemas: dict[str, Any]) -> None:
        if not schemas:
            raise MarkerError(f"op.{self.marker_name()}(): give at least one schema")
        checked = tuple(_schema(self.marker_name(), s) for s in schemas)
        object.__setattr__(self, "schemas", checked)

    def _wire(self) -> Any:
        return list(self.schemas)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, _Junctor)
            and type(other) is type(self)
            and other._wire() == self._wire()
        )

    def __hash__(self) -> int:
        return hash((self.marker_name(), json.dumps(self._wire(), sort_keys=True)))

    def display(self) -> str:
        shown = ", ".join(json.dumps(s) for s in self.schemas)
        return f"op.{self.marker_name()}({shown})"

    def check(self, value: Any) -> str | None:
        return constraint_problem(value, {self.keyword: self._wire()})

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        return {**node, self.keyword: self._wire()}


@dataclass(frozen=True, init=False, eq=False)
class OneOf(_Junctor):
    """The value matches exactly one of the schemas (`oneOf`)."""

    keyword: ClassVar[str] = "oneOf"


@dataclass(frozen=True, init=False, eq=False)
class AnyOf(_Junctor):
    """The value matches at least one of the schemas (`anyOf`)."""

    keyword: ClassVar[str] = "anyOf"


@dataclass(frozen=True, init=False, eq=False)
class AllOf(_Junctor):
    """The value matches every one of the schemas (`allOf`)."""

    keyword: ClassVar[str] = "allOf"


@dataclass(frozen=True, init=False, eq=False)
class Not(_Junctor):
    """The value does not match the schema (`not`)."""

    keyword: ClassVar[str] = "not"

    def __init__(self, schema: dict[str, Any]) -> None:
        super().__init__(schema)

    def _wire(self) -> Any:
        return self.schemas[0]
