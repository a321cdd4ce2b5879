"""What a kubelet would report: workloads marked ready, for envtest.

envtest runs no kube-controller-manager's workload controllers and no
kubelet, so a Deployment or StatefulSet a reconciler creates never gets
pods, and its status stays empty. A reconciler that waits for its children
to be ready is tested by reporting them ready the way those controllers
would once every pod ran: `await mark_ready(client, deployment)`.
"""

from __future__ import annotations

from typing import Any, TypeVar

import opgen.api as op
from opgen import runtime as rt

__all__ = ["mark_ready"]

W = TypeVar("W", op.k8s.Deployment, op.k8s.StatefulSet)


async def mark_ready(client: rt.Client, workload: W) -> W:
    """Report every pod of `workload` (a Deployment or a StatefulSet) created,
    updated, ready and available at its current generation, through the
    `/status` subresource; returns `workload`, refreshed."""
    spec = workload.spec
    replicas = spec.replicas if spec is not None and spec.replicas is not None else 1
    status: dict[str, Any] = {
        "observedGeneration": workload.metadata.generation,
        "replicas": replicas,
        "updatedReplicas": replicas,
        "readyReplicas": replicas,
        "availableReplicas": replicas,
    }
    if isinstance(workload, op.k8s.StatefulSet):
        status["currentReplicas"] = replicas
    return await client.patch(workload, {"status": status}, subresource="status")
