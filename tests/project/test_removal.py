"""What `opgen generate` removes: only files an earlier run wrote that it no longer produces."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from opgen.model.kinds import VERSION_ANNOTATION
from opgen.project import Project
from opgen.project.removal import stale_outputs

PROJECT = Project(
    cli_version="0.1.0", domain="example.com", project_name="ops", package="ops"
)
OURS = PurePosixPath("config/crd/bases/ray.example.com_rayclusters.yaml")
GONE = PurePosixPath("config/crd/bases/ray.example.com_rayjobs.yaml")
FOREIGN = PurePosixPath("config/crd/bases/other.io_widgets.yaml")
CLIENT = PurePosixPath("ops/api/v1/zz_generated_client.py")
OLD_CLIENT = PurePosixPath("ops/api/v2/zz_generated_client.py")


def write(root: Path, path: PurePosixPath, text: str) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


def crd(annotations: str) -> str:
    return f"---\nkind: CustomResourceDefinition\nmetadata:\n  annotations: {annotations}\n"


def tree(root: Path) -> None:
    write(root, OURS, crd(f"{{{VERSION_ANNOTATION}: 0.1.0}}"))
    write(root, GONE, crd(f"{{{VERSION_ANNOTATION}: 0.1.0}}"))
    write(root, FOREIGN, crd("{controller-gen.kubebuilder.io/version: v0.16.0}"))
    write(root, PurePosixPath("config/crd/bases/broken.yaml"), ": not: yaml: [")
    write(root, CLIENT, "")
    write(root, OLD_CLIENT, "")


def removed(root: Path, produced: set[PurePosixPath], *, clients: bool) -> set[str]:
    return {
        str(removal.path)
        for removal in stale_outputs(root, PROJECT, produced, clients=clients)
    }


def test_manifests_remove_only_opgens_crds_that_no_kind_produces(
    tmp_path: Path,
) -> None:
    tree(tmp_path)
    assert removed(tmp_path, {OURS}, clients=False) == {str(GONE)}


def test_a_full_run_also_removes_clients_of_folders_without_kinds(
    tmp_path: Path,
) -> None:
    tree(tmp_path)
    assert removed(tmp_path, {OURS, CLIENT}, clients=True) == {
        str(GONE),
        str(OLD_CLIENT),
    }


def test_nothing_to_remove_in_a_new_project(tmp_path: Path) -> None:
    assert removed(tmp_path, set(), clients=True) == set()
