"""Kubernetes object types every custom resource uses: metadata, conditions, references.

`ObjectMeta` decodes whatever the server sends (unknown fields are kept). In a
CRD it is `{type: object}`, as controller-gen writes it: at the root the API
server owns it; nested (in a pod template, say) the API server then prunes
everything in it, labels included, unless the CRD is generated with the
embedded-object-meta option (controller-gen's `generateEmbeddedObjectMeta`),
which describes name, namespace, labels, annotations and finalizers.

The other types carry the documentation and markers of their Go types in
k8s.io/api and k8s.io/apimachinery, so their schemas are controller-gen's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

from pydantic import ConfigDict, GetJsonSchemaHandler
from pydantic_core import CoreSchema

from opgen.api._model import Model
from opgen.api._structure import Default, ListMapKey, ListType, StructType
from opgen.api._types import Time
from opgen.api._validation import Format, MaxLength, Minimum, MinLength, Pattern
from opgen.engine.markers import (
    OBJECT_META_DESCRIBED,
    OBJECT_META_FLAG,
    OBJECT_META_PLAIN,
    Marker,
    MarkerContext,
    SchemaNode,
)

__all__ = [
    "Condition",
    "Conditions",
    "EmbeddedObjectMeta",
    "LocalObjectReference",
    "ObjectMeta",
    "ObjectReference",
    "OwnerReference",
]


@StructType("atomic")
class OwnerReference(Model):
    """OwnerReference contains enough information to let you identify an owning
    object. An owning object must be in the same namespace as the dependent, or
    be cluster-scoped, so there is no namespace field."""

    api_version: str
    """API version of the referent."""
    block_owner_deletion: bool | None = None
    """If true, AND if the owner has the "foregroundDeletion" finalizer, then
    the owner cannot be deleted from the key-value store until this
    reference is removed.
    See https://kubernetes.io/docs/concepts/architecture/garbage-collection/#foreground-deletion
    for how the garbage collector interacts with this field and enforces the foreground deletion.
    Defaults to false.
    To set this field, a user needs "delete" permission of the owner,
    otherwise 422 (Unprocessable Entity) will be returned."""
    controller: bool | None = None
    """If true, this reference points to the managing controller."""
    kind: str
    """Kind of the referent.
    More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"""
    name: str
    """Name of the referent.
    More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"""
    uid: str
    """UID of the referent.
    More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#uids"""


class ObjectMeta(Model):
    """ObjectMeta is metadata that all persisted resources must have, which includes all objects
    users must create."""

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
        # `{type: object}`; the schema stage adds the embedded-object-meta
        # fields when the CRD options ask for them. The root is always
        # `{type: object}`.
        return {"type": "object", OBJECT_META_FLAG: True}


@dataclass(frozen=True)
class EmbeddedObjectMeta(Marker):
    """The form of every nested ObjectMeta at or below this field or type,
    whatever the CRD option (`--embedded-object-meta`) says: described
    (`name`, `namespace`, `labels`, `annotations`, `finalizers`, as
    controller-gen's `generateEmbeddedObjectMeta` writes them) or, with
    `described=False`, `{type: object}`. An ObjectMeta below that is marked
    itself keeps its own marker's form. `opgen import` writes it where a CRD
    describes one nested `metadata` and not another."""

    described: bool = True
    keyword: ClassVar[str] = "x-opgen-embedded-object-meta"
    """The fact `opgen.openapi` reads off a node whose nested ObjectMeta is described."""

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        form = OBJECT_META_DESCRIBED if self.described else OBJECT_META_PLAIN
        found: list[bool] = []
        copies: dict[int, Any] = {}

        def walk(value: Any) -> Any:
            if isinstance(value, list):
                items = [walk(item) for item in value]
                changed = any(a is not b for a, b in zip(items, value, strict=True))
                return items if changed else value
            if not isinstance(value, dict):
                return value
            if id(value) in copies:
                return copies[id(value)]
            if value.get(OBJECT_META_FLAG) is not None:
                found.append(True)
                result = (
                    {**value, OBJECT_META_FLAG: form}
                    if value[OBJECT_META_FLAG] is True
                    else value
                )
            else:
                children = {key: walk(child) for key, child in value.items()}
                changed = any(children[key] is not value[key] for key in value)
                result = children if changed else value
            copies[id(value)] = result
            return result

        marked = walk(node)
        if not found:
            raise ctx.error(
                self,
                "there is no nested ObjectMeta here",
                hint="put it on a field (or type) that holds an op.ObjectMeta, "
                "or a type with one inside (op.k8s.PodTemplateSpec)",
            )
        assert isinstance(marked, dict)
        return marked


class Condition(Model):
    """Condition contains details for one aspect of the current state of this API Resource."""

    last_transition_time: Time
    """lastTransitionTime is the last time the condition transitioned from one status to another.
    This should be when the underlying condition changed.  If that is not known, then using the time when the API field changed is acceptable."""
    message: Annotated[str, MaxLength(32768)]
    """message is a human readable message indicating details about the transition.
    This may be an empty string."""
    observed_generation: Annotated[int, Minimum(0), Format("int64")] | None = None
    """observedGeneration represents the .metadata.generation that the condition was set based upon.
    For instance, if .metadata.generation is currently 12, but the .status.conditions[x].observedGeneration is 9, the condition is out of date
    with respect to the current state of the instance."""
    reason: Annotated[
        str,
        MinLength(1),
        MaxLength(1024),
        Pattern(r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"),
    ]
    """reason contains a programmatic identifier indicating the reason for the condition's last transition.
    Producers of specific condition types may define expected values and meanings for this field,
    and whether the values are considered a guaranteed API.
    The value should be a CamelCase string.
    This field may not be empty."""
    status: Literal["True", "False", "Unknown"]
    """status of the condition, one of True, False, Unknown."""
    type: Annotated[
        str,
        MaxLength(316),
        Pattern(
            r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
            r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$"
        ),
    ]
    """type of condition in CamelCase or in foo.example.com/CamelCase."""


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
    """LocalObjectReference contains enough information to let you locate the
    referenced object inside the same namespace."""

    name: Annotated[str, Default("")] = ""
    """Name of the referent.
    This field is effectively required, but due to backwards compatibility is
    allowed to be empty. Instances of this type with an empty value here are
    almost certainly wrong.
    More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names"""
