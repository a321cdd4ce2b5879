"""Apply if changed: a server-side apply that costs no request when the object
already is what would be applied.

A reconciler that builds each child whole and applies it still sends one
request per child per reconcile, converged or not. `apply_if_changed`
compares first, against the live object (read from the cache), and skips
the apply when both hold:

- **the live object holds every field `desired` sets**, with the same value.
  The API server adds defaults (a container's `terminationMessagePath`, a
  Service's `clusterIP`), so fields `desired` does not set are ignored;
  lists must have the same length, item by item; quantities in resource maps
  compare by value (`1000m` is `1`). A change someone else made to one of
  these fields (`kubectl scale` of a Deployment) fails this, and the apply
  puts it back;
- **its hash annotation is the hash of what would be applied**. This catches
  a field the operator *stopped* setting (a `command` removed from a
  template), which the live object still has and the comparison above cannot
  tell from a server default; the apply then drops it. The annotation is
  named by the caller, in its own domain (`ray.io/applied-hash`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, TypeVar

from opgen.api import ObjectMeta
from opgen.engine.openapi import quantity_amount
from opgen.runtime import errors, resources
from opgen.runtime.client import Client
from opgen.runtime.writes import Operation

__all__ = ["apply_if_changed", "holds", "stamp", "up_to_date"]

T = TypeVar("T")

QUANTITY_MAPS = frozenset({"limits", "requests", "overhead", "capacity", "hard"})
"""Maps whose values are quantities (resource requirements, pod overhead, quotas)."""


class _Unread:
    """`live` was not given: read it."""


_UNREAD = _Unread()


async def apply_if_changed(
    client: Client,
    desired: T,
    *,
    annotation: str,
    live: T | _Unread | None = _UNREAD,
    field_manager: str | None = None,
    force: bool = False,
) -> tuple[T, Operation]:
    """Server-side apply `desired` unless the live object already holds it; returns
    the object as it now is and what was done (`CREATED` when there was none,
    `UPDATED`, or `UNCHANGED`: the live object, and no request).

    `desired` is stamped with `annotation`, the hash of the rest of it. `live` is
    the object as it is (None: there is none); when not given it is read
    through the client (the cache, for the manager's client)."""
    desired_wire = _stamped_wire(desired, annotation)
    if isinstance(live, _Unread):
        meta = resources.metadata(desired)
        try:
            live = await client.get(
                type(desired), str(meta["name"]), meta.get("namespace")
            )
        except errors.NotFound:
            live = None
    if live is not None and _up_to_date(live, desired, annotation, desired_wire):
        return live, Operation.UNCHANGED
    applied = await client.apply(desired, field_manager=field_manager, force=force)
    return applied, Operation.CREATED if live is None else Operation.UPDATED


def stamp(obj: object, annotation: str) -> None:
    """Set `obj`'s `annotation` to the hash of the rest of it."""
    _stamped_wire(obj, annotation)


def _stamped_wire(obj: object, annotation: str) -> dict[str, Any]:
    """`stamp(obj, annotation)`, returning `obj`'s wire form as stamped: one
    conversion to the wire form, hashed with the annotation left out."""
    wire = _wire(obj)
    meta = wire.setdefault("metadata", {})
    annotations = {
        k: v for k, v in (meta.get("annotations") or {}).items() if k != annotation
    }
    meta["annotations"] = annotations
    body = json.dumps(wire, sort_keys=True, separators=(",", ":"))
    annotations[annotation] = hashlib.sha256(body.encode()).hexdigest()[:16]
    resources.set_metadata(obj, meta)
    return wire


def up_to_date(live: object, desired: object, annotation: str) -> bool:
    """Whether applying `desired` (stamped) would change nothing `live` holds."""
    return _up_to_date(live, desired, annotation, None)


def _up_to_date(
    live: object,
    desired: object,
    annotation: str,
    desired_wire: dict[str, Any] | None,
) -> bool:
    wanted = _stamp_of(desired, annotation)
    if wanted is None or wanted != _stamp_of(live, annotation):
        return False
    return holds(_wire(live), _wire(desired) if desired_wire is None else desired_wire)


def holds(live: Any, desired: Any, *, quantities: bool = False) -> bool:
    """Whether `live` has every field of `desired` with the same value (wire form)."""
    if not desired:
        # An empty or zero value: the server omits it, so absent is the same.
        return not live
    if live == desired:
        return True  # most of a converged child: compared in C, not field by field
    if isinstance(desired, Mapping):
        if not isinstance(live, Mapping):
            return False
        for key, value in desired.items():
            if not holds(
                live.get(key), value, quantities=quantities or key in QUANTITY_MAPS
            ):
                return False
        return True
    if isinstance(desired, list):
        return (
            isinstance(live, list)
            and len(live) == len(desired)
            and all(holds(have, want) for have, want in zip(live, desired, strict=True))
        )
    if quantities and isinstance(desired, str) and isinstance(live, str):
        return _same_quantity(live, desired)
    return False


def _wire(obj: object) -> dict[str, Any]:
    return resources.resource_type(type(obj)).encode_obj(obj)


def _stamp_of(obj: object, annotation: str) -> str | None:
    meta = getattr(obj, "metadata", None)
    if isinstance(meta, ObjectMeta):
        annotations: Mapping[str, Any] | None = meta.annotations
    else:
        annotations = resources.metadata(obj).get("annotations")
    value = (annotations or {}).get(annotation)
    return str(value) if value is not None else None


def _same_quantity(live: str, desired: str) -> bool:
    if live == desired:
        return True
    amount = quantity_amount(live)
    return amount is not None and amount == quantity_amount(desired)
