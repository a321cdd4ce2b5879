"""`opgen edit`: the CRD settings in PROJECT, and `opgen generate` using them."""

from __future__ import annotations

from pathlib import Path

import yaml

from opgen.project import load_project, replay_commands
from tests.scaffold.conftest import api_args, opgen, snapshot

TYPES = '''"""RayCluster with a pod template."""

import opgen.api as op

from ray_operator.api.v1.groupversion_info import GROUP, VERSION


class RayClusterSpec(op.Model):
    """What a cluster wants."""

    template: op.k8s.PodTemplateSpec
    """The pods."""


@op.kind(group=GROUP, version=VERSION)
class RayCluster(op.CustomResource[RayClusterSpec, None]):
    """A Ray cluster."""
'''

CRD = Path("config/crd/bases/ray.example.com_rayclusters.yaml")


def _template(root: Path) -> dict[str, object]:
    document = yaml.safe_load((root / CRD).read_text())
    schema = document["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    template: dict[str, object] = schema["properties"]["spec"]["properties"]["template"]
    return template


def test_edit_records_the_settings_and_generate_uses_them(project: Path) -> None:
    create = api_args("ray", "v1", "RayCluster", "--no-controller")
    assert opgen(project, *create).exit_code == 0
    (project / "ray_operator/api/v1/raycluster_types.py").write_text(TYPES)
    assert opgen(project, "generate").exit_code == 0
    plain = _template(project)
    assert plain["properties"]["metadata"] == {  # type: ignore[index]
        "description": "Standard object's metadata. More info: "
        "https://git.k8s.io/community/contributors/devel/sig-architecture/"
        "api-conventions.md#metadata",
        "type": "object",
    }
    assert "crd:" not in (project / "PROJECT").read_text()

    run = opgen(
        project, "edit", "--embedded-object-meta", "--max-description-length", "0"
    )
    assert run.exit_code == 0, run.stderr
    assert "update" in run.stdout and "opgen generate" in run.stdout
    settings = load_project(project).crd
    assert settings.embedded_object_meta and settings.max_description_length == 0
    assert "maxDescriptionLength: 0" in (project / "PROJECT").read_text()
    assert opgen(project, "generate", "--check").exit_code == 1

    assert opgen(project, "generate").exit_code == 0
    edited = _template(project)
    assert "description" not in str(edited)
    assert "labels" in edited["properties"]["metadata"]["properties"]  # type: ignore[index]

    # Replaying PROJECT's commands gives the same PROJECT, settings included.
    assert ("edit", "--max-description-length", "0", "--embedded-object-meta") in (
        replay_commands(load_project(project))
    )

    # Options not given keep their value; --full-descriptions undoes the length.
    assert opgen(project, "edit", "--full-descriptions").exit_code == 0
    settings = load_project(project).crd
    assert settings.embedded_object_meta and settings.max_description_length is None
    assert opgen(project, "edit", "--no-embedded-object-meta").exit_code == 0
    assert "crd:" not in (project / "PROJECT").read_text()
    again = opgen(project, "edit", "--no-embedded-object-meta")
    assert again.exit_code == 0 and "already has these settings" in again.stdout


def test_edit_refuses_outside_a_project_and_contradictions(
    project: Path, tmp_path: Path
) -> None:
    outside = opgen(tmp_path, "edit", "--embedded-object-meta")
    assert outside.exit_code == 1 and "opgen edit" in outside.stderr
    before = snapshot(project)
    both = opgen(
        project, "edit", "--max-description-length", "10", "--full-descriptions"
    )
    assert both.exit_code == 1 and "not both" in both.stderr
    negative = opgen(project, "edit", "--max-description-length", "-3")
    assert negative.exit_code == 2
    assert snapshot(project) == before
