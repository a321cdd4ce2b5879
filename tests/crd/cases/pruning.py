"""Golden cases: EmbeddedResource, PreserveUnknownFields, Schemaless."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict

import opgen.api as op

GROUP = "cases.opgen.dev"


class EmbeddedResourceSpec(op.Model):
    template: Annotated[op.RawExtension, op.EmbeddedResource()]
    """A whole Kubernetes object (apiVersion, kind, metadata, ...)."""


@op.kind(group=GROUP, version="v1")
class EmbeddedResourceCase(op.CustomResource[EmbeddedResourceSpec, None]):
    """op.EmbeddedResource(): `x-kubernetes-embedded-resource`."""


class Settings(op.Model):
    level: str = "info"


class Open(op.Model):
    """Keeps fields it does not know."""

    model_config = ConfigDict(extra="allow")

    name: str = ""


class PreserveUnknownFieldsSpec(op.Model):
    settings: Annotated[Settings, op.PreserveUnknownFields()]
    """Known fields are validated, unknown ones kept."""
    extra_allowed: Open | None = None
    """A model with extra="allow" keeps unknown fields too."""
    anything: dict[str, Any] = {}
    """dict[str, Any] keeps whatever it is given."""


@op.kind(group=GROUP, version="v1")
class PreserveUnknownFieldsCase(op.CustomResource[PreserveUnknownFieldsSpec, None]):
    """op.PreserveUnknownFields(): `x-kubernetes-preserve-unknown-fields`."""


class TreeNode(op.Model):
    """A node of a tree: a recursive type."""

    name: str
    children: list[
        Annotated[
            TreeNode, op.Schemaless(), op.Type("object"), op.PreserveUnknownFields()
        ]
    ] = []
    """Cut the recursion: each child is kept as it is, without a schema."""


class SchemalessSpec(op.Model):
    tree: TreeNode
    payload: Annotated[op.Bytes, op.Schemaless(), op.Type("string")] | None = None
    """Only the markers describe the value."""


@op.kind(group=GROUP, version="v1")
class SchemalessCase(op.CustomResource[SchemalessSpec, None]):
    """op.Schemaless(): describe nothing of the type; the other markers fill the schema in."""
