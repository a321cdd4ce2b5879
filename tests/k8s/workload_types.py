"""A kind that embeds Kubernetes' own types, as operators do (used by the envtest proofs)."""

from __future__ import annotations

from typing import Annotated

import opgen.api as op


class HeadGroup(op.Model):
    """The head pods: how many, and their template."""

    replicas: Annotated[int, op.Minimum(0), op.Format("int32")] = 1
    """How many head pods."""
    template: op.k8s.PodTemplateSpec
    """The pod template of the head pods."""


class WorkloadSpec(op.Model):
    head: HeadGroup
    """The head group."""
    service: op.k8s.Service | None = None
    """A Service to create in front of the head pods."""
    resources: op.k8s.ResourceRequirements | None = None
    """Default resources of every container."""
    tolerations: list[op.k8s.Toleration] = []
    """Tolerations added to every pod."""
    storage: op.k8s.PersistentVolumeClaim | None = None
    """The template of the claim each head pod mounts."""


class WorkloadStatus(op.Model):
    ready_replicas: int = 0
    conditions: op.Conditions = []


@op.kind(group="k8s.opgen.dev", version="v1", short_names=["wl"])
@op.subresource_status()
class Workload(op.CustomResource[WorkloadSpec, WorkloadStatus]):
    """A group of pods described with Kubernetes' own types."""
