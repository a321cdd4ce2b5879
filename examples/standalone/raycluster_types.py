"""A types file on its own, outside any project: a RayCluster API for `opgen generate crd`.

`opgen generate crd --types examples/standalone/raycluster_types.py --out
out/crds` turns it into `out/crds/ray.io_rayclusters.yaml`, with no project
around it. It shows the schema features in one file: attribute docstrings as
descriptions, validation markers and plain Pydantic constraints, list-map
topology, Kubernetes value types, defaults, CEL rules and one-of groups,
status and scale subresources, and printer columns. opgen's CRD tests read
it, and the controller-gen benchmark compares it with its Go twin
(benchmarks/controllergen/api/v1/raycluster_types.go).

The example operator, built in a project as a user builds one, is
examples/generated/ (its types: examples/raycluster_types.py).
"""

from __future__ import annotations

import enum
from typing import Annotated, Literal

import opgen.api as op
from pydantic import Field


class UpscalingMode(str, enum.Enum):
    """How aggressively the autoscaler adds workers."""

    DEFAULT = "Default"
    AGGRESSIVE = "Aggressive"
    CONSERVATIVE = "Conservative"


class ResourceRequirements(op.Model):
    """Compute resources of one Ray container."""

    requests: dict[str, op.Quantity] = {}
    """Minimum resources, e.g. {"cpu": "500m", "memory": "1Gi"}."""
    limits: dict[str, op.Quantity] = {}
    """Maximum resources."""


@op.Rule(
    "self.minReplicas <= self.maxReplicas",
    message="minReplicas must not exceed maxReplicas",
    field_path=".minReplicas",
)
class WorkerGroup(op.Model):
    """A set of identical workers."""

    group_name: Annotated[str, op.MinLength(1), op.MaxLength(63), op.Immutable()]
    """Name of the group; cannot change once set."""
    replicas: Annotated[int, op.Minimum(0), op.Format("int32")] = 1
    """Desired number of workers."""
    min_replicas: Annotated[int, Field(ge=0), op.Format("int32")] = 0
    """Lower bound for the autoscaler."""
    max_replicas: Annotated[int, Field(ge=0), op.Format("int32")] = 100
    """Upper bound for the autoscaler."""
    resources: ResourceRequirements | None = None
    """Resources of each worker; the cluster default applies when unset."""
    ray_start_params: dict[str, str] = {}
    """Extra flags for `ray start`, without the leading dashes."""


@op.ExactlyOneOf("image", "image_from")
class HeadSpec(op.Model):
    """The head node."""

    image: Annotated[str, op.Pattern(r"^[^\s]+$")] | None = None
    """Container image of the head node, e.g. rayproject/ray:2.9.0."""
    image_from: op.LocalObjectReference | None = None
    """A ConfigMap holding the image name, instead of `image`."""
    service_type: Literal["ClusterIP", "NodePort", "LoadBalancer"] = "ClusterIP"
    """How the head service is exposed."""
    dashboard_port: op.IntOrString = 8265
    """Port (number or name) of the Ray dashboard."""


class RayClusterSpec(op.Model):
    """Desired state of a Ray cluster."""

    ray_version: Annotated[str, op.Pattern(r"^\d+\.\d+\.\d+$"), op.Example("2.9.0")]
    """Ray version of every node, e.g. 2.9.0."""
    head: HeadSpec
    """The head node."""
    head_replicas: Annotated[int, op.Minimum(1), op.Maximum(1)] = 1
    """Number of head nodes (exactly one for now)."""
    worker_replicas: Annotated[int, op.Minimum(0)] = 0
    """Total number of workers; the target of `kubectl scale`."""
    worker_groups: Annotated[
        list[WorkerGroup],
        op.ListType("map"),
        op.ListMapKey("groupName"),
        op.MaxItems(16),
    ] = []
    """Groups of workers, merged by name under server-side apply."""
    upscaling_mode: UpscalingMode | None = None
    """Autoscaler behaviour; no autoscaling when unset."""
    idle_timeout: op.Duration | None = None
    """Scale idle workers down after this long, e.g. 10m."""
    suspend: bool = False
    """Delete all pods but keep the cluster definition."""
    labels: Annotated[dict[str, str], op.MaxProperties(32)] = {}
    """Labels added to every pod."""
    tolerations: Annotated[list[str], op.ListType("set")] = []
    """Names of node taints the pods tolerate."""


class RayClusterStatus(op.Model):
    """Observed state of a Ray cluster."""

    ready: bool = False
    """Whether the head and every worker are running."""
    worker_ready: int = 0
    """Number of running workers."""
    selector: str | None = None
    """Label selector of the worker pods (for the scale subresource)."""
    observed_generation: int | None = None
    """The .metadata.generation this status describes."""
    last_scale_time: op.Time | None = None
    """When the cluster last changed size."""
    conditions: op.Conditions = []
    """Ready, Suspended and other conditions, keyed by type."""


@op.kind(group="ray.io", version="v1", short_names=["rayc"], categories=["ray"])
@op.subresource_status()
@op.subresource_scale(
    spec_replicas_path=".spec.workerReplicas",
    status_replicas_path=".status.workerReady",
    label_selector_path=".status.selector",
)
@op.print_column(name="Workers", type="integer", json_path=".status.workerReady")
@op.print_column(name="Ready", type="boolean", json_path=".status.ready")
@op.print_column(
    name="Version", type="string", json_path=".spec.rayVersion", priority=1
)
@op.print_column(name="Age", type="date", json_path=".metadata.creationTimestamp")
@op.selectable_field(".spec.rayVersion")
class RayCluster(op.CustomResource[RayClusterSpec, RayClusterStatus]):
    """RayCluster is the Schema for the rayclusters API."""
