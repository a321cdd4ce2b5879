"""Kinds for the memory server's tests: validation rules of every sort, and a
kind without a status subresource (every non-metadata change bumps its
generation)."""

from __future__ import annotations

from typing import Annotated, Literal

import opgen.api as op


class GaugeSpec(op.Model):
    """A spec with a required field, bounds, an enum, defaults and CEL rules."""

    size: Annotated[int, op.Minimum(1), op.Maximum(10)]
    """Required, 1 to 10."""
    mode: Literal["Fast", "Slow"] = "Slow"
    """An enum with a default the server applies."""
    name_prefix: Annotated[str, op.MaxLength(8)] | None = None
    """At most 8 characters."""
    low: int = 0
    high: int = 0
    locked: (
        Annotated[str, op.Rule("self == oldSelf", message="locked is immutable")] | None
    ) = None
    """Cannot change once set (a transition rule)."""


GaugeSpec = op.Rule("self.low <= self.high", message="low must not exceed high")(
    GaugeSpec
)


class GaugeStatus(op.Model):
    """What a Gauge reports."""

    reading: int = 0
    observed_generation: int | None = None


@op.kind(group="memory.opgen.dev", version="v1")
@op.subresource_status()
@op.selectable_field(".spec.mode")
class Gauge(op.CustomResource[GaugeSpec, GaugeStatus]):
    """A namespaced kind with rules and a status subresource."""


@op.kind(group="memory.opgen.dev", version="v1", scope="Cluster")
class Dial(op.CustomResource[GaugeSpec, GaugeStatus]):
    """A cluster-scoped kind without a status subresource."""
