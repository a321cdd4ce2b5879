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
from lightkube import ApiError, Client, KubeConfig
from lightkube.models.authorization_v1 import (
    ResourceAttributes,
    SelfSubjectAccessReviewSpec,
)
from lightkube.resources.authorization_v1 import SelfSubjectAccessReview
from lightkube.resources.core_v1 import Secret

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


def _can(client: Client, verb: str, group: str, resource: str) -> bool:
    """What the API server's authorizer answers for the client's own identity."""
    name, _, subresource = resource.partition("/")
    review = client.create(
        SelfSubjectAccessReview(
            spec=SelfSubjectAccessReviewSpec(
                resourceAttributes=ResourceAttributes(
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
def test_the_account_can_do_what_role_yaml_grants_and_no_more(
    envtest: Environment, tmp_path: Path
) -> None:
    root = scaffold(tmp_path / "ray-operator")
    envtest.install_crds([root / "config/crd/bases"])
    account = envtest.deploy_rbac(root)
    assert account.namespace == "ray-operator-system"
    assert account.name == "ray-operator-controller-manager"
    config = yaml.safe_load(account.kubeconfig_path.read_text())
    client = Client(config=KubeConfig.from_dict(config))
    try:
        assert _can(client, "list", "ray.example.com", "rayclusters")
        assert _can(client, "patch", "ray.example.com", "rayclusters/status")
        assert _can(client, "create", "events.k8s.io", "events")
        assert not _can(client, "list", "", "secrets")
        with pytest.raises(ApiError) as refused:
            list(client.list(Secret, namespace="default"))  # lazy until iterated
        assert refused.value.status.code == 403
    finally:
        client.close()
    # Idempotent: a second call applies the same objects and issues a new token.
    again = envtest.deploy_rbac(root)
    assert again.kubeconfig_path != account.kubeconfig_path
