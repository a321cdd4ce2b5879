"""opgen.testing.assert_round_trips: a conversion that loses a field fails, either way.

Gizmo v1alpha1's `size` is v1's `replicas`; v1's `color` has no place in
v1alpha1 and rides in the runtime's annotation. The converters below lose one
field each, the way a hand-written converter does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

import opgen.api as op
from opgen.testing import assert_round_trips
from tests.webhook import kinds_v1, kinds_v1alpha1
from tests.webhook.handlers import GizmoConversion, generated_crds

EXAMPLES = 60


@pytest.fixture(scope="module")
def crd_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Gizmo CRD as `opgen generate` writes it, in a directory of its own."""
    directory = tmp_path_factory.mktemp("crds")
    for number, crd in enumerate(generated_crds()):
        (directory / f"crd{number}.yaml").write_text(yaml.safe_dump(crd))
    return directory


@op.conversion(hub=kinds_v1.Gizmo, spoke=kinds_v1alpha1.Gizmo)
class LosesLabelToHub(GizmoConversion):
    def convert_to_hub(self, spoke: kinds_v1alpha1.Gizmo) -> kinds_v1.Gizmo:
        hub = super().convert_to_hub(spoke)
        hub.spec.label = None
        return hub


@op.conversion(hub=kinds_v1.Gizmo, spoke=kinds_v1alpha1.Gizmo)
class LosesReplicasFromHub(GizmoConversion):
    def convert_from_hub(self, hub: kinds_v1.Gizmo) -> kinds_v1alpha1.Gizmo:
        return kinds_v1alpha1.Gizmo(
            metadata=hub.metadata,
            spec=kinds_v1alpha1.GizmoSpec(label=hub.spec.label),
        )


@op.conversion(hub=kinds_v1.Gizmo, spoke=kinds_v1alpha1.Gizmo)
class RenamesByPythonName(GizmoConversion):
    """Maps fields on `model_dump()`'s wire (camelCase) keys and reads one under a
    key the dump does not have (a Python name, `label_text` for `labelText`):
    the hub model ignores the key left behind, and the value is lost."""

    def convert_to_hub(self, spoke: kinds_v1alpha1.Gizmo) -> kinds_v1.Gizmo:
        data: dict[str, Any] = spoke.model_dump()
        data["spec"]["replicas"] = data["spec"].pop("size")
        data["spec"]["label"] = data["spec"].pop("label_text", None)
        return kinds_v1.Gizmo.model_validate(data)


def test_a_faithful_conversion_round_trips(crd_dir: Path) -> None:
    assert_round_trips(GizmoConversion(), crds=[crd_dir], examples=EXAMPLES)


def test_a_field_lost_on_the_way_to_the_hub_fails(crd_dir: Path) -> None:
    with pytest.raises(AssertionError) as failed:
        assert_round_trips(LosesLabelToHub(), crds=[crd_dir], examples=EXAMPLES)
    assert "v1alpha1 → v1 → v1alpha1" in str(failed.value)
    assert "spec.label: lost" in str(failed.value)


def test_a_field_lost_on_the_way_from_the_hub_fails(crd_dir: Path) -> None:
    with pytest.raises(AssertionError) as failed:
        assert_round_trips(LosesReplicasFromHub(), crds=[crd_dir], examples=EXAMPLES)
    assert "spec.size: was" in str(failed.value)


def test_a_renamed_field_mapped_by_its_python_name_fails(crd_dir: Path) -> None:
    with pytest.raises(AssertionError) as failed:
        assert_round_trips(RenamesByPythonName(), crds=[crd_dir], examples=EXAMPLES)
    assert "spec.label: lost" in str(failed.value)


def test_a_missing_crd_is_named(tmp_path: Path) -> None:
    (tmp_path / "other.yaml").write_text(
        yaml.safe_dump(
            {
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "CustomResourceDefinition",
                "metadata": {"name": "others.example.com"},
                "spec": {"group": "example.com", "names": {"kind": "Other"}},
            }
        )
    )
    with pytest.raises(LookupError, match="no CustomResourceDefinition for Gizmo"):
        assert_round_trips(GizmoConversion(), crds=[tmp_path])


def test_a_class_without_a_conversion_is_refused(crd_dir: Path) -> None:
    with pytest.raises(TypeError, match=r"no @op\.conversion declaration"):
        assert_round_trips(object(), crds=[crd_dir])
