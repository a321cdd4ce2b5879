"""op.k8s types in a CRD, compared with what controller-gen writes for the Go types.

One kind with a field of every type issue 9 lists, written twice from one
table: as Go (compiled by controller-gen, built from the Go module proxy,
against k8s.io/api at the pinned release) and as an opgen types file. Both
CRDs are compared schema path by schema path, for controller-gen's default
options, `crd:generateEmbeddedObjectMeta=true` (`embedded_object_meta`) and
`crd:maxDescLen=40` (`max_description_length`). The only difference allowed
is the documented one: op.Duration's pattern.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opgen.load import load_kinds
from opgen.pipeline import crd_of
from opgen.schema.options import CrdOptions
from tests.gotools import controller_gen_crds
from tests.schema_paths import compare_crds

pytestmark = pytest.mark.slow

# (field, Go type, op.k8s type)
FIELDS = [
    ("podTemplateSpec", "corev1.PodTemplateSpec", "PodTemplateSpec"),
    ("podSpec", "corev1.PodSpec", "PodSpec"),
    ("service", "corev1.Service", "Service"),
    ("serviceSpec", "corev1.ServiceSpec", "ServiceSpec"),
    ("serviceStatus", "corev1.ServiceStatus", "ServiceStatus"),
    ("persistentVolumeClaim", "corev1.PersistentVolumeClaim", "PersistentVolumeClaim"),
    (
        "persistentVolumeClaimSpec",
        "corev1.PersistentVolumeClaimSpec",
        "PersistentVolumeClaimSpec",
    ),
    ("resourceRequirements", "corev1.ResourceRequirements", "ResourceRequirements"),
    ("tolerations", "[]corev1.Toleration", "list[op.k8s.Toleration]"),
    ("affinity", "corev1.Affinity", "Affinity"),
    ("env", "[]corev1.EnvVar", "list[op.k8s.EnvVar]"),
    ("envFrom", "[]corev1.EnvFromSource", "list[op.k8s.EnvFromSource]"),
    ("volumeMounts", "[]corev1.VolumeMount", "list[op.k8s.VolumeMount]"),
    ("volumes", "[]corev1.Volume", "list[op.k8s.Volume]"),
    ("securityContext", "corev1.SecurityContext", "SecurityContext"),
    ("podSecurityContext", "corev1.PodSecurityContext", "PodSecurityContext"),
    ("probe", "corev1.Probe", "Probe"),
    ("containerPort", "corev1.ContainerPort", "ContainerPort"),
    ("servicePort", "corev1.ServicePort", "ServicePort"),
    ("localObjectReference", "corev1.LocalObjectReference", "LocalObjectReference"),
    ("objectReference", "corev1.ObjectReference", "ObjectReference"),
    ("secretKeySelector", "corev1.SecretKeySelector", "SecretKeySelector"),
    ("configMapKeySelector", "corev1.ConfigMapKeySelector", "ConfigMapKeySelector"),
    (
        "typedLocalObjectReference",
        "corev1.TypedLocalObjectReference",
        "TypedLocalObjectReference",
    ),
    ("labelSelector", "metav1.LabelSelector", "LabelSelector"),
    ("conditions", "[]metav1.Condition", "list[op.k8s.Condition]"),
    ("ownerReference", "metav1.OwnerReference", "OwnerReference"),
    ("time", "metav1.Time", "Time"),
    ("duration", "metav1.Duration", "Duration"),
    ("quantity", "resource.Quantity", "Quantity"),
    ("intOrString", "intstr.IntOrString", "IntOrString"),
    ("deploymentSpec", "appsv1.DeploymentSpec", "DeploymentSpec"),
    ("deploymentStrategy", "appsv1.DeploymentStrategy", "DeploymentStrategy"),
    ("statefulSetSpec", "appsv1.StatefulSetSpec", "StatefulSetSpec"),
    (
        "statefulSetUpdateStrategy",
        "appsv1.StatefulSetUpdateStrategy",
        "StatefulSetUpdateStrategy",
    ),
    ("jobSpec", "batchv1.JobSpec", "JobSpec"),
    ("jobTemplateSpec", "batchv1.JobTemplateSpec", "JobTemplateSpec"),
    (
        "podDisruptionBudgetSpec",
        "policyv1.PodDisruptionBudgetSpec",
        "PodDisruptionBudgetSpec",
    ),
    (
        "horizontalPodAutoscalerSpec",
        "autoscalingv2.HorizontalPodAutoscalerSpec",
        "HorizontalPodAutoscalerSpec",
    ),
    ("ingressSpec", "networkingv1.IngressSpec", "IngressSpec"),
    ("networkPolicySpec", "networkingv1.NetworkPolicySpec", "NetworkPolicySpec"),
    ("protocol", "corev1.Protocol", "Protocol"),
]

KNOWN_DIFFERENCES = {
    "spec.duration pattern": "op.Duration carries a pattern of Go durations "
    "(docs/markers.md, 'Compared with controller-gen')",
}

GO = """// +groupName=probe.opgen.dev
// +versionName=v1
package v1

import (
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// ProbeSpec has a field of every Kubernetes type opgen.api.k8s promises.
type ProbeSpec struct {
%s
}

// Probe embeds Kubernetes' own types.
type Probe struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ProbeSpec `json:"spec"`
}
"""

PYTHON = '''import opgen.api as op


class ProbeSpec(op.Model):
    """ProbeSpec has a field of every Kubernetes type opgen.api.k8s promises."""

%s


@op.kind(group="probe.opgen.dev", version="v1")
class Probe(op.CustomResource[ProbeSpec, None]):
    """Probe embeds Kubernetes' own types."""
'''


def _go_source() -> str:
    lines = [
        (
            f'\t// +optional\n\t{name[0].upper() + name[1:]} *{go} `json:"{name},omitempty"`'
            if not go.startswith("[]")
            else f'\t// +optional\n\t{name[0].upper() + name[1:]} {go} `json:"{name},omitempty"`'
        )
        for name, go, _ in FIELDS
    ]
    return GO % "\n".join(lines)


def _python_source() -> str:
    from opgen.openapi import snake_case

    lines = []
    for name, _, python in FIELDS:
        annotation = python if python.startswith("list[") else f"op.k8s.{python}"
        lines.append(f"    {snake_case(name)}: {annotation} | None = None")
    return PYTHON % "\n".join(lines)


@pytest.fixture(scope="module")
def probe_kind(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = tmp_path_factory.mktemp("probe") / "probe_types.py"
    path.write_text(_python_source())
    return load_kinds([Path(path)])


CASES = {
    "defaults": ((), CrdOptions()),
    "embedded-object-meta": (
        ("generateEmbeddedObjectMeta=true",),
        CrdOptions(embedded_object_meta=True),
    ),
    "max-description-length": (
        ("maxDescLen=40",),
        CrdOptions(max_description_length=40),
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_opgen_writes_what_controller_gen_writes(probe_kind: Any, case: str) -> None:
    go_options, options = CASES[case]
    (theirs,) = controller_gen_crds(_go_source(), options=go_options)
    (kind,) = probe_kind.kinds
    ours, _, _ = crd_of(probe_kind, kind, options)
    diff = compare_crds(ours, theirs)
    print(diff.summary(f"all op.k8s types, {case}"))
    unexplained = [
        line for line in diff.differences if line.split(":")[0] not in KNOWN_DIFFERENCES
    ]
    assert not unexplained, diff.summary(case)
    assert not diff.version_only
    assert len(
        ours["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"][
            "properties"
        ]
    ) == len(FIELDS)
