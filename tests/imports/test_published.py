"""Import CRDs a widely used operator publishes, and get them back.

KEDA's ScaledJob (667 KB: it inlines a batch/v1 JobSpec, with
`crd:generateEmbeddedObjectMeta=true`) and ScaledObject, from the Go module
github.com/kedacore/keda/v2 as the Go module proxy serves it (the same files
tests/crd/test_keda_port.py compares its port with; nothing is copied into
the repository). Imported, then generated from the imported types, each is
the published CRD again, path by path. The JobSpec is typed as
`op.k8s.JobSpec`; KEDA's own condition type, shaped much like Kubernetes'
PersistentVolumeClaimCondition, stays KEDA's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.crd.test_keda_port import KEDA_MODULE, KEDA_VERSION
from tests.gotools import published_file
from tests.imports.projects import ImportedProject

pytestmark = pytest.mark.slow

FILES = ("scaledjobs", "scaledobjects")


def test_kedas_crds_come_back_unchanged(tmp_path: Path) -> None:
    published = [
        yaml.load(
            published_file(
                KEDA_MODULE, KEDA_VERSION, f"config/crd/bases/keda.sh_{name}.yaml"
            ),
            Loader=yaml.CSafeLoader,
        )
        for name in FILES
    ]
    project = ImportedProject.create(tmp_path / "project", published)
    assert "imported ScaledJob (keda.sh v1alpha1)" in project.output
    assert "(op.k8s.JobSpec)" in project.output
    assert "PersistentVolumeClaimCondition" not in project.output
    assert "older:" not in project.output
    loaded = project.loaded()
    for crd in published:
        diff = project.round_trip(crd, loaded=loaded)
        print(diff.summary(f"KEDA {KEDA_VERSION} {crd['metadata']['name']}"))
        assert not diff.differences, diff.summary(crd["metadata"]["name"])
        assert not diff.version_only
