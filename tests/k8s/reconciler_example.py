"""A reconciler's use of op.k8s types (docs/core-types.md), checked by mypy --strict.

The Workload's head template goes into the `op.k8s.Deployment` the reconciler
creates as it is (one family of types), and comes back out of a Deployment
the same way; the typed client reads and writes Workloads with their op.k8s
fields typed.
"""

from __future__ import annotations

import opgen.api as op
from opgen import runtime as rt
from tests.k8s.workload_types import Workload


class WorkloadClient(
    rt.typed.NamespacedClient[Workload], rt.typed.NamespacedStatus[Workload]
):
    model = Workload


def head_deployment(workload: Workload) -> op.k8s.Deployment:
    """The Deployment of the workload's head pods."""
    head = workload.spec.head
    labels = dict(head.template.metadata.labels or {}) if head.template.metadata else {}
    return op.k8s.Deployment(
        metadata=op.ObjectMeta(
            name=f"{workload.metadata.name}-head",
            namespace=workload.metadata.namespace,
        ),
        spec=op.k8s.DeploymentSpec(
            replicas=head.replicas,
            selector=op.k8s.LabelSelector(match_labels=labels),
            template=head.template,
        ),
    )


def head_template(deployment: op.k8s.Deployment) -> op.k8s.PodTemplateSpec:
    """The pod template of a Deployment, as the type a Workload holds."""
    if deployment.spec is None:
        raise ValueError("the Deployment has no spec")
    return deployment.spec.template


async def ready_pods(client: rt.Client, workload: Workload) -> int:
    """The head Deployment's ready pods, read through the client's cache."""
    name = head_deployment(workload).metadata.name
    assert name is not None
    live = await client.get(
        op.k8s.Deployment, name, namespace=workload.metadata.namespace
    )
    return (live.status.ready_replicas if live.status else None) or 0


def first_image(workload: Workload) -> str | None:
    containers = workload.spec.head.template.spec
    if containers is None or not containers.containers:
        return None
    return containers.containers[0].image
