"""The manager's identity in a test: its ServiceAccount, bound by the project's own RBAC.

A generated project deploys with `kubectl kustomize config/default`, which
takes `config/rbac/` (the ServiceAccount, `role.yaml` that `opgen generate`
writes from the `op.rbac` markers, the bindings, the leader-election and
metrics roles) and applies `config/default`'s `namespace` and `namePrefix`.
`rendered_rbac(root)` renders those objects the same way for the kinds they
are (ServiceAccount, Role, ClusterRole and their bindings), without kubectl:
names get the prefix, namespaced objects the namespace, and the references
between them (`roleRef`, ServiceAccount `subjects`) follow.
`deploy_rbac(admin, root, ...)` applies them and returns a `ManagerAccount`
with a kubeconfig holding a token of that ServiceAccount, so a manager built
from it has exactly the permissions a deployed one has.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from opgen import runtime as rt
from opgen.api.k8s.core_v1 import Namespace, ServiceAccount
from opgen.api.k8s.rbac_v1 import ClusterRole, ClusterRoleBinding, Role, RoleBinding
from opgen.errors import EnvtestError
from opgen.testing.controlplane import kubeconfig
from opgen.testing.controlplane.adminapi import AdminApi

__all__ = ["ManagerAccount", "RenderedRbac", "deploy_rbac", "rendered_rbac"]

DEFAULT_OVERLAY = Path("config", "default")
TOKEN_SECONDS = 24 * 3600
_NAMESPACED = {"ServiceAccount", "Role", "RoleBinding"}
_KINDS: dict[str, type[Any]] = {
    "ServiceAccount": ServiceAccount,
    "Role": Role,
    "RoleBinding": RoleBinding,
    "ClusterRole": ClusterRole,
    "ClusterRoleBinding": ClusterRoleBinding,
}


@dataclass(frozen=True)
class ManagerAccount:
    """The manager's ServiceAccount in the test cluster, and how to act as it."""

    name: str
    namespace: str
    kubeconfig_path: Path
    """A kubeconfig with a token of the account; its context's namespace is `namespace`."""


@dataclass(frozen=True)
class RenderedRbac:
    """The RBAC objects of `config/default`, as kustomize renders them."""

    namespace: str
    service_account: str
    objects: tuple[dict[str, Any], ...]


def _read_yaml(path: Path) -> list[dict[str, Any]]:
    try:
        documents = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
    except (OSError, yaml.YAMLError) as error:
        raise EnvtestError(
            f"cannot read {path}: {error}",
            hint="run the tests from the project's root folder (where PROJECT is)",
        ) from error
    return [d for d in documents if isinstance(d, dict)]


def _kustomization(directory: Path) -> dict[str, Any]:
    found = _read_yaml(directory / "kustomization.yaml")
    if not found:
        raise EnvtestError(f"{directory / 'kustomization.yaml'} is empty")
    return found[0]


def rendered_rbac(root: Path, overlay: Path = DEFAULT_OVERLAY) -> RenderedRbac:
    """The ServiceAccount, roles and bindings `kubectl kustomize <overlay>` would give."""
    overlay_dir = root / overlay
    default = _kustomization(overlay_dir)
    namespace = default.get("namespace")
    prefix = str(default.get("namePrefix") or "")
    if not isinstance(namespace, str) or not namespace:
        raise EnvtestError(
            f"{overlay_dir / 'kustomization.yaml'} sets no namespace",
            hint="the scaffold's config/default sets `namespace: <project>-system`",
        )
    rbac_dir = (overlay_dir / "../rbac").resolve()
    if "../rbac" not in (default.get("resources") or []):
        raise EnvtestError(
            f"{overlay_dir / 'kustomization.yaml'} does not include ../rbac",
            hint="restore the `- ../rbac` line the scaffold puts in its resources",
        )
    objects: list[dict[str, Any]] = []
    for entry in _kustomization(rbac_dir).get("resources") or []:
        for document in _read_yaml(rbac_dir / str(entry)):
            if document.get("kind") in _KINDS:
                objects.append(document)
    names = {(o["kind"], o["metadata"]["name"]) for o in objects}
    rendered = tuple(_render(o, namespace, prefix, names) for o in objects)
    accounts = [o for o in rendered if o["kind"] == "ServiceAccount"]
    if len(accounts) != 1:
        raise EnvtestError(
            f"{rbac_dir} holds {len(accounts)} ServiceAccounts; expected the manager's one"
        )
    return RenderedRbac(namespace, accounts[0]["metadata"]["name"], rendered)


def _render(
    obj: Mapping[str, Any], namespace: str, prefix: str, names: set[tuple[str, str]]
) -> dict[str, Any]:
    out = copy.deepcopy(dict(obj))
    meta = out.setdefault("metadata", {})
    meta["name"] = prefix + meta["name"]
    if out["kind"] in _NAMESPACED:
        meta["namespace"] = namespace
    ref = out.get("roleRef")
    if isinstance(ref, dict) and (ref.get("kind"), ref.get("name")) in names:
        ref["name"] = prefix + ref["name"]
    for subject in out.get("subjects") or []:
        if (
            subject.get("kind") == "ServiceAccount"
            and ("ServiceAccount", subject.get("name")) in names
        ):
            subject["name"] = prefix + subject["name"]
            subject["namespace"] = namespace
    return out


def deploy_rbac(
    client: AdminApi,
    root: Path,
    admin_kubeconfig: Mapping[str, Any],
    out: Path,
) -> ManagerAccount:
    """Apply the project's RBAC in its namespace; a kubeconfig for its ServiceAccount at `out`."""
    rbac = rendered_rbac(root)
    try:
        client.apply(
            Namespace,
            {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {"name": rbac.namespace},
            },
            force=False,
        )
        for document in rbac.objects:
            client.apply(_KINDS[document["kind"]], document, force=True)
        request = client.create(
            ServiceAccount,
            {
                "apiVersion": "authentication.k8s.io/v1",
                "kind": "TokenRequest",
                "spec": {"audiences": [], "expirationSeconds": TOKEN_SECONDS},
            },
            name=rbac.service_account,
            namespace=rbac.namespace,
            subresource="token",
        )
    except rt.ApiError as error:
        raise EnvtestError(
            f"the API server refused the project's RBAC: {error.message}"
        ) from error
    config = copy.deepcopy(dict(admin_kubeconfig))
    for entry in config["users"]:
        entry["user"] = {"token": request["status"]["token"]}
    for entry in config["contexts"]:
        entry["context"]["namespace"] = rbac.namespace
    kubeconfig.write_kubeconfig(out, config)
    return ManagerAccount(rbac.service_account, rbac.namespace, out)
