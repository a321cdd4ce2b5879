# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""The RayCluster API (ray.io/v1).

A RayCluster is one Ray head and groups of Ray workers, each group a pod
template and its replicas. `spec.workerReplicas` is the total number of
workers (what `kubectl scale` sets); the operator spreads it over the groups
by the rule in `RayClusterSpec.worker_replicas`. The seed's flat fields
(`headReplicas`, `workerReplicas`, `image`) keep their names, so a RayCluster
written for ray.io/v1alpha1 reads the same here.

Edit the Spec and Status models to change the API, then run `opgen generate`
to regenerate the CRD. Fields are snake_case in Python and camelCase in YAML.
"""

import enum
from typing import Annotated, Literal

import opgen.api as op

from ray_operator.api.v1.groupversion_info import GROUP, VERSION

MAX_REPLICAS = 2147483647
"""The largest int32: a group's maxReplicas when it sets none."""
DNS_LABEL = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"


class UpscalingMode(str, enum.Enum):
    """How fast a worker group grows towards its share of `workerReplicas`."""

    DEFAULT = "Default"
    AGGRESSIVE = "Aggressive"
    CONSERVATIVE = "Conservative"


class HeadGroupSpec(op.Model):
    """The Ray head: a Deployment of `headReplicas` pods and a Service in front."""

    template: op.k8s.PodTemplateSpec | None = None
    """The head pods. Their first container runs Ray: the cluster's image when
    it names none, `ray start --head` when it sets no command, and Ray's ports
    (gcs-server 6379, dashboard 8265, client 10001) when it declares none.
    Without a template: one such container, named ray-head."""
    service_type: Literal["ClusterIP", "NodePort", "LoadBalancer"] = "ClusterIP"
    """How the head Service is exposed; it serves the Ray container's ports."""
    ray_start_params: Annotated[dict[str, str], op.MaxProperties(64)] = {}
    """Extra flags for `ray start --head`, without the leading dashes,
    e.g. {"num-cpus": "0"}."""


@op.Rule(
    "self.minReplicas <= self.maxReplicas",
    message="minReplicas must not exceed maxReplicas",
    field_path=".minReplicas",
)
@op.Rule(
    "self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas",
    message="replicas must lie between minReplicas and maxReplicas",
    field_path=".replicas",
)
class WorkerGroupSpec(op.Model):
    """A group of identical Ray workers: one Deployment, <cluster>-worker-<group>."""

    group_name: Annotated[str, op.MinLength(1), op.MaxLength(63), op.Pattern(DNS_LABEL)]
    """Name of the group, unique in the cluster (lower-case letters, digits and
    '-'); its Deployment is <cluster>-worker-<group>."""
    replicas: Annotated[int, op.Minimum(0), op.Format("int32")] = 1
    """The group's workers while the groups' replicas add up to
    `spec.workerReplicas`; otherwise the group's weight in the spread of
    `spec.workerReplicas` (see there)."""
    min_replicas: Annotated[int, op.Minimum(0), op.Format("int32")] = 0
    """The fewest workers the group runs, whatever `spec.workerReplicas` says."""
    max_replicas: Annotated[int, op.Minimum(0), op.Format("int32")] = MAX_REPLICAS
    """The most workers the group runs."""
    template: op.k8s.PodTemplateSpec | None = None
    """The worker pods. Their first container runs Ray: the cluster's image
    when it names none, `ray start --address=<head>:6379` when it sets no
    command. Without a template: one such container, named ray-worker."""
    ray_start_params: Annotated[dict[str, str], op.MaxProperties(64)] = {}
    """Extra flags for `ray start`, without the leading dashes,
    e.g. {"num-gpus": "1"}."""


