"""Test kinds: a namespaced Widget and a cluster-scoped Gadget, both with status and scale.

Real `@op.kind` classes; the runtime tests install the CRDs opgen generates
from this file (see `crds.py`), so the runtime is proven on opgen's own output.
"""

from __future__ import annotations

from typing import Any

import opgen.api as op


class WidgetSpec(op.Model):
    """What a Widget wants."""

    replicas: int = 1
    """Desired replicas (the scale subresource's specReplicasPath)."""
    message: str = ""
    """Copied into the owned ConfigMap."""
    fail: str | None = None
    """Makes test reconcilers fail in the named way."""


class WidgetStatus(op.Model):
    """What a Widget has."""

    replicas: int = 0
    """Observed replicas (statusReplicasPath)."""
    selector: str | None = None
    """Label selector of the replicas (labelSelectorPath)."""
    observed_generation: int | None = None
    """The generation the status was computed from."""
    ready: bool | None = None
    """Whether the Widget is ready."""
    conditions: op.Conditions = []
    """Current conditions."""


@op.kind(group="test.opgen.dev", version="v1")
@op.subresource_status()
@op.subresource_scale(".spec.replicas", ".status.replicas", ".status.selector")
class Widget(op.CustomResource[WidgetSpec, WidgetStatus]):
    """A namespaced test kind."""


@op.kind(group="test.opgen.dev", version="v1", scope="Cluster")
@op.subresource_status()
@op.subresource_scale(".spec.replicas", ".status.replicas", ".status.selector")
class Gadget(op.CustomResource[WidgetSpec, WidgetStatus]):
    """A cluster-scoped test kind."""


def widget(name: str, namespace: str, **spec: Any) -> Widget:
    """A Widget to create; only the spec fields given are set (apply claims no defaults)."""
    return Widget(
        metadata=op.ObjectMeta(name=name, namespace=namespace),
        spec=WidgetSpec.model_validate(spec),
    )
