"""A generated file edited by hand is refused, not overwritten silently (issue 23).

PROJECT records each generated file's SHA-256 as opgen wrote it; `opgen
generate` refuses (exit 1, nothing written) to rewrite one whose content no
longer matches, naming it, unless given `--force`.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from opgen.project import load_project
from opgen.write import content_hash
from tests.scaffold.conftest import CREATE_RAY, opgen, tree_hash

ROLE = "config/rbac/role.yaml"
CRD = "config/crd/bases/ray.example.com_rayclusters.yaml"
CLIENT = "ray_operator/api/v1/zz_generated_client.py"
TYPES = "ray_operator/api/v1/raycluster_types.py"
CONTROLLER = "ray_operator/controller/raycluster_controller.py"


def generated(project: Path) -> Path:
    assert opgen(project, *CREATE_RAY).exit_code == 0
    run = opgen(project, "generate")
    assert run.exit_code == 0, run.stderr
    return project


def test_project_records_every_generated_file_as_written(project: Path) -> None:
    root = generated(project)
    recorded = load_project(root).generated
    assert list(recorded) == sorted(recorded)
    for path in (ROLE, CRD, CLIENT):
        assert recorded[path] == content_hash((root / path).read_text())
    assert "PROJECT" not in recorded
    text = (root / "PROJECT").read_text()
    assert opgen(root, "generate").stdout == "up to date\n"
    assert (root / "PROJECT").read_text() == text


def test_a_hand_edit_is_refused_naming_the_file(project: Path) -> None:
    root = generated(project)
    role = root / ROLE
    role.write_text(role.read_text() + "# granted by hand\n")
    before = tree_hash(root)
    run = opgen(root, "generate")
    assert run.exit_code == 1
    assert f"{ROLE}: edited by hand since opgen wrote it" in run.stderr
    assert "-# granted by hand" in run.stderr
    assert (
        f"error: {ROLE}: edited by hand; opgen generate would lose the edit, so "
        "nothing was written\n  hint: opgen writes these files from your types "
        "and markers: make the change there" in run.stderr
    )
    assert tree_hash(root) == before

    check = opgen(root, "generate", "--check")
    assert check.exit_code == 1
    assert f"update {ROLE} (edited by hand since opgen wrote it)" in check.stderr
    dry = opgen(root, "generate", "--dry-run")
    assert f"update    {ROLE} (edited by hand since opgen wrote it)" in dry.stdout
    assert opgen(root, "generate", "manifests").exit_code == 1
    assert tree_hash(root) == before

    forced = opgen(root, "generate", "--force")
    assert forced.exit_code == 0, forced.stderr
    assert f"warning: {ROLE}: its hand edit is gone (--force)" in forced.stderr
    assert "# granted by hand" not in role.read_text()
    assert load_project(root).generated[ROLE] == content_hash(role.read_text())
    assert opgen(root, "generate").stdout == "up to date\n"


def test_files_opgen_wrote_are_rewritten_without_a_word(project: Path) -> None:
    root = generated(project)
    types = root / TYPES
    types.write_text(
        types.read_text().replace(
            "    foo: str | None = None\n",
            "    foo: str | None = None\n    size: int = 1\n",
            1,
        )
    )
    run = opgen(root, "generate")
    assert run.exit_code == 0, run.stderr
    assert f"update    {CRD}" in run.stdout
    assert "edited by hand" not in run.stderr + run.stdout


def test_a_file_already_as_opgen_writes_it_is_left_alone(project: Path) -> None:
    """A record that does not match, on a file opgen would write as it is: nothing
    to lose, so no refusal; the record is brought up to date."""
    root = generated(project)
    project_file = root / "PROJECT"
    recorded = load_project(root).generated[ROLE]
    project_file.write_text(
        project_file.read_text().replace(recorded, content_hash("older"))
    )
    run = opgen(root, "generate")
    assert run.exit_code == 0, run.stderr
    assert run.stdout == "update    PROJECT\n"
    assert load_project(root).generated[ROLE] == recorded


def test_a_file_without_a_record_is_opgens(project: Path) -> None:
    """A project from before opgen recorded hashes: rewritten, then recorded."""
    root = generated(project)
    project_file = root / "PROJECT"
    data = yaml.safe_load(project_file.read_text())
    del data["generated"]
    header = "".join(
        line for line in project_file.read_text().splitlines(True) if line[0] == "#"
    )
    project_file.write_text(header + yaml.safe_dump(data, sort_keys=False, width=1000))
    role = root / ROLE
    role.write_text(role.read_text() + "# from an older opgen\n")
    run = opgen(root, "generate")
    assert run.exit_code == 0, run.stderr
    assert f"update    {ROLE}" in run.stdout
    assert load_project(root).generated[ROLE] == content_hash(role.read_text())


def test_generate_manifests_keeps_the_record_of_the_clients(project: Path) -> None:
    root = generated(project)
    client = load_project(root).generated[CLIENT]
    (root / CRD).unlink()
    run = opgen(root, "generate", "manifests")
    assert run.exit_code == 0, run.stderr
    recorded = load_project(root).generated
    assert recorded[CLIENT] == client
    assert recorded[CRD] == content_hash((root / CRD).read_text())
