"""A project's role.yaml binds the Roles its markers ask for.

controller-gen writes a Role for a marker with a namespace and leaves the
binding to the user; a project's `config/rbac/role.yaml` follows each Role
that `role_binding.yaml` does not bind with a RoleBinding to the manager's
ServiceAccount.
"""

from __future__ import annotations

from typing import Any

import yaml

from opgen.model import RbacRule
from opgen.project.config import Project
from opgen.render.rbac import project_role


def rule(namespace: str | None = None, role_name: str | None = None) -> RbacRule:
    return RbacRule(
        verbs=("get",),
        groups=("",),
        resources=("configmaps",),
        resource_names=(),
        urls=(),
        namespace=namespace,
        role_name=role_name,
    )


def documents(project: Project, *rules: RbacRule) -> list[dict[str, Any]]:
    return list(yaml.safe_load_all(project_role(list(rules), project).content))


def project(*, namespaced: bool) -> Project:
    return Project(
        cli_version="0.1.0",
        domain="example.com",
        project_name="ray-operator",
        package="ray_operator",
        namespaced=namespaced,
    )


def test_a_namespaced_marker_in_a_cluster_wide_project_gets_its_binding() -> None:
    found = documents(project(namespaced=False), rule(), rule("ray-operator-system"))
    assert [(d["kind"], d["metadata"]) for d in found] == [
        ("ClusterRole", {"name": "manager-role"}),
        ("Role", {"name": "manager-role", "namespace": "ray-operator-system"}),
        (
            "RoleBinding",
            {"name": "manager-rolebinding", "namespace": "ray-operator-system"},
        ),
    ]
    binding = found[2]
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "Role",
        "name": "manager-role",
    }
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "controller-manager", "namespace": "system"}
    ]


def test_a_named_role_is_bound_under_its_own_name() -> None:
    found = documents(project(namespaced=False), rule("team", role_name="archive"))
    assert [(d["kind"], d["metadata"]["name"]) for d in found] == [
        ("Role", "archive"),
        ("RoleBinding", "archive-binding"),
    ]


def test_the_namespaced_projects_own_role_is_bound_by_role_binding_yaml() -> None:
    found = documents(
        project(namespaced=True),
        rule("ray-operator-system"),
        rule("ray-operator-system", role_name="archive"),
    )
    assert [(d["kind"], d["metadata"]["name"]) for d in found] == [
        ("Role", "archive"),
        ("Role", "manager-role"),
        ("RoleBinding", "archive-binding"),
    ]


def test_cluster_rules_alone_need_no_binding_here() -> None:
    found = documents(project(namespaced=False), rule())
    assert [d["kind"] for d in found] == ["ClusterRole"]
