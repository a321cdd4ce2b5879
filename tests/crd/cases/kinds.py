"""Golden cases: kind-level decorators (kind, subresources, printer columns, selectable fields, CRD metadata)."""

from __future__ import annotations

from typing import Annotated

import opgen.api as op

GROUP = "cases.opgen.dev"


class ClusterPolicySpec(op.Model):
    rules: list[str] = []


@op.kind(
    group=GROUP,
    version="v1",
    scope="Cluster",
    plural="clusterpolicies",
    singular="clusterpolicy",
    short_names=["cpol"],
    categories=["policy", "all"],
)
class ClusterPolicy(op.CustomResource[ClusterPolicySpec, None]):
    """@op.kind(...): group, version, scope and names."""


class Counters(op.Model):
    ready: int = 0


class StatusSpec(op.Model):
    size: int = 1


@op.kind(group=GROUP, version="v1")
@op.subresource_status()
class SubresourceStatusCase(op.CustomResource[StatusSpec, Counters]):
    """@op.subresource_status(): `subresources.status`."""


class ScaleSpec(op.Model):
    replicas: Annotated[int, op.Minimum(0)] = 1


class ScaleStatus(op.Model):
    replicas: int = 0
    selector: str = ""


@op.kind(group=GROUP, version="v1")
@op.subresource_status()
@op.subresource_scale(
    spec_replicas_path=".spec.replicas",
    status_replicas_path=".status.replicas",
    label_selector_path=".status.selector",
)
class SubresourceScaleCase(op.CustomResource[ScaleSpec, ScaleStatus]):
    """@op.subresource_scale(...): `subresources.scale`."""


class ColumnsStatus(op.Model):
    phase: str = ""
    ready: int = 0


@op.kind(group=GROUP, version="v1")
@op.print_column(name="Phase", type="string", json_path=".status.phase")
@op.print_column(
    name="Ready",
    type="integer",
    json_path=".status.ready",
    description="Ready replicas",
    format="int32",
)
@op.print_column(name="Size", type="integer", json_path=".spec.size", priority=1)
@op.print_column(name="Age", type="date", json_path=".metadata.creationTimestamp")
class PrintColumnCase(op.CustomResource[StatusSpec, ColumnsStatus]):
    """@op.print_column(...): `additionalPrinterColumns`, in the order written."""


class SelectableSpec(op.Model):
    tier: str = "web"
    enabled: bool = True


@op.kind(group=GROUP, version="v1")
@op.selectable_field(".spec.tier")
@op.selectable_field(".spec.enabled")
class SelectableFieldCase(op.CustomResource[SelectableSpec, None]):
    """@op.selectable_field(json_path): `selectableFields`."""


@op.kind(group=GROUP, version="v1")
@op.crd_metadata(
    annotations={"cert-manager.io/inject-ca-from": "system/serving-cert"},
    labels={"app.kubernetes.io/part-of": "cases"},
)
class CrdMetadataCase(op.CustomResource[StatusSpec, None]):
    """@op.crd_metadata(annotations=, labels=): metadata of the CRD itself."""
