"""The test kinds after an API upgrade: the same Widget and Gadget (same group,
version, kind, CRD), but `spec.replicas` must now be at least 1.

The installed CRD still says `replicas: int`, so the API server keeps storing
`replicas: 0`: objects written under the old rules no longer fit these models,
which is how the decode-failure tests get real undecodable objects.
"""

from __future__ import annotations

from typing import Annotated

import opgen.api as op
from tests.runtime.kinds import WidgetStatus


class StrictSpec(op.Model):
    """What a Widget wants, under the upgraded rules."""

    replicas: Annotated[int, op.Minimum(1)] = 1
    """Desired replicas: at least 1 now."""
    message: str = ""
    """Copied into the owned ConfigMap."""
    fail: str | None = None
    """Makes test reconcilers fail in the named way."""


@op.kind(group="test.opgen.dev", version="v1")
@op.subresource_status()
@op.subresource_scale(".spec.replicas", ".status.replicas", ".status.selector")
class Widget(op.CustomResource[StrictSpec, WidgetStatus]):
    """The namespaced test kind, upgraded."""


@op.kind(group="test.opgen.dev", version="v1", scope="Cluster")
@op.subresource_status()
@op.subresource_scale(".spec.replicas", ".status.replicas", ".status.selector")
class Gadget(op.CustomResource[StrictSpec, WidgetStatus]):
    """The cluster-scoped test kind, upgraded."""
