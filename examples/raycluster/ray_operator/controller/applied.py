# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""Whether a child already is what the operator would apply: zero writes when converged.

The reconciler writes a child by server-side apply of the whole object it
built (`children`). Applying an unchanged object still costs a request, so it
first compares, and skips the write when both hold:

- **the live child holds every field the operator sets**, with the same
  value. The API server adds defaults (a container's
  `terminationMessagePath`, a Service's `clusterIP`), so fields the operator
  does not set are ignored; lists must have the same length, item by item;
  quantities compare by value (`1000m` is `1`). A change someone else made
  to one of the operator's fields (`kubectl scale` of a worker Deployment)
  fails this, and the next reconcile puts it back;
- **its `ray.io/applied-hash` annotation is the hash of what would be
  applied**. This catches a field the operator *stopped* setting (a `command`
  removed from a template), which the live object still has and the
  comparison above cannot tell from a server default; the apply then drops it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import opgen.api as op
from lightkube.utils.quantity import parse_quantity

Child = op.k8s.Deployment | op.k8s.Service
APPLIED_HASH = "ray.io/applied-hash"
QUANTITY_MAPS = frozenset({"limits", "requests", "overhead"})
"""Maps whose values are quantities (resource requirements, pod overhead)."""


def stamp(child: Child) -> None:
    """Set `child`'s `ray.io/applied-hash` annotation to the hash of the rest of it."""
    annotations = {
        k: v for k, v in (child.metadata.annotations or {}).items() if k != APPLIED_HASH
    }
    child.metadata.annotations = annotations
    body = json.dumps(wire(child), sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(body.encode()).hexdigest()[:16]
    child.metadata.annotations = {**annotations, APPLIED_HASH: digest}


def up_to_date(live: Child, desired: Child) -> bool:
    """Whether applying `desired` (stamped) would change nothing `live` holds."""
    applied = _applied_hash(desired)
    return (
        applied is not None
        and applied == _applied_hash(live)
        and holds(wire(live), wire(desired))
    )


def wire(child: Child) -> dict[str, Any]:
    """`child` as the API server sees it: wire names, no unset fields."""
    return child.model_dump(mode="json", by_alias=True, exclude_none=True)


def _applied_hash(child: Child) -> str | None:
    return (child.metadata.annotations or {}).get(APPLIED_HASH)


def holds(live: Any, desired: Any, *, quantities: bool = False) -> bool:
    """Whether `live` has every field of `desired` with the same value (wire form)."""
    if not desired:
        # An empty or zero value: the server omits it, so absent is the same.
        return not live
    if isinstance(desired, Mapping):
        if not isinstance(live, Mapping):
            return False
        return all(
            holds(live.get(key), value, quantities=quantities or key in QUANTITY_MAPS)
            for key, value in desired.items()
        )
    if isinstance(desired, list):
        return (
            isinstance(live, list)
            and len(live) == len(desired)
            and all(holds(have, want) for have, want in zip(live, desired, strict=True))
        )
    if quantities and isinstance(desired, str) and isinstance(live, str):
        return _same_quantity(live, desired)
    return bool(live == desired)


def _same_quantity(live: str, desired: str) -> bool:
    if live == desired:
        return True
    try:
        return parse_quantity(live) == parse_quantity(desired)
    except ValueError:
        return False
