# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""The RayCluster API (ray.io/v1alpha1).

The first, flat shape of the API: one head, `workerReplicas` workers, one
image. ray.io/v1 keeps these fields under the same names and adds head and
worker groups with pod templates; the conversion webhook
(ray_operator/webhook/v1/raycluster_webhook.py) turns one into the other, and
the API server stores every RayCluster as v1.

Edit the Spec and Status models to change the API, then run `opgen generate`
to regenerate the CRD. Fields are snake_case in Python and camelCase in YAML.
"""

from typing import Annotated

import opgen.api as op

from ray_operator.api.v1alpha1.groupversion_info import GROUP, VERSION


class RayClusterSpec(op.Model):
    """The desired state of a RayCluster."""

    head_replicas: Annotated[int, op.Minimum(1), op.Format("int32")] = 1
    """Number of head pods."""
    worker_replicas: Annotated[int, op.Minimum(0), op.Format("int32")] | None = None
    """Number of workers: what `kubectl scale` sets."""
    image: Annotated[str, op.MinLength(1)] | None = None
    """The image of the head and every worker, e.g. rayproject/ray:2.9.0."""


class RayClusterStatus(op.Model):
    """The observed state of a RayCluster."""

    ready: bool = False
    """Whether the head and every worker are ready."""
    worker_ready: Annotated[int, op.Format("int32")] = 0
    """Ready workers: the scale subresource's replicas."""


@op.kind(group=GROUP, version=VERSION, short_names=["rayc"], categories=["ray"])
@op.deprecated_version(
    warning="ray.io/v1alpha1 RayCluster is deprecated; use ray.io/v1"
)
@op.subresource_status()
@op.subresource_scale(
    spec_replicas_path=".spec.workerReplicas",
    status_replicas_path=".status.workerReady",
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
@op.print_column(name="Age", type="date", json_path=".metadata.creationTimestamp")
class RayCluster(op.CustomResource[RayClusterSpec, RayClusterStatus]):
    """RayCluster is the Schema for the rayclusters API."""
