"""Golden case: plain Pydantic and Python typing, without opgen markers."""

from __future__ import annotations

import enum
import uuid
from typing import Annotated, Any, Literal

from pydantic import Field

import opgen.api as op

GROUP = "cases.opgen.dev"


class Color(str, enum.Enum):
    RED = "red"
    GREEN = "green"


class Sidecar(op.Model):
    """A helper container."""

    name: str
    """Name of the sidecar."""
    image: str


class PlainSpec(op.Model):
    """Everything here maps without markers."""

    name: Annotated[str, Field(min_length=1, max_length=63, pattern=r"^[a-z]")]
    """Docstrings become descriptions."""
    replicas: Annotated[int, Field(ge=0, le=10)] = 1
    weight: Annotated[int, Field(gt=0, lt=100, multiple_of=5)] = 50
    color: Color = Color.RED
    tier: Literal["web", "db"] = "web"
    enabled: bool = True
    id: uuid.UUID | None = None
    sidecars: list[Sidecar] = []
    main: Sidecar | None = None
    """The field's docstring wins over the type's."""
    env: dict[str, str] = {}
    extra: dict[str, Any] = {}
    tags: set[str] = set()
    items: tuple[str, ...] = ()


@op.kind(group=GROUP, version="v1")
class PlainCase(op.CustomResource[PlainSpec, None]):
    """Pydantic constraints, Literal, Enum, Optional, defaults, lists, maps and sets."""
