"""Golden cases: ListType, ListMapKey, MapType, StructType."""

from __future__ import annotations

from typing import Annotated

from typing_extensions import TypeAliasType

import opgen.api as op

GROUP = "cases.opgen.dev"


class Port(op.Model):
    name: str
    protocol: str = "TCP"
    port: int


class ListTypeSpec(op.Model):
    args: Annotated[list[str], op.ListType("atomic")] = []
    """Replaced as a whole by server-side apply."""
    finalizers: Annotated[list[str], op.ListType("set")] = []
    """Unique scalars, merged per value."""


@op.kind(group=GROUP, version="v1")
class ListTypeCase(op.CustomResource[ListTypeSpec, None]):
    """op.ListType(kind): `x-kubernetes-list-type`."""


Ports = TypeAliasType(
    "Ports",
    Annotated[
        list[Port], op.ListType("map"), op.ListMapKey("port"), op.ListMapKey("protocol")
    ],
)


class ListMapKeySpec(op.Model):
    ports: Annotated[list[Port], op.ListType("map"), op.ListMapKey("name")] = []
    """Merged per item, keyed by name."""
    by_number: Ports = []
    """A composite key (a named type carrying the markers)."""


@op.kind(group=GROUP, version="v1")
class ListMapKeyCase(op.CustomResource[ListMapKeySpec, None]):
    """op.ListMapKey(key): `x-kubernetes-list-map-keys` (repeat for composite keys)."""


class MapTypeSpec(op.Model):
    labels: Annotated[dict[str, str], op.MapType("granular")] = {}
    selector: Annotated[dict[str, str], op.MapType("atomic")] = {}


@op.kind(group=GROUP, version="v1")
class MapTypeCase(op.CustomResource[MapTypeSpec, None]):
    """op.MapType(kind): `x-kubernetes-map-type` on maps."""


@op.StructType("atomic")
class Endpoint(op.Model):
    """Replaced as a whole by server-side apply."""

    host: str
    port: int


class StructTypeSpec(op.Model):
    endpoint: Endpoint
    target: Annotated[Port, op.StructType("atomic")] | None = None
    """On a field instead of the class."""


@op.kind(group=GROUP, version="v1")
class StructTypeCase(op.CustomResource[StructTypeSpec, None]):
    """op.StructType(kind): `x-kubernetes-map-type` on models."""
