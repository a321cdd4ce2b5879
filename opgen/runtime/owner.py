"""Owner references: make one object the controller of another.

`set_controller_reference(owner, child)` refuses what the garbage collector
would silently ignore or mishandle: an owner in another namespace, a
namespaced owner of a cluster-scoped child, an owner not yet persisted (no
UID), and a child that already has a different controller. When the owner
is in a slot of a sharding ring, the child gets the owner's slot label
too (the slot the assigner would give it), so it is watched by the replica
that reconciles its owner from its creation on.

Only the metadata fields it needs are read and written (`metafields`), not
the whole metadata: a reconcile that creates a child calls it every time.
"""

from __future__ import annotations

from typing import Any

from opgen.runtime import metafields, resources
from opgen.runtime.sharding.protocol import SLOT_PREFIX

__all__ = [
    "AlreadyOwnedError",
    "OwnerReferenceError",
    "controller_of",
    "set_controller_reference",
]


class OwnerReferenceError(ValueError):
    """This owner reference cannot be set."""


class AlreadyOwnedError(OwnerReferenceError):
    """The child already has another controller."""


def controller_of(obj: object) -> dict[str, Any] | None:
    """The owner reference with `controller: true`, if any."""
    for ref in metafields.get(obj, "ownerReferences") or ():
        if ref.get("controller"):
            return dict(ref)
    return None


def set_controller_reference(
    owner: object, child: object, *, block_owner_deletion: bool = True
) -> None:
    """Make `owner` the controller of `child` (edits `child.metadata` in place; no API call)."""
    owner_type = resources.resource_type(type(owner))
    child_type = resources.resource_type(type(child))
    owner_name = metafields.get(owner, "name")
    owner_uid = metafields.get(owner, "uid")
    if not owner_uid:
        raise OwnerReferenceError(
            f"{owner_type.kind} {owner_name!r} has no uid: owners must exist on the server first"
        )
    if owner_type.namespaced:
        if not child_type.namespaced:
            raise OwnerReferenceError(
                f"cluster-scoped {child_type.kind} cannot be owned by namespaced {owner_type.kind}"
            )
        owner_namespace = metafields.get(owner, "namespace")
        child_namespace = metafields.get(child, "namespace")
        if (child_namespace or None) != (owner_namespace or None):
            raise OwnerReferenceError(
                f"{child_type.kind} in namespace {child_namespace!r} cannot be owned by "
                f"{owner_type.kind} in namespace {owner_namespace!r}: "
                "owner references cannot cross namespaces"
            )
    reference = {
        "apiVersion": owner_type.api_version,
        "kind": owner_type.kind,
        "name": owner_name,
        "uid": owner_uid,
        "controller": True,
        "blockOwnerDeletion": block_owner_deletion,
    }
    references: list[dict[str, Any]] = metafields.get(child, "ownerReferences") or []
    current = next((r for r in references if r.get("controller")), None)
    if current is not None and current.get("uid") != owner_uid:
        raise AlreadyOwnedError(
            f"{child_type.kind} {metafields.get(child, 'name')!r} is already controlled by "
            f"{current.get('kind')} {current.get('name')!r}"
        )
    references = [r for r in references if r.get("uid") != owner_uid]
    references.append(reference)
    metafields.put(child, "ownerReferences", references)
    shards = {
        key: value
        for key, value in (metafields.get(owner, "labels") or {}).items()
        if key.startswith(SLOT_PREFIX)
    }
    if shards:
        labels = metafields.get(child, "labels") or {}
        metafields.put(child, "labels", {**labels, **shards})
