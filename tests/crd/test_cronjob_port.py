"""controller-tools' CronJob test API, ported: opgen's CRDs match controller-gen's.

`cronjob/expected/` holds controller-gen's golden CRDs reduced to the features
opgen claims (see cronjob/README.md), without `jobTemplate`. Two comparisons
per CRD: parsed YAML (the semantics) and bytes (the formatting: key order,
folding, quoting).

`jobTemplate` embeds `batchv1beta1.JobTemplateSpec`, ported as
`op.k8s.JobTemplateSpec`. Its reference is what controller-gen itself writes
for that field, built from the Go module proxy and run on a Go file holding
the field as the test API declares it, against the k8s.io/api release the
test API pins (controller-tools' testdata is a Go module of its own, which the
proxy's zip of controller-tools leaves out, so the golden file cannot be
fetched). The whole port is then compared path by path with the fragment plus
that subtree: `test_the_whole_port_matches_controller_gen` reports the number
of differing schema paths.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

import pytest
import yaml

from opgen import __version__
from opgen.errors import Diagnostic
from opgen.load import load_kinds
from opgen.pipeline import crds
from opgen.render.yaml import dump_documents
from tests.gotools import controller_gen_crds
from tests.schema_paths import compare_crds

HERE = Path(__file__).parent / "cronjob"

PORTS = {
    "testdata.kubebuilder.io_cronjobs.yaml": [
        "cronjob_v1.py",
        "cronjob_v1beta1.py",
        "cronjob_v1beta2.py",
    ],
    "testdata.kubebuilder.io_immutabletypes.yaml": ["immutable_types.py"],
    "testdata.kubebuilder.io_oneofs.yaml": ["oneof_types.py"],
}

DIFFERENCES = {
    # field → why opgen's expected fragment differs from controller-gen's output
    "fieldLevelAliasOverride": "field-level markers override the named type's instead of "
    "producing allOf: [{maxLength: 255, minLength: 1}, {maxLength: 10, minLength: 10}]",
    "fieldLevelLocalDeclarationOverride": "the same, instead of allOf: [{minLength: 4}, {minLength: 10}]",
}


JOB_TEMPLATE_API = "v0.36.1"
"""The k8s.io/api release controller-tools' testdata module requires."""

JOB_TEMPLATE_GO = """// +groupName=testdata.kubebuilder.io
// +versionName=v1
package v1

import (
	batchv1beta1 "k8s.io/api/batch/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CronJobSpec defines the desired state of CronJob
type CronJobSpec struct {
	// Specifies the job that will be created when executing a CronJob.
	JobTemplate batchv1beta1.JobTemplateSpec `json:"jobTemplate"`
}

// CronJob is the Schema for the cronjobs API
type CronJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec CronJobSpec `json:"spec,omitempty"`
}
"""


def _spec(document: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = document["spec"]["versions"][0]["schema"]["openAPIV3Schema"][
        "properties"
    ]["spec"]
    return spec


def _full(name: str) -> tuple[str, list[Diagnostic]]:
    loaded = load_kinds([HERE / file for file in PORTS[name]])
    files, diagnostics = crds(loaded, PurePosixPath("."))
    assert [file.path.name for file in files] == [name]
    return files[0].content, [*loaded.diagnostics, *diagnostics]


def _generate(name: str) -> tuple[str, list[Diagnostic]]:
    """The port's CRD without `jobTemplate`, as the fragment has it."""
    content, diagnostics = _full(name)
    document = yaml.safe_load(content)
    spec = _spec(document)
    if "jobTemplate" in spec["properties"]:
        del spec["properties"]["jobTemplate"]
        spec["required"].remove("jobTemplate")
        content = dump_documents([document])
    return content, diagnostics


def _expected(name: str) -> str:
    text = (HERE / "expected" / name).read_text(encoding="utf-8")
    return text.replace("opgen.dev/version: 0.1.0", f"opgen.dev/version: {__version__}")


@pytest.mark.parametrize("name", sorted(PORTS))
def test_port_matches_controller_gen(name: str) -> None:
    content, _ = _generate(name)
    assert yaml.safe_load(content) == yaml.safe_load(_expected(name))


@pytest.mark.parametrize("name", sorted(PORTS))
def test_port_is_byte_identical(name: str) -> None:
    content, _ = _generate(name)
    assert content == _expected(name)


def test_documented_differences_are_the_only_ones() -> None:
    spec = yaml.safe_load(_expected("testdata.kubebuilder.io_cronjobs.yaml"))["spec"]
    properties = spec["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"][
        "properties"
    ]
    for field in DIFFERENCES:
        assert "allOf" not in properties[field]
        assert properties[field]["minLength"] == properties[field]["maxLength"] == 10


@pytest.mark.slow
def test_the_whole_port_matches_controller_gen() -> None:
    content, _ = _full("testdata.kubebuilder.io_cronjobs.yaml")
    ours = yaml.safe_load(content)
    reference = yaml.safe_load(_expected("testdata.kubebuilder.io_cronjobs.yaml"))
    (job_template_crd,) = controller_gen_crds(
        JOB_TEMPLATE_GO, api_version=JOB_TEMPLATE_API
    )
    spec = _spec(reference)
    spec["properties"]["jobTemplate"] = _spec(job_template_crd)["properties"][
        "jobTemplate"
    ]
    spec["required"] = sorted([*spec["required"], "jobTemplate"])
    diff = compare_crds(ours, reference, core_subtrees=["spec.jobTemplate"])
    print(diff.summary("controller-tools' CronJob test API"))
    assert not diff.differences, diff.summary("CronJob")
    assert _spec(ours)["properties"]["jobTemplate"]["properties"]["spec"]["properties"][
        "template"
    ]["properties"]["spec"]["properties"]["containers"]["items"]


def test_port_warns_where_controller_gen_is_silent() -> None:
    _, diagnostics = _generate("testdata.kubebuilder.io_cronjobs.yaml")
    messages = [str(d) for d in diagnostics]
    # op.Required() next to a default: the default can never apply.
    assert sum("required and has a default" in m for m in messages) == 13
    assert any("defaulted_string" in m for m in messages)
    # v1beta1 and v1beta2 have /status but no status field.
    assert sum("without a status field" in m for m in messages) == 2
    # The embedded JobTemplateSpec makes the CRD too big for client-side apply.
    assert sum("over 256 KiB" in m for m in messages) == 1
    assert len(messages) == 16
