"""Where files go, single-group and --multigroup, and what delete api may remove."""

from __future__ import annotations

from pathlib import PurePosixPath

from opgen.project import Layout, Project, Resource
from opgen.project.removal import files_to_remove


def project(multigroup: bool) -> Project:
    return Project(
        cli_version="0.1.0",
        domain="example.com",
        project_name="ops",
        package="ops",
        multigroup=multigroup,
    )


RAY = Resource(
    group="ray",
    version="v1",
    kind="RayCluster",
    given_plural="rayclusters",
    api_group="ray.example.com",
)


def paths(items: tuple[PurePosixPath, ...]) -> list[str]:
    return [str(p) for p in items]


def test_single_group_layout() -> None:
    layout = Layout(project(False))
    assert paths(layout.resource_files(RAY)) == [
        "ops/api/v1/__init__.py",
        "ops/api/v1/groupversion_info.py",
        "ops/api/v1/raycluster_types.py",
        "config/samples/ray_v1_raycluster.yaml",
        "config/rbac/raycluster_admin_role.yaml",
        "config/rbac/raycluster_editor_role.yaml",
        "config/rbac/raycluster_viewer_role.yaml",
        "ops/controller/raycluster_controller.py",
        "tests/controller/test_raycluster_controller.py",
    ]
    assert layout.types_module(RAY) == "ops.api.v1.raycluster_types"
    assert layout.controller_module(RAY) == "ops.controller.raycluster_controller"
    assert (
        str(layout.crd_file(RAY)) == "config/crd/bases/ray.example.com_rayclusters.yaml"
    )


def test_multigroup_layout() -> None:
    layout = Layout(project(True))
    assert paths(layout.resource_files(RAY)) == [
        "ops/api/ray/__init__.py",
        "ops/api/ray/v1/__init__.py",
        "ops/api/ray/v1/groupversion_info.py",
        "ops/api/ray/v1/raycluster_types.py",
        "config/samples/ray_v1_raycluster.yaml",
        "config/rbac/ray_raycluster_admin_role.yaml",
        "config/rbac/ray_raycluster_editor_role.yaml",
        "config/rbac/ray_raycluster_viewer_role.yaml",
        "ops/controller/ray/__init__.py",
        "ops/controller/ray/raycluster_controller.py",
        "tests/controller/test_ray_raycluster_controller.py",
    ]


def test_delete_keeps_what_other_kinds_share() -> None:
    job = Resource(
        group="ray",
        version="v1",
        kind="RayJob",
        given_plural="rayjobs",
        api_group="ray.example.com",
    )
    ray_v2 = RAY.model_copy(update={"version": "v2"})
    both = project(True).with_resource(RAY).with_resource(job).with_resource(ray_v2)
    owned, generated = files_to_remove(both, RAY)
    assert "ops/api/ray/v1/groupversion_info.py" not in paths(owned)
    assert "ops/api/ray/__init__.py" not in paths(owned)
    assert "ops/controller/ray/__init__.py" not in paths(owned)
    assert "ops/api/ray/v1/raycluster_types.py" in paths(owned)
    assert "config/samples/ray_v1_raycluster.yaml" in paths(owned)
    # RayCluster v2 still needs the CRD and the kind's helper roles.
    assert generated == ()
    assert "config/rbac/ray_raycluster_admin_role.yaml" not in paths(owned)
    alone = project(True).with_resource(RAY)
    owned, generated = files_to_remove(alone, RAY)
    assert paths(generated) == ["config/crd/bases/ray.example.com_rayclusters.yaml"]
    assert "ops/api/ray/__init__.py" in paths(owned)
