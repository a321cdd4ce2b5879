"""Golden cases: strings and enums (MinLength, MaxLength, Pattern, Format, Enum)."""

from __future__ import annotations

import enum
from typing import Annotated, Literal

from pydantic import Field

import opgen.api as op

GROUP = "cases.opgen.dev"


class MinLengthSpec(op.Model):
    name: Annotated[str, op.MinLength(1)]
    name_pydantic: Annotated[str, Field(min_length=1)]


@op.kind(group=GROUP, version="v1")
class MinLengthCase(op.CustomResource[MinLengthSpec, None]):
    """op.MinLength(n): `minLength`."""


class MaxLengthSpec(op.Model):
    name: Annotated[str, op.MaxLength(63)]
    name_pydantic: Annotated[str, Field(max_length=63)]
    port: Annotated[op.IntOrString, op.MaxLength(15)] = 80
    """Also allowed on int-or-string values."""


@op.kind(group=GROUP, version="v1")
class MaxLengthCase(op.CustomResource[MaxLengthSpec, None]):
    """op.MaxLength(n): `maxLength`."""


class PatternSpec(op.Model):
    image: Annotated[str, op.Pattern(r"^[a-z0-9./-]+(:[\w.-]+)?$")]
    image_pydantic: Annotated[str, Field(pattern=r"^[a-z0-9./-]+(:[\w.-]+)?$")]


@op.kind(group=GROUP, version="v1")
class PatternCase(op.CustomResource[PatternSpec, None]):
    """op.Pattern(regex): `pattern` (Go RE2 syntax)."""


class FormatSpec(op.Model):
    endpoint: Annotated[str, op.Format("uri")]
    replicas: Annotated[int, op.Format("int32")]
    size: Annotated[int, op.Format("int64")] = 0


@op.kind(group=GROUP, version="v1")
class FormatCase(op.CustomResource[FormatSpec, None]):
    """op.Format(name): `format`."""


class Phase(str, enum.Enum):
    """Lifecycle phase."""

    PENDING = "Pending"
    RUNNING = "Running"
    DONE = "Done"


class EnumSpec(op.Model):
    mode: Annotated[str, op.Enum("Fast", "Safe")]
    mode_literal: Literal["Fast", "Safe"]
    phase: Phase = Phase.PENDING
    """A Python Enum; its docstring shows where the field has none."""
    level: Literal[1, 2, 3] = 1


@op.kind(group=GROUP, version="v1")
class EnumCase(op.CustomResource[EnumSpec, None]):
    """op.Enum(*values): `enum` (same as Literal or a Python Enum)."""
