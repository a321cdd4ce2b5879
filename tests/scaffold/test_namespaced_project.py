"""End to end: an `opgen init --namespaced` project, with a kind and a core-type controller.

A namespaced operator only gets a Role and RoleBinding in its own namespace
and watches the namespaces in WATCH_NAMESPACE. The project passes black, ruff
and mypy --strict, renders with kustomize to namespace-scoped RBAC only, its
own tests pass against envtest, and its manager, running with nothing but the
generated RBAC, reconciles the sample in its namespace and leaves objects
elsewhere alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from opgen.testing import Environment
from tests.scaffold.cluster import (
    conditions,
    deploy,
    kubectl,
    kubectl_binary,
    manager,
    sample,
    wait_ready,
)
from tests.scaffold.conftest import check_code, opgen, run_project_tests, tool

NAME = "shop-operator"
NAMESPACE = f"{NAME}-system"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("namespaced") / NAME
    root.mkdir()
    run = opgen(root, "init", "--domain", "shop.example.com", "--namespaced")
    assert run.exit_code == 0, run.stderr
    for args in (
        ("--group", "ray", "--version", "v1", "--kind", "RayCluster"),
        ("--group", "apps", "--version", "v1", "--kind", "Deployment", "--no-resource"),
    ):
        run = opgen(root, "create", "api", *args)
        assert run.exit_code == 0, run.stderr
    run = opgen(root, "generate")
    assert run.exit_code == 0, run.stderr
    return root


def test_the_generated_rbac_is_namespace_scoped(generated: Path) -> None:
    role = list(yaml.safe_load_all((generated / "config/rbac/role.yaml").read_text()))
    assert [(d["kind"], d["metadata"]) for d in role] == [
        ("Role", {"name": "manager-role", "namespace": NAMESPACE})
    ]
    groups = {group for rule in role[0]["rules"] for group in rule["apiGroups"]}
    assert groups == {"apps", "events.k8s.io", "ray.shop.example.com"}

    rendered = tool(generated, kubectl_binary(), "kustomize", "config/default")
    objects = list(yaml.safe_load_all(rendered))
    manager_rbac = {
        (o["kind"], o["metadata"]["name"], o["metadata"].get("namespace"))
        for o in objects
        if "manager-role" in o["metadata"]["name"]
    }
    assert manager_rbac == {
        ("Role", f"{NAME}-manager-role", NAMESPACE),
        ("RoleBinding", f"{NAME}-manager-rolebinding", NAMESPACE),
    }
    deployment = next(o for o in objects if o["kind"] == "Deployment")
    env = deployment["spec"]["template"]["spec"]["containers"][0]["env"]
    assert {
        "name": "WATCH_NAMESPACE",
        "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}},
    } in env


def test_black_ruff_and_mypy_strict_pass(generated: Path) -> None:
    package = NAME.replace("-", "_")
    check_code(generated, package)


def test_generate_is_idempotent(generated: Path) -> None:
    assert opgen(generated, "generate", "--check").exit_code == 0


@pytest.mark.envtest
def test_the_projects_own_tests_pass_against_envtest(generated: Path) -> None:
    out = run_project_tests(generated)
    assert "6 passed" in out  # with tests/e2e/


@pytest.mark.envtest
def test_the_manager_works_in_its_namespace_only(
    generated: Path, envtest: Environment, tmp_path: Path
) -> None:
    identity = deploy(envtest, generated, NAME, tmp_path / "sa.kubeconfig")
    admin = envtest.kubeconfig_path
    resource = "rayclusters.ray.shop.example.com"
    # The generated RBAC reaches the manager's own namespace and nothing else.
    assert can_i(identity, "update", resource, "-n", NAMESPACE)
    assert not can_i(identity, "get", resource, "-n", "shop-elsewhere")
    assert not can_i(identity, "list", resource, "--all-namespaces")

    kubectl(admin, "create", "namespace", "shop-elsewhere")
    path = "config/samples/ray_v1_raycluster.yaml"
    # The object elsewhere exists before the manager starts and before the
    # sample, so a manager watching every namespace would meet it first.
    kubectl(
        admin,
        "apply",
        "-f",
        "-",
        stdin=sample(generated, path, "shop-elsewhere", name="not-mine"),
    )
    with manager(
        generated,
        NAME.replace("-", "_"),
        identity,
        "--leader-elect",
        WATCH_NAMESPACE=NAMESPACE,
    ):
        kubectl(admin, "apply", "-f", "-", stdin=sample(generated, path, NAMESPACE))
        found = wait_ready(admin, resource, "raycluster-sample", "-n", NAMESPACE)
        assert found == {"Ready": "True", "Progressing": "False", "Degraded": "False"}
    # The manager has stopped (cleanly, with no Forbidden answer in its log:
    # it never asked beyond its namespace), and left the other object alone.
    assert conditions(admin, resource, "not-mine", "-n", "shop-elsewhere") == {}
    finalizers = kubectl(
        admin,
        "get",
        resource,
        "not-mine",
        "-n",
        "shop-elsewhere",
        "-o",
        "jsonpath={.metadata.finalizers}",
    ).stdout
    assert finalizers == ""


def can_i(kubeconfig: Path, *request: str) -> bool:
    """`kubectl auth can-i` as the identity of `kubeconfig`."""
    answer = kubectl(kubeconfig, "auth", "can-i", *request, check=False)
    assert answer.stdout.strip() in ("yes", "no"), answer.stderr
    return answer.stdout.strip() == "yes"
