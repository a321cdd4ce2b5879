"""Golden cases: lists and maps (MinItems, MaxItems, UniqueItems, MinProperties, MaxProperties, Items)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

import opgen.api as op

GROUP = "cases.opgen.dev"


class MinItemsSpec(op.Model):
    hosts: Annotated[list[str], op.MinItems(1)]
    hosts_pydantic: Annotated[list[str], Field(min_length=1)]


@op.kind(group=GROUP, version="v1")
class MinItemsCase(op.CustomResource[MinItemsSpec, None]):
    """op.MinItems(n): `minItems`."""


class MaxItemsSpec(op.Model):
    hosts: Annotated[list[str], op.MaxItems(8)] = []
    hosts_pydantic: Annotated[list[str], Field(max_length=8)] = []


@op.kind(group=GROUP, version="v1")
class MaxItemsCase(op.CustomResource[MaxItemsSpec, None]):
    """op.MaxItems(n): `maxItems`."""


class UniqueItemsSpec(op.Model):
    tags: Annotated[list[str], op.UniqueItems()] = []
    tag_set: set[str] = set()
    """A Python set gives the same schema."""


@op.kind(group=GROUP, version="v1")
class UniqueItemsCase(op.CustomResource[UniqueItemsSpec, None]):
    """op.UniqueItems(): `x-kubernetes-list-type: set` (the API server refuses `uniqueItems`)."""


@op.MinProperties(1)
class Selector(op.Model):
    """At least one of the fields must be set."""

    name: str | None = None
    label: str | None = None


class MinPropertiesSpec(op.Model):
    labels: Annotated[dict[str, str], op.MinProperties(1)]
    labels_pydantic: Annotated[dict[str, str], Field(min_length=1)]
    selector: Selector


@op.kind(group=GROUP, version="v1")
class MinPropertiesCase(op.CustomResource[MinPropertiesSpec, None]):
    """op.MinProperties(n): `minProperties` (on a field or as a class decorator)."""


class MaxPropertiesSpec(op.Model):
    labels: Annotated[dict[str, str], op.MaxProperties(16)] = {}
    labels_pydantic: Annotated[dict[str, str], Field(max_length=16)] = {}


@op.kind(group=GROUP, version="v1")
class MaxPropertiesCase(op.CustomResource[MaxPropertiesSpec, None]):
    """op.MaxProperties(n): `maxProperties`."""


class ItemsSpec(op.Model):
    hosts: Annotated[
        list[str],
        op.Items(op.MinLength(1), op.MaxLength(253), op.Pattern(r"^[a-z0-9.-]+$")),
    ] = []
    hosts_nested: list[Annotated[str, op.MinLength(1), op.MaxLength(253)]] = []
    """The same item rules, written on the item type."""
    ports: Annotated[list[int], op.Items(op.Minimum(1), op.Maximum(65535))] = []
    matrix: Annotated[
        list[list[int]], op.Items(op.MinItems(2), op.Items(op.Minimum(0)))
    ] = []


@op.kind(group=GROUP, version="v1")
class ItemsCase(op.CustomResource[ItemsSpec, None]):
    """op.Items(*markers): markers for the items of a list."""
