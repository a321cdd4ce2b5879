"""KEDA's ScaledJob, ported (keda/scaledjob_types.py): the same CRD as KEDA publishes.

The reference is `config/crd/bases/keda.sh_scaledjobs.yaml` of the Go module
github.com/kedacore/keda/v2 at KEDA_VERSION, as the Go module proxy serves it
(Go caches it). KEDA generates it with controller-gen v0.21.0 and
`crd:generateEmbeddedObjectMeta=true` (its Makefile) against k8s.io/api
v0.36.4; opgen's op.k8s types come from Kubernetes 1.36.3, and the CRD is
generated with the same option (`CrdOptions(embedded_object_meta=True)`). The test
prints the number of differing schema paths (goal: 0); fields of Kubernetes
types that only one of the two releases has are listed, not counted.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest
import yaml

from opgen.load import load_kinds
from opgen.pipeline import crds
from opgen.schema.options import CrdOptions
from tests.gotools import published_file
from tests.schema_paths import compare_crds

pytestmark = pytest.mark.slow

KEDA_MODULE = "github.com/kedacore/keda/v2"
KEDA_VERSION = "v2.21.0"
CRD = "config/crd/bases/keda.sh_scaledjobs.yaml"
TYPES = Path(__file__).parent / "keda" / "scaledjob_types.py"


def test_the_port_matches_kedas_published_crd() -> None:
    theirs = yaml.load(
        published_file(KEDA_MODULE, KEDA_VERSION, CRD), Loader=yaml.CSafeLoader
    )
    loaded = load_kinds([TYPES])
    (file,), _ = crds(loaded, PurePosixPath("."), CrdOptions(embedded_object_meta=True))
    assert file.path.name == "keda.sh_scaledjobs.yaml"
    ours = yaml.safe_load(file.content)
    diff = compare_crds(ours, theirs, core_subtrees=["spec.jobTargetRef"])
    print(diff.summary(f"KEDA {KEDA_VERSION} ScaledJob"))
    assert not diff.differences, diff.summary("ScaledJob")
