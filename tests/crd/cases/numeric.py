"""Golden cases: numeric bounds (Minimum, Maximum, ExclusiveMinimum, ExclusiveMaximum, MultipleOf).

Each kind shows one marker, next to the Pydantic constraint that gives the same output.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

import opgen.api as op

GROUP = "cases.opgen.dev"


class MinimumSpec(op.Model):
    replicas: Annotated[int, op.Minimum(1)]
    """At least one replica."""
    replicas_ge: Annotated[int, Field(ge=1)]
    """The same bound, written with Pydantic."""
    offset: Annotated[int, op.Minimum(-10)] = 0
    """Negative bounds are fine."""


@op.kind(group=GROUP, version="v1")
class MinimumCase(op.CustomResource[MinimumSpec, None]):
    """op.Minimum(value): `minimum`."""


class MaximumSpec(op.Model):
    replicas: Annotated[int, op.Maximum(10)]
    replicas_le: Annotated[int, Field(le=10)]
    ratio: Annotated[op.Float, op.Maximum(1.5)]


@op.kind(group=GROUP, version="v1")
class MaximumCase(op.CustomResource[MaximumSpec, None]):
    """op.Maximum(value): `maximum`."""


class ExclusiveMinimumSpec(op.Model):
    weight: Annotated[int, op.ExclusiveMinimum(0)]
    weight_gt: Annotated[int, Field(gt=0)]


@op.kind(group=GROUP, version="v1")
class ExclusiveMinimumCase(op.CustomResource[ExclusiveMinimumSpec, None]):
    """op.ExclusiveMinimum(value): `minimum` with `exclusiveMinimum: true`."""


class ExclusiveMaximumSpec(op.Model):
    percent: Annotated[int, op.ExclusiveMaximum(100)]
    percent_lt: Annotated[int, Field(lt=100)]


@op.kind(group=GROUP, version="v1")
class ExclusiveMaximumCase(op.CustomResource[ExclusiveMaximumSpec, None]):
    """op.ExclusiveMaximum(value): `maximum` with `exclusiveMaximum: true`."""


class MultipleOfSpec(op.Model):
    memory_mib: Annotated[int, op.MultipleOf(256)]
    memory_mib_pydantic: Annotated[int, Field(multiple_of=256)]
    step: Annotated[op.Float, op.MultipleOf(0.5)]


@op.kind(group=GROUP, version="v1")
class MultipleOfCase(op.CustomResource[MultipleOfSpec, None]):
    """op.MultipleOf(value): `multipleOf`."""
