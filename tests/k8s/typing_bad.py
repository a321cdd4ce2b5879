"""Wrong uses of op.k8s types that mypy --strict must refuse (see test_typing.py)."""

from __future__ import annotations

import opgen.api as op
from tests.k8s.workload_types import Workload


def wrong(workload: Workload, deployment: op.k8s.Deployment) -> None:
    theirs: op.k8s.PodSpec = workload.spec.head.template  # error: not a PodSpec
    replicas: int = deployment.spec.replicas  # error: spec may be None
    workload.spec.head.replicas = "3"  # error: replicas
    port: op.k8s.ContainerPort = op.k8s.ServicePort(port=80)  # error: another type
    print(theirs, replicas, port)
