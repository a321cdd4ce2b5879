"""PROJECT is checked on every command: every value that no longer matches, at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from opgen.errors import ProjectError
from opgen.project import Project, Resource
from opgen.project.config import ImportedCrd
from opgen.project.consistency import check_project


def resource(group: str, kind: str, api_group: str, **extra: object) -> Resource:
    return Resource(
        group=group,
        version="v1",
        kind=kind,
        given_plural=f"{kind.lower()}s",
        api_group=api_group,
        **extra,
    )


def project(*resources: Resource, package: str = "ray_operator") -> Project:
    return Project(
        cli_version="0.1.0",
        domain="example.com",
        project_name="ray-operator",
        package=package,
        resources=resources,
    )


def test_a_consistent_project_passes(tmp_path: Path) -> None:
    (tmp_path / "ray_operator").mkdir()
    check_project(project(resource("ray", "RayCluster", "ray.example.com")), tmp_path)


def test_every_mismatch_is_listed(tmp_path: Path) -> None:
    edited = project(
        resource("ray", "RayCluster", "ray.example.com"),
        resource("ray", "RayCluster", "ray.example.com"),
        resource("batch", "CronJob", "batch.example.com"),
        resource("widgets", "Widget", "widgets", core=True, api=False),
        package="ray_op",
    )
    with pytest.raises(ProjectError) as raised:
        check_project(edited, tmp_path)
    lines = raised.value.message.splitlines()
    assert lines[0] == "no longer matches what opgen made:"
    assert lines[1:] == [
        "  - package is 'ray_op', but projectName 'ray-operator' makes it 'ray_operator'",
        "  - resources[3] Widget (widgets/v1): core is true, but 'widgets' is not a "
        "Kubernetes group",
        "  - RayCluster (ray/v1) is listed more than once",
        "  - multigroup is false, but the resources use the groups batch, ray",
    ]
    assert raised.value.hint is not None and "git checkout PROJECT" in raised.value.hint


def test_a_missing_package_folder_is_reported(tmp_path: Path) -> None:
    with pytest.raises(ProjectError, match="package 'ray_operator' has no folder"):
        check_project(project(), tmp_path)


def test_imports_are_checked_with_the_resources(tmp_path: Path) -> None:
    (tmp_path / "ray_operator").mkdir()
    quota = ImportedCrd(crd="quotas.quota.example.com", kind="Quota", versions=("v1",))
    other = ImportedCrd(
        crd="certificates.cert-manager.io", kind="Certificate", versions=("v1",)
    )
    edited = project(resource("quota", "Quota", "quota.example.com")).model_copy(
        update={"imports": (quota, other, other)}
    )
    with pytest.raises(ProjectError) as raised:
        check_project(edited, tmp_path)
    assert raised.value.message.splitlines()[1:] == [
        "  - imports[0] Quota (quotas.quota.example.com): the project defines Quota "
        "(quota.example.com) itself",
        "  - the import of certificates.cert-manager.io is listed more than once",
    ]
    check_project(project().model_copy(update={"imports": (quota, other)}), tmp_path)
