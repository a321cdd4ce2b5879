"""Wrong uses of op.k8s types that mypy --strict must refuse (see test_typing.py)."""

from __future__ import annotations

from lightkube.models.core_v1 import PodTemplateSpec as Template

import opgen.api as op
from opgen import runtime as rt
from tests.k8s.workload_types import Workload


def wrong(workload: Workload) -> None:
    theirs: Template = workload.spec.head.template  # error: not lightkube's
    ours: op.k8s.PodTemplateSpec = rt.convert(workload, Template)  # error: target
    workload.spec.head.replicas = "3"  # error: replicas
    port: op.k8s.ContainerPort = op.k8s.ServicePort(port=80)  # error: another type
    print(theirs, ours, port)
