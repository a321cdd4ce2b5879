# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""The objects a RayCluster owns, built from its spec: pure functions, no API calls.

- the head: Deployment `<cluster>-head` of `headReplicas` pods from the head
  template, and Service `<cluster>-head` in front of it, serving the Ray
  container's ports;
- each worker group: Deployment `<cluster>-worker-<group>` from its template,
  with the group's share of `workerReplicas` (ray_operator.api.v1.spread).

Every child is controlled by the RayCluster (an owner reference, so the
garbage collector deletes it with the cluster) and labelled `ray.io/cluster`,
`ray.io/node-type` (head or worker) and `ray.io/group`; the worker pods are
what `status.selector` selects. In each template the first container runs
Ray: it gets the cluster's image, a `ray start` command and (on the head)
Ray's ports when the template leaves them out. The labels Deployments select
on are the operator's own, so a template's labels can change without
replacing the Deployment (a Deployment's selector cannot change).
"""

from __future__ import annotations

from collections.abc import Mapping

import opgen.api as op
from opgen import runtime as rt

from ray_operator.api.v1.raycluster_types import RayCluster

CLUSTER_LABEL = "ray.io/cluster"
NODE_TYPE_LABEL = "ray.io/node-type"
GROUP_LABEL = "ray.io/group"
MANAGED_BY = {"app.kubernetes.io/managed-by": "ray-operator"}
HEAD_GROUP = "head"
"""The `ray.io/group` of the head's objects."""

GCS_PORT = 6379
RAY_PORTS = (("gcs-server", GCS_PORT), ("dashboard", 8265), ("client", 10001))
"""The ports a head container gets when it declares none, and the Service serves."""


def head_name(cluster: RayCluster) -> str:
    """The name of the head Deployment and of the head Service."""
    return f"{cluster.metadata.name}-head"


def worker_name(cluster: RayCluster, group: str) -> str:
    """The name of a worker group's Deployment."""
    return f"{cluster.metadata.name}-worker-{group}"


def worker_selector(cluster: RayCluster) -> str:
    """`status.selector`: the worker pods of `cluster` (what the scale counts)."""
    return f"{CLUSTER_LABEL}={cluster.metadata.name},{NODE_TYPE_LABEL}=worker"


def selector_labels(cluster: RayCluster, node_type: str, group: str) -> dict[str, str]:
    """The labels a child's Deployment selects its pods by (fixed for its lifetime)."""
    return {
        CLUSTER_LABEL: str(cluster.metadata.name),
        NODE_TYPE_LABEL: node_type,
        GROUP_LABEL: group,
    }


def head_pod(cluster: RayCluster) -> op.k8s.PodTemplateSpec:
    """The head's pod template, its Ray container completed."""
    head = cluster.spec.head_group
    return ray_pod(
        head.template if head else None,
        container="ray-head",
        image=cluster.spec.image,
        command=[
            "ray",
            "start",
            "--head",
            "--block",
            f"--port={GCS_PORT}",
            "--dashboard-host=0.0.0.0",
            *flags(head.ray_start_params if head else {}),
        ],
        ports=RAY_PORTS,
    )


def worker_pod(cluster: RayCluster, group: str) -> op.k8s.PodTemplateSpec:
    """Group `group`'s pod template (`workers`: the implicit group), its Ray container completed."""
    spec = next((g for g in cluster.spec.worker_groups if g.group_name == group), None)
    return ray_pod(
        spec.template if spec else None,
        container="ray-worker",
        image=cluster.spec.image,
        command=[
            "ray",
            "start",
            "--block",
            f"--address={head_name(cluster)}:{GCS_PORT}",
            *flags(spec.ray_start_params if spec else {}),
        ],
        ports=(),
    )


def head_deployment(cluster: RayCluster, replicas: int) -> op.k8s.Deployment:
    """The head's Deployment with `replicas` pods (0 while suspended)."""
    pod = head_pod(cluster)
    return _deployment(cluster, head_name(cluster), "head", HEAD_GROUP, pod, replicas)


def worker_deployment(
    cluster: RayCluster, group: str, replicas: int
) -> op.k8s.Deployment:
    """Group `group`'s Deployment with `replicas` workers."""
    pod = worker_pod(cluster, group)
    return _deployment(
        cluster, worker_name(cluster, group), "worker", group, pod, replicas
    )


def head_service(cluster: RayCluster) -> op.k8s.Service:
    """The head's Service: every port of its Ray container, by name."""
    pod = head_pod(cluster)
    assert pod.spec is not None  # ray_pod always gives the pod a spec
    ports = [
        op.k8s.ServicePort(
            name=port.name,
            port=port.container_port,
            target_port=port.name or port.container_port,
            protocol=port.protocol,
        )
        for port in pod.spec.containers[0].ports or ()
    ]
    head = cluster.spec.head_group
    labels = selector_labels(cluster, "head", HEAD_GROUP)
    service = op.k8s.Service(
        metadata=op.ObjectMeta(
            name=head_name(cluster),
            namespace=cluster.metadata.namespace,
            labels={**MANAGED_BY, **labels},
        ),
        spec=op.k8s.ServiceSpec(
            type=head.service_type if head else "ClusterIP",
            selector=labels,
            ports=ports,
        ),
    )
    rt.owner.set_controller_reference(cluster, service)
    return service


def ray_pod(
    template: op.k8s.PodTemplateSpec | None,
    *,
    container: str,
    image: str | None,
    command: list[str],
    ports: tuple[tuple[str, int], ...],
) -> op.k8s.PodTemplateSpec:
    """A copy of `template` whose first container is ready to run Ray.

    Without a template (or a container) the pod is one container named
    `container`. The Ray container keeps what the template sets and gets
    `image`, `command` and `ports` only where it has none."""
    pod = template.model_copy(deep=True) if template else op.k8s.PodTemplateSpec()
    if pod.spec is None or not pod.spec.containers:
        pod.spec = op.k8s.PodSpec(containers=[op.k8s.Container(name=container)])
    ray = pod.spec.containers[0]
    if not ray.image:
        ray.image = image
    if not ray.command and not ray.args and command:
        ray.command = command
    if not ray.ports and ports:
        ray.ports = [
            op.k8s.ContainerPort(name=name, container_port=number)
            for name, number in ports
        ]
    return pod


def flags(params: Mapping[str, str]) -> list[str]:
    """`ray start` flags from `rayStartParams`, sorted by name."""
    return [f"--{name}={value}" for name, value in sorted(params.items())]


def _deployment(
    cluster: RayCluster,
    name: str,
    node_type: str,
    group: str,
    pod: op.k8s.PodTemplateSpec,
    replicas: int,
) -> op.k8s.Deployment:
    labels = selector_labels(cluster, node_type, group)
    metadata = pod.metadata or op.ObjectMeta()
    metadata.labels = {**(metadata.labels or {}), **labels}
    pod.metadata = metadata
    deployment = op.k8s.Deployment(
        metadata=op.ObjectMeta(
            name=name,
            namespace=cluster.metadata.namespace,
            labels={**MANAGED_BY, **labels},
        ),
        spec=op.k8s.DeploymentSpec(
            replicas=replicas,
            selector=op.k8s.LabelSelector(match_labels=labels),
            template=pod,
        ),
    )
    rt.owner.set_controller_reference(cluster, deployment)
    return deployment
