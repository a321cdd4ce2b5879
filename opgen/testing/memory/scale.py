"""A custom resource's scale subresource: the object seen as an `autoscaling/v1` Scale.

The CRD names where the replicas live (`specReplicasPath`,
`statusReplicasPath`, `labelSelectorPath`); a Scale read shows them, a Scale
written sets the spec's replicas on the object, which is then written as any
update is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opgen.testing.memory.store import json_copy

__all__ = ["ScalePaths", "read_path", "to_scale", "with_replicas"]

ScalePaths = Mapping[str, str]
"""The CRD's `subresources.scale`."""

_SCALE_META = ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")


def read_path(obj: Any, path: str) -> Any:
    """The value at a `.spec.replicas`-style path; None when any step is missing."""
    for part in path.lstrip(".").split("."):
        obj = obj.get(part) if isinstance(obj, dict) else None
    return obj


def to_scale(paths: ScalePaths, obj: dict[str, Any]) -> dict[str, Any]:
    """The Scale the server answers for `obj`."""
    meta = obj["metadata"]
    status: dict[str, Any] = {
        "replicas": read_path(obj, paths.get("statusReplicasPath", "")) or 0
    }
    selector = paths.get("labelSelectorPath")
    if selector and read_path(obj, selector):
        status["selector"] = read_path(obj, selector)
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {key: meta[key] for key in _SCALE_META if key in meta},
        "spec": {"replicas": read_path(obj, paths["specReplicasPath"]) or 0},
        "status": status,
    }


def with_replicas(
    paths: ScalePaths, obj: dict[str, Any], replicas: Any
) -> dict[str, Any]:
    """`obj` (a copy) with the Scale's desired replicas at `specReplicasPath`."""
    changed = json_copy(obj)
    *parents, leaf = paths["specReplicasPath"].lstrip(".").split(".")
    node = changed
    for part in parents:
        node = node.setdefault(part, {})
    node[leaf] = replicas
    return changed
