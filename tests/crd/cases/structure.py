"""Golden cases: Type, Nullable, Required, Optional, Default, Example, Title, ExternalDocs."""

from __future__ import annotations

import datetime
from typing import Annotated

import opgen.api as op

GROUP = "cases.opgen.dev"


class TypeSpec(op.Model):
    enabled: Annotated[bool, op.Type("string")] | None = None
    """A bool that travels as a string ("true"/"false")."""
    stamp: (
        Annotated[datetime.datetime, op.Type("integer"), op.Format("int64")] | None
    ) = None
    """A time that travels as milliseconds since the epoch."""
    ratio: Annotated[float, op.Type("number")] = 0.5
    """`Type("number")` is also the opt-in for float fields."""


@op.kind(group=GROUP, version="v1")
class TypeCase(op.CustomResource[TypeSpec, None]):
    """op.Type(name): overrides `type` (and drops the Python type's structure)."""


class NullableSpec(op.Model):
    note: Annotated[str, op.Nullable()] | None = None
    """May be sent as null."""
    optional_only: str | None = None
    """`X | None` alone makes the field optional, not nullable."""


@op.kind(group=GROUP, version="v1")
class NullableCase(op.CustomResource[NullableSpec, None]):
    """op.Nullable(): `nullable: true`."""


class RequiredSpec(op.Model):
    image: str
    """No default: required."""
    tag: Annotated[str | None, op.Required()] = None
    """Admits None in Python, but must be sent."""


@op.kind(group=GROUP, version="v1")
class RequiredCase(op.CustomResource[RequiredSpec, None]):
    """op.Required(): lists the field in the parent's `required`."""


class OptionalSpec(op.Model):
    image: Annotated[str, op.Optional()]
    """Python requires it, the API server does not."""
    tag: str = "latest"
    """A default makes a field optional."""


@op.kind(group=GROUP, version="v1")
class OptionalCase(op.CustomResource[OptionalSpec, None]):
    """op.Optional(): keeps the field out of `required`."""


class Limits(op.Model):
    cpu: str = "1"
    memory: str | None = None


class DefaultSpec(op.Model):
    replicas: int = 1
    """A Python default becomes the CRD default."""
    mode: str = "Safe"
    limits: Limits = Limits()
    """Model defaults are written by alias, without None fields."""
    hosts: Annotated[list[str], op.Default([])] = []
    """`[]`, `{}`, `""` and None only make a field optional, unless op.Default forces them."""
    labels: dict[str, str] = {}
    timeout: op.Duration = datetime.timedelta(minutes=5)
    """Special types are written in their wire format."""


@op.kind(group=GROUP, version="v1")
class DefaultCase(op.CustomResource[DefaultSpec, None]):
    """op.Default(value) and Python defaults: `default`."""


class ExampleSpec(op.Model):
    schedule: Annotated[str, op.Example("*/5 * * * *")]
    ports: Annotated[list[int], op.Example([80, 443])] = []


@op.kind(group=GROUP, version="v1")
class ExampleCase(op.CustomResource[ExampleSpec, None]):
    """op.Example(value): `example`."""


class TitleSpec(op.Model):
    schedule: Annotated[str, op.Title("Cron schedule")]


@op.kind(group=GROUP, version="v1")
class TitleCase(op.CustomResource[TitleSpec, None]):
    """op.Title(text): `title`."""


class ExternalDocsSpec(op.Model):
    schedule: Annotated[
        str,
        op.ExternalDocs(
            "https://en.wikipedia.org/wiki/Cron", description="Cron syntax"
        ),
    ]


@op.kind(group=GROUP, version="v1")
class ExternalDocsCase(op.CustomResource[ExternalDocsSpec, None]):
    """op.ExternalDocs(url, description=): `externalDocs`."""
