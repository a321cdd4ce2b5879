"""What a walk reads of a schema, read once per schema object.

The memory server walks the same few schemas (a kind's, kept for the session)
for every object it prunes or records managed fields of. `PerSchema` keeps,
by the schema's `id`, what a walk reads of it; the facts hold the schema, so
its `id` is not reused while they are kept, and the map is emptied when full
(a bound, for schemas made on the fly).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, Protocol, TypeVar

__all__ = ["MOST_SCHEMAS", "PerSchema", "SchemaFacts"]

MOST_SCHEMAS = 4096
"""Schemas a `PerSchema` holds facts of at most."""


class SchemaFacts(Protocol):
    @property
    def schema(self) -> Mapping[str, Any]: ...


F = TypeVar("F", bound=SchemaFacts)


class PerSchema(Generic[F]):
    """The facts `read` gives of a schema, read at its first walk."""

    def __init__(self, read: Callable[[Mapping[str, Any]], F]) -> None:
        self.read = read
        self.held: dict[int, F] = {}
        """By the schema's `id` (a hot walk may look here itself, checking
        `facts.schema is schema` as `__call__` does)."""

    def __call__(self, schema: Mapping[str, Any]) -> F:
        facts = self.held.get(id(schema))
        if facts is None or facts.schema is not schema:
            if len(self.held) >= MOST_SCHEMAS:
                self.held.clear()
            facts = self.held[id(schema)] = self.read(schema)
        return facts
