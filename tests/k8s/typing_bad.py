"""Wrong uses of op.k8s types that mypy --strict must refuse (see test_typing.py)."""

from __future__ import annotations

from lightkube.models.core_v1 import PodTemplateSpec

import opgen.api as op
from opgen import runtime as rt
from tests.k8s.workload_types import Workload


def wrong(workload: Workload) -> None:
    lightkube_template: PodTemplateSpec = (
        workload.spec.head.template
    )  # error: not lightkube's
    opgen_template: op.k8s.PodTemplateSpec = rt.convert(
        workload, PodTemplateSpec
    )  # error: convert's target
    workload.spec.head.replicas = "3"  # error: replicas
    port: op.k8s.ContainerPort = op.k8s.ServicePort(port=80)  # error: another type
    print(lightkube_template, opgen_template, port)
