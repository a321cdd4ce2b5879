"""A tiny stand-in for `opgen.api` until the engine's version is on main.

Provides exactly what the runtime reads: `resource_info(cls)` (the BRIEF's
`op.ResourceInfo` fields), `Condition`, and Pydantic `CustomResource` models
with snake_case fields and camelCase aliases. conftest.py installs
`resource_info` and `Condition` on `opgen.api` only when they are missing.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from opgen.errors import MarkerError


class Model(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="ignore"
    )


class OwnerReference(Model):
    api_version: str
    kind: str
    name: str
    uid: str
    controller: bool | None = None
    block_owner_deletion: bool | None = None


class ObjectMeta(Model):
    name: str | None = None
    namespace: str | None = None
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None
    uid: str | None = None
    resource_version: str | None = None
    generation: int | None = None
    creation_timestamp: datetime.datetime | None = None
    deletion_timestamp: datetime.datetime | None = None
    finalizers: list[str] | None = None
    owner_references: list[OwnerReference] | None = None


class Condition(Model):
    type: str
    status: str
    observed_generation: int | None = None
    last_transition_time: datetime.datetime
    reason: str
    message: str = ""


SpecT = TypeVar("SpecT", bound=BaseModel)
StatusT = TypeVar("StatusT", bound=BaseModel)


class CustomResource(Model, Generic[SpecT, StatusT]):
    api_version: str | None = None
    kind: str | None = None
    metadata: ObjectMeta = ObjectMeta()
    spec: SpecT
    status: StatusT | None = None


@dataclass(frozen=True)
class ResourceInfo:
    group: str
    version: str
    kind: str
    plural: str
    singular: str
    namespaced: bool
    status_subresource: bool
    scale: tuple[str, str | None, str | None] | None
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()


def kind(
    *,
    group: str,
    version: str,
    plural: str,
    namespaced: bool = True,
    status: bool = True,
    scale: tuple[str, str | None, str | None] | None = None,
) -> Callable[[type[Any]], type[Any]]:
    def decorate(cls: type[Any]) -> type[Any]:
        cls.__opgen_standin_info__ = ResourceInfo(
            group,
            version,
            cls.__name__,
            plural,
            cls.__name__.lower(),
            namespaced,
            status,
            scale,
        )
        return cls

    return decorate


def resource_info(cls: type[Any]) -> ResourceInfo:
    info = cls.__dict__.get("__opgen_standin_info__")
    if info is None:
        raise MarkerError(f"{cls.__name__} has no @op.kind")
    return info  # type: ignore[no-any-return]
