"""`Environment.deploy_rbac` and the `manager_account` fixture: the manager as deployed.

The RBAC objects opgen renders from a generated project are exactly those
`kubectl kustomize config/default` renders; applied to envtest, a token of
the ServiceAccount can do what `config/rbac/role.yaml` grants and nothing else.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

import opgen.api as op
from opgen import runtime as rt
from opgen.testing import Environment
from opgen.testing.controlplane.rbac import rendered_rbac
from tests.scaffold.cluster import kustomize_default
from tests.scaffold.conftest import api_args, opgen

RBAC_KINDS = {
    "ServiceAccount",
    "Role",
    "ClusterRole",
    "RoleBinding",
    "ClusterRoleBinding",
}


def scaffold(root: Path, *init: str) -> Path:
    root.mkdir()
    assert opgen(root, "init", "--domain", "example.com", *init).exit_code == 0
    assert opgen(root, *api_args("ray", "v1", "RayCluster")).exit_code == 0
    assert opgen(root, "generate").exit_code == 0
    return root


def kustomized(root: Path) -> list[dict[str, Any]]:
    rendered = yaml.safe_load_all(kustomize_default(root))
    return [d for d in rendered if d["kind"] in RBAC_KINDS]


async def _can(client: rt.Client, verb: str, group: str, resource: str) -> bool:
    """What the API server's authorizer answers for the client's own identity."""
    name, _, subresource = resource.partition("/")
    review = await client.create(
        op.k8s.SelfSubjectAccessReview(
            spec=op.k8s.SelfSubjectAccessReviewSpec(
                resource_attributes=op.k8s.ResourceAttributes(
                    verb=verb,
                    group=group,
                    resource=name,
                    subresource=subresource or None,
                    namespace="default",
                )
            )
        )
    )
    assert review.status is not None
    return bool(review.status.allowed)


def by_key(objects: Any) -> dict[tuple[str, str], dict[str, Any]]:
    return {(o["kind"], o["metadata"]["name"]): o for o in objects}


@pytest.mark.parametrize(
    "flags", [(), ("--namespaced",)], ids=["cluster", "namespaced"]
)
def test_the_rendered_rbac_is_what_kustomize_renders(
    tmp_path: Path, flags: tuple[str, ...]
) -> None:
    root = scaffold(tmp_path / "ray-operator", *flags)
    rbac = rendered_rbac(root)
    assert (rbac.namespace, rbac.service_account) == (
        "ray-operator-system",
        "ray-operator-controller-manager",
    )
    assert by_key(rbac.objects) == by_key(kustomized(root))


@pytest.mark.envtest
async def test_the_account_can_do_what_role_yaml_grants_and_no_more(
    envtest: Environment, tmp_path: Path
) -> None:
    root = scaffold(tmp_path / "ray-operator")
    await envtest.ainstall_crds([root / "config/crd/bases"])
    account = envtest.deploy_rbac(root)
    assert account.namespace == "ray-operator-system"
    assert account.name == "ray-operator-controller-manager"
    async with rt.Client.from_kubeconfig(account.kubeconfig_path) as client:
        assert await _can(client, "list", "ray.example.com", "rayclusters")
        assert await _can(client, "patch", "ray.example.com", "rayclusters/status")
        assert await _can(client, "create", "events.k8s.io", "events")
        assert not await _can(client, "list", "", "secrets")
        with pytest.raises(rt.ApiError) as refused:
            await client.list(op.k8s.Secret, namespace="default")
        assert refused.value.code == 403
    # Idempotent: a second call applies the same objects and issues a new token.
    again = envtest.deploy_rbac(root)
    assert again.kubeconfig_path != account.kubeconfig_path
