"""Owner references: make one object the controller of another.

`set_controller_reference(owner, child)` refuses what the garbage collector
would silently ignore or mishandle: an owner in another namespace, a
namespaced owner of a cluster-scoped child, an owner not yet persisted (no
UID), and a child that already has a different controller. When the owner
is in a slot of a sharding ring, the child gets the owner's slot label
too (the slot the assigner would give it), so it is watched by the replica
that reconciles its owner from its creation on.
"""

from __future__ import annotations

from typing import Any

from opgen.runtime import resources
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
    for ref in resources.metadata(obj).get("ownerReferences") or ():
        if ref.get("controller"):
            return dict(ref)
    return None


def set_controller_reference(
    owner: object, child: object, *, block_owner_deletion: bool = True
) -> None:
    """Make `owner` the controller of `child` (edits `child.metadata` in place; no API call)."""
    owner_type = resources.resource_type(type(owner))
    child_type = resources.resource_type(type(child))
    owner_meta = resources.metadata(owner)
    child_meta = resources.metadata(child)
    if not owner_meta.get("uid"):
        raise OwnerReferenceError(
            f"{owner_type.kind} {owner_meta.get('name')!r} has no uid: owners must exist on the server first"
        )
    if owner_type.namespaced:
        if not child_type.namespaced:
            raise OwnerReferenceError(
                f"cluster-scoped {child_type.kind} cannot be owned by namespaced {owner_type.kind}"
            )
        if (child_meta.get("namespace") or None) != (
            owner_meta.get("namespace") or None
        ):
            raise OwnerReferenceError(
                f"{child_type.kind} in namespace {child_meta.get('namespace')!r} cannot be owned by "
                f"{owner_type.kind} in namespace {owner_meta.get('namespace')!r}: "
                "owner references cannot cross namespaces"
            )
    reference = {
        "apiVersion": owner_type.api_version,
        "kind": owner_type.kind,
        "name": owner_meta["name"],
        "uid": owner_meta["uid"],
        "controller": True,
        "blockOwnerDeletion": block_owner_deletion,
    }
    references = [dict(r) for r in child_meta.get("ownerReferences") or ()]
    current = next((r for r in references if r.get("controller")), None)
    if current is not None and current.get("uid") != owner_meta["uid"]:
        raise AlreadyOwnedError(
            f"{child_type.kind} {child_meta.get('name')!r} is already controlled by "
            f"{current.get('kind')} {current.get('name')!r}"
        )
    references = [r for r in references if r.get("uid") != owner_meta["uid"]]
    references.append(reference)
    child_meta["ownerReferences"] = references
    shards = {
        key: value
        for key, value in (owner_meta.get("labels") or {}).items()
        if key.startswith(SLOT_PREFIX)
    }
    if shards:
        child_meta["labels"] = {**(child_meta.get("labels") or {}), **shards}
    resources.set_metadata(child, child_meta)
