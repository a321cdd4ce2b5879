"""Gizmo v1alpha1: the spoke of the conversion tests (`size` is v1's `replicas`)."""

from __future__ import annotations

import opgen.api as op


class GizmoSpec(op.Model):
    """What a v1alpha1 Gizmo wants."""

    size: int = 1
    """How many; v1 calls it replicas."""
    label: str | None = None
    """A label, the same in both versions."""


@op.kind(group="webhook.opgen.dev", version="v1alpha1")
class Gizmo(op.CustomResource[GizmoSpec, None]):
    """An old version of Gizmo."""
