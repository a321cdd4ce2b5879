"""Kinds for the memory server's tests: validation rules of every sort, and a
kind without a status subresource (every non-metadata change bumps its
generation)."""

from __future__ import annotations

from typing import Annotated, Literal

import opgen.api as op


@op.Rule("self.low <= self.high", message="low must not exceed high")
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


class Port(op.Model):
    """An item of a list of type `map`, keyed by name and protocol."""

    name: str
    protocol: str = "TCP"
    number: int | None = None


class RackSpec(op.Model):
    """Lists and maps as server-side apply merges them."""

    ports: Annotated[
        list[Port], op.ListType("map"), op.ListMapKey("name"), op.ListMapKey("protocol")
    ] = []
    tags: Annotated[list[str], op.ListType("set")] = []
    hosts: list[str] = []
    """Atomic: replaced whole."""
    settings: dict[str, str] = {}
    size: int | None = None
    owner: str | None = None


class RackStatus(op.Model):
    """What a Rack reports."""

    phase: str | None = None
    ready: int | None = None


@op.kind(group="memory.opgen.dev", version="v1")
@op.subresource_status()
class Rack(op.CustomResource[RackSpec, RackStatus]):
    """A namespaced kind whose spec has a list map, a set, an atomic list and a map."""
