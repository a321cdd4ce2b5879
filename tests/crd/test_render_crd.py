"""CRDs as data: names, versions, subresources, columns, annotation; and the example."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest
import yaml

from opgen import __version__
from opgen.errors import SchemaError
from opgen.load import load_kinds
from opgen.model.kinds import crd_file_name
from opgen.pipeline import crd_of, crds
from opgen.render.crd import VERSION_ANNOTATION

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "standalone" / "raycluster_types.py"


def test_the_example() -> None:
    loaded = load_kinds([EXAMPLE])
    files, diagnostics = crds(loaded, PurePosixPath("config/crd/bases"))
    assert loaded.diagnostics == () and diagnostics == []
    (file,) = files
    assert file.path == PurePosixPath("config/crd/bases/ray.io_rayclusters.yaml")
    assert file.content.startswith("---\napiVersion: apiextensions.k8s.io/v1\n")
    crd = yaml.safe_load(file.content)
    assert crd["metadata"] == {
        "annotations": {VERSION_ANNOTATION: __version__},
        "name": "rayclusters.ray.io",
    }
    assert crd["spec"]["names"] == {
        "categories": ["ray"],
        "kind": "RayCluster",
        "listKind": "RayClusterList",
        "plural": "rayclusters",
        "shortNames": ["rayc"],
        "singular": "raycluster",
    }
    (version,) = crd["spec"]["versions"]
    assert version["subresources"] == {
        "status": {},
        "scale": {
            "specReplicasPath": ".spec.workerReplicas",
            "statusReplicasPath": ".status.workerReady",
            "labelSelectorPath": ".status.selector",
        },
    }
    assert [c["name"] for c in version["additionalPrinterColumns"]] == [
        "Workers",
        "Ready",
        "Version",
        "Age",
    ]
    assert version["additionalPrinterColumns"][2]["priority"] == 1
    assert "priority" not in version["additionalPrinterColumns"][0]
    spec = version["schema"]["openAPIV3Schema"]["properties"]["spec"]
    assert spec["required"] == ["head", "rayVersion"]
    assert spec["properties"]["workerGroups"]["x-kubernetes-list-map-keys"] == [
        "groupName"
    ]


def test_minimal_version_has_no_optional_keys(tmp_path: Path) -> None:
    file = tmp_path / "bare_types.py"
    file.write_text(
        "import opgen.api as op\n\n"
        "class Spec(op.Model):\n    a: int = 0\n\n"
        '@op.kind(group="bare.example.com", version="v1")\n'
        "class Bare(op.CustomResource[Spec, None]):\n    pass\n",
        encoding="utf-8",
    )
    loaded = load_kinds([file])
    (kind,) = loaded.kinds
    document, origins, warnings = crd_of(loaded, kind)
    (version,) = document["spec"]["versions"]
    assert set(version) == {"name", "schema", "served", "storage"}
    assert set(document["spec"]["names"]) == {"kind", "listKind", "plural", "singular"}
    assert "labels" not in document["metadata"]
    assert crd_file_name(kind.group, kind.names.plural) == "bare.example.com_bares.yaml"
    assert warnings == [] and origins


def test_two_kinds_with_one_crd_name_are_refused(tmp_path: Path) -> None:
    file = tmp_path / "clash_types.py"
    file.write_text(
        "import opgen.api as op\n\n"
        "class Spec(op.Model):\n    a: int = 0\n\n"
        '@op.kind(group="clash.example.com", version="v1", plural="things")\n'
        "class Thing(op.CustomResource[Spec, None]):\n    pass\n\n"
        '@op.kind(group="clash.example.com", version="v1", plural="things")\n'
        "class Other(op.CustomResource[Spec, None]):\n    pass\n",
        encoding="utf-8",
    )
    with pytest.raises(
        SchemaError, match=r"both make the CRD things\.clash\.example\.com"
    ):
        crds(load_kinds([file]), PurePosixPath("."))