@op.Rule(
    "has(self.image) || (has(self.headGroup) && has(self.headGroup.template)"
    " && has(self.headGroup.template.spec)"
    " && size(self.headGroup.template.spec.containers) > 0"
    " && has(self.headGroup.template.spec.containers[0].image)"
    " && (!has(self.workerGroups) || self.workerGroups.all(g, has(g.template)"
    " && has(g.template.spec) && size(g.template.spec.containers) > 0"
    " && has(g.template.spec.containers[0].image))))",
    message="set spec.image, or an image on the first container of the head's"
    " and every worker group's template",
    field_path=".image",
)
@op.Rule(
    "!has(self.workerReplicas) || !has(self.workerGroups)"
    " || (self.workerGroups.map(g, g.minReplicas).sum() <= self.workerReplicas"
    " && self.workerReplicas <= self.workerGroups.map(g, g.maxReplicas).sum())",
    message="workerReplicas must lie between the sums of the groups' minReplicas"
    " and maxReplicas",
    field_path=".workerReplicas",
)
class RayClusterSpec(op.Model):
    """The desired state of a RayCluster."""

    ray_version: (
        Annotated[
            str, op.Pattern(r"^\d+\.\d+\.\d+$"), op.Example("2.9.0"), op.Immutable()
        ]
        | None
    ) = None
    """The Ray version every node runs, e.g. 2.9.0; it cannot change once set
    (Ray upgrades by a new cluster)."""
    image: Annotated[str, op.MinLength(1)] | None = None
    """The default image of every group: the Ray container of the head and of
    each worker group runs it unless its template names another, e.g.
    rayproject/ray:2.9.0."""
    head_replicas: Annotated[int, op.Minimum(1), op.Format("int32")] = 1
    """Number of head pods."""
    worker_replicas: Annotated[int, op.Minimum(0), op.Format("int32")] | None = None
    """The total number of workers over every group: what `kubectl scale`
    sets. Unset, it is the sum of the groups' replicas (the defaulting webhook
    writes it). When the groups' replicas add up to it, each group runs its
    replicas. Otherwise the difference is shared in proportion to each
    group's room (growing: maxReplicas minus replicas; shrinking: replicas
    minus minReplicas), one worker at a time to the group with the most room
    per worker moved so far (D'Hondt), the earlier group on a tie. Without
    worker groups, every worker runs in one group, `workers`."""
    head_group: HeadGroupSpec | None = None
    """The head; Ray's defaults and the cluster's image when unset."""
    worker_groups: Annotated[
        list[WorkerGroupSpec],
        op.ListType("map"),
        op.ListMapKey("groupName"),
        op.MaxItems(16),
    ] = []
    """The groups of workers, merged by name under server-side apply."""
    upscaling_mode: UpscalingMode = UpscalingMode.DEFAULT
    """How fast a group grows: Default adds its new workers at once;
    Conservative at most as many at a time as it has ready workers (at least
    one); Aggressive is a deprecated alias for Default."""
    suspend: bool = False
    """Scale every group and the head to zero pods, keeping the Service and the
    definition; false again restores the cluster."""


class WorkerGroupStatus(op.Model):
    """What one worker group runs."""

    group_name: str
    """The group's name."""
    replicas: Annotated[int, op.Format("int32")] = 0
    """Its share of `spec.workerReplicas`, as its Deployment asks for it."""
    ready_replicas: Annotated[int, op.Format("int32")] = 0
    """Its ready workers."""


class RayClusterStatus(op.Model):
    """The observed state of a RayCluster."""

    ready: bool = False
    """Whether the head and every worker are ready (and the cluster is not
    suspended)."""
    head_ready: bool = False
    """Whether every head pod is ready."""
    worker_ready: Annotated[int, op.Format("int32")] = 0
    """Ready workers over every group: the scale subresource's replicas."""
    worker_groups: Annotated[
        list[WorkerGroupStatus], op.ListType("map"), op.ListMapKey("groupName")
    ] = []
    """Each worker group's share of the workers and its ready workers."""
    selector: str | None = None
    """The label selector of the worker pods, for the scale subresource (and
    the HorizontalPodAutoscaler)."""
    observed_generation: int | None = None
    """The `.metadata.generation` the controller last acted on."""
    conditions: op.Conditions = []
    """The latest observations of the object's state: Ready, Progressing,
    Degraded and Suspended."""


@op.kind(group=GROUP, version=VERSION, short_names=["rayc"], categories=["ray"])
@op.storage_version()
@op.subresource_status()
@op.subresource_scale(
    spec_replicas_path=".spec.workerReplicas",
    status_replicas_path=".status.workerReady",
    label_selector_path=".status.selector",
)
@op.print_column(
    name="Desired",
    type="integer",
    json_path=".spec.workerReplicas",
    description="Workers asked for",
)
@op.print_column(
    name="Ready",
    type="integer",
    json_path=".status.workerReady",
    description="Workers ready",
)
@op.print_column(
    name="Status",
    type="string",
    json_path='.status.conditions[?(@.type=="Ready")].reason',
    description="Why the cluster is or is not ready",
)
@op.print_column(name="Age", type="date", json_path=".metadata.creationTimestamp")
@op.print_column(
    name="Version", type="string", json_path=".spec.rayVersion", priority=1
)
@op.print_column(name="Image", type="string", json_path=".spec.image", priority=1)
@op.Rule(
    "size(self.metadata.name) <= 58"
    " && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
    message="a RayCluster's name is at most 58 lower-case letters, digits and '-',"
    " starting with a letter: its head Service is <name>-head",
    field_path=".metadata",
)
class RayCluster(op.CustomResource[RayClusterSpec, RayClusterStatus]):
    """RayCluster is the Schema for the rayclusters API."""
