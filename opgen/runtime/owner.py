"""Owner references: make one object the controller of another.

`set_controller_reference(owner, child)` refuses what the garbage collector
would silently ignore or mishandle: an owner in another namespace, a
namespaced owner of a cluster-scoped child, an owner not yet persisted (no
UID), and a child that already has a different controller. When the owner
is in a slot of a sharding ring, the child gets the owner's slot label
too (the slot the assigner would give it), so it is watched by the replica
that reconciles its owner from its creation on.

Only the metadata fields it needs are read and written (`metafields`), not
the whole metadata: a reconcile that creates a child calls it every time. The
metadata is read and changed as an `op.ObjectMeta` (`metafields.typed`): every
kind's own, its owner references `OwnerReference` models.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opgen.api import OwnerReference
from opgen.runtime import construct, metafields, resources
from opgen.runtime.resources import ResourceType
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
    owner_meta = metafields.typed(owner)
    child_meta = metafields.typed(child)
    uid = owner_meta.uid
    _check_scope(
        owner_type,
        child_type,
        owner_meta.name,
        uid,
        owner_meta.namespace,
        child_meta.namespace,
    )
    references = child_meta.owner_references or []
    current = next((r for r in references if r.controller), None)
    if current is not None and current.uid != uid:
        raise AlreadyOwnedError(
            f"{child_type.kind} {child_meta.name!r} is already controlled by "
            f"{current.kind} {current.name!r}"
        )
    child_meta.owner_references = [
        *(r for r in references if r.uid != uid),
        _reference(owner_type, owner_meta.name, uid, block_owner_deletion),
    ]
    changed: tuple[str, ...] = _CHANGED
    shards = _slots(owner_meta.labels)
    if shards:
        child_meta.labels = {**(child_meta.labels or {}), **shards}
        changed = _CHANGED_WITH_LABELS
    metafields.write_back(child, child_meta, changed)


_CHANGED = ("ownerReferences",)
_CHANGED_WITH_LABELS = ("ownerReferences", "labels")


def _reference(
    owner_type: ResourceType[Any], name: Any, uid: Any, block_owner_deletion: Any
) -> OwnerReference:
    """The controller reference to the owner: built directly (`construct.trusted`)
    when its values are the types `OwnerReference` checks for, else validated."""
    values = {
        "api_version": owner_type.api_version,
        "block_owner_deletion": block_owner_deletion,
        "controller": True,
        "kind": owner_type.kind,
        "name": name,
        "uid": uid,
    }
    if type(name) is str and type(uid) is str and type(block_owner_deletion) is bool:
        return construct.trusted(OwnerReference, values)
    return OwnerReference(**values)


def _check_scope(
    owner_type: ResourceType[Any],
    child_type: ResourceType[Any],
    owner_name: Any,
    owner_uid: Any,
    owner_namespace: Any,
    child_namespace: Any,
) -> None:
    """Refuse an owner the garbage collector would ignore (the module's docstring)."""
    if not owner_uid:
        raise OwnerReferenceError(
            f"{owner_type.kind} {owner_name!r} has no uid: owners must exist on the server first"
        )
    if owner_type.namespaced:
        if not child_type.namespaced:
            raise OwnerReferenceError(
                f"cluster-scoped {child_type.kind} cannot be owned by namespaced {owner_type.kind}"
            )
        if (child_namespace or None) != (owner_namespace or None):
            raise OwnerReferenceError(
                f"{child_type.kind} in namespace {child_namespace!r} cannot be owned by "
                f"{owner_type.kind} in namespace {owner_namespace!r}: "
                "owner references cannot cross namespaces"
            )


def _slots(labels: Mapping[str, str] | None) -> dict[str, str]:
    """The owner's sharding-slot labels, which its children get too."""
    if not labels:
        return {}
    return {k: v for k, v in labels.items() if k.startswith(SLOT_PREFIX)}
