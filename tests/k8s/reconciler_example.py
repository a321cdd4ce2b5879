"""A reconciler's use of op.k8s types (docs/core-types.md), checked by mypy --strict.

The Workload's head template goes into the Deployment the reconciler creates
with one call, `rt.convert`, and comes back out of a Deployment the same way;
the typed client reads and writes Workloads with their op.k8s fields typed.
"""

from __future__ import annotations

from lightkube.models.apps_v1 import DeploymentSpec
from lightkube.models.core_v1 import PodTemplateSpec
from lightkube.models.meta_v1 import LabelSelector, ObjectMeta
from lightkube.resources.apps_v1 import Deployment

import opgen.api as op
from opgen import runtime as rt
from tests.k8s.workload_types import Workload


class WorkloadClient(
    rt.typed.NamespacedClient[Workload], rt.typed.NamespacedStatus[Workload]
):
    model = Workload


def head_deployment(workload: Workload) -> Deployment:
    """The Deployment of the workload's head pods."""
    head = workload.spec.head
    labels = dict(head.template.metadata.labels or {}) if head.template.metadata else {}
    return Deployment(
        metadata=ObjectMeta(
            name=f"{workload.metadata.name}-head",
            namespace=workload.metadata.namespace,
        ),
        spec=DeploymentSpec(
            replicas=head.replicas,
            selector=LabelSelector(matchLabels=labels),
            template=rt.convert(head.template, PodTemplateSpec),
        ),
    )


def head_template(deployment: Deployment) -> op.k8s.PodTemplateSpec:
    """The pod template of a Deployment, as the type a Workload holds."""
    if deployment.spec is None:
        raise ValueError("the Deployment has no spec")
    return rt.convert(deployment.spec.template, op.k8s.PodTemplateSpec)


def first_image(workload: Workload) -> str | None:
    containers = workload.spec.head.template.spec
    if containers is None or not containers.containers:
        return None
    return containers.containers[0].image
