"""Kubernetes object types every custom resource uses: metadata, conditions, references.

`ObjectMeta` decodes whatever the server sends (unknown fields are kept); in a
CRD it is `{type: object}` at the root (the API server owns it) and the
embedded-metadata schema (name, namespace, labels, annotations, finalizers)
when nested, e.g. in a pod-template-like field, so those fields are not pruned.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, GetJsonSchemaHandler
from pydantic_core import CoreSchema

from opgen.api._model import Model
from opgen.api._structure import Default, ListMapKey, ListType, StructType
from opgen.api._types import Time
from opgen.api._validation import Format, MaxLength, Minimum, MinLength, Pattern
from opgen.engine.markers import SchemaNode

__all__ = [
    "EMBEDDED_OBJECT_META_SCHEMA",
    "Condition",
    "Conditions",
    "LocalObjectReference",
    "ObjectMeta",
    "ObjectReference",
    "OwnerReference",
]

_STRING_MAP: SchemaNode = {"type": "object", "additionalProperties": {"type": "string"}}

EMBEDDED_OBJECT_META_SCHEMA: SchemaNode = {
    "type": "object",
    "properties": {
        "annotations": _STRING_MAP,
        "finalizers": {"type": "array", "items": {"type": "string"}},
        "labels": _STRING_MAP,
        "name": {"type": "string"},
        "namespace": {"type": "string"},
    },
}


class OwnerReference(Model):
    """An object that owns this one; deleting the owner garbage-collects this object."""

    api_version: str
    kind: str
    name: str
    uid: str
    controller: bool | None = None
    block_owner_deletion: bool | None = None


class ObjectMeta(Model):
    """Standard object metadata: name, namespace, labels, annotations, owners, ..."""

    model_config = ConfigDict(extra="allow")

    name: str | None = None
    generate_name: str | None = None
    namespace: str | None = None
    uid: str | None = None
    resource_version: str | None = None
    generation: int | None = None
    creation_timestamp: Time | None = None
    deletion_timestamp: Time | None = None
    deletion_grace_period_seconds: int | None = None
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None
    owner_references: list[OwnerReference] | None = None
    finalizers: list[str] | None = None
    managed_fields: list[dict[str, Any]] | None = None

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> SchemaNode:
        # Nested metadata: the fields users set in templates (controller-gen's
        # generateEmbeddedObjectMeta). The CRD root overrides this with {type: object}.
        return {
            "type": "object",
            "properties": {
                key: dict(value)
                for key, value in EMBEDDED_OBJECT_META_SCHEMA["properties"].items()
            },
        }


class Condition(Model):
    """One aspect of the current state of an object (`metav1.Condition`)."""

    type: Annotated[
        str,
        MaxLength(316),
        Pattern(
            r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
            r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$"
        ),
    ]
    """Type of the condition, in CamelCase or foo.example.com/CamelCase (e.g. Ready)."""
    status: Literal["True", "False", "Unknown"]
    """Status of the condition: True, False or Unknown."""
    observed_generation: Annotated[int, Minimum(0), Format("int64")] | None = None
    """The .metadata.generation the condition was computed from; older than the
    object's generation means the condition is out of date."""
    last_transition_time: Time
    """When the status last changed."""
    reason: Annotated[
        str,
        MinLength(1),
        MaxLength(1024),
        Pattern(r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"),
    ]
    """A CamelCase, machine-readable reason for the last transition."""
    message: Annotated[str, MaxLength(32768)]
    """A human-readable message about the transition; may be empty."""


Conditions = Annotated[list[Condition], ListType("map"), ListMapKey("type")]
"""A list of conditions keyed by `type` (`x-kubernetes-list-type: map`)."""


@StructType("atomic")
class ObjectReference(Model):
    """ObjectReference contains enough information to let you inspect or modify the referred object."""

    api_version: str | None = None
    """API version of the referent."""
    field_path: str | None = None
    """If referring to a piece of an object instead of an entire object, this string
    should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].
    For example, if the object reference is to a container within a pod, this would take on a value like:
    "spec.containers{name}" (where "name" refers to the name of the container that triggered
    the event) or if no container name is specified "spec.containers[2]" (container with
    index 2 in this pod). This syntax is chosen only to have some well-defined way of
    referencing a part of an object."""
    kind: str | None = None
    """Kind of the referent.
    More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"""
    name: str | None = None
    """Name of the referent.
    More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names"""
    namespace: str | None = None
    """Namespace of the referent.
    More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/"""
    resource_version: str | None = None
    """Specific resourceVersion to which this reference is made, if any.
    More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#concurrency-control-and-consistency"""
    uid: str | None = None
    """UID of the referent.
    More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#uids"""


@StructType("atomic")
class LocalObjectReference(Model):
    """A reference to an object by name, in the same namespace."""

    name: Annotated[str, Default("")] = ""
    """Name of the referent (empty means no reference)."""
