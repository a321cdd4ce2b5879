"""Kubernetes' built-in API groups, for `create api --no-resource` on a core type.

Kubebuilder accepts the short group name (`apps`, `batch`, `core`, `rbac`...);
opgen maps it to the real API group and to the `op.k8s` module that defines
the kinds (`opgen.api.k8s.<group>_<version>`); the load stage imports that
module (`opgen.load.builtin_kinds`).
"""

from __future__ import annotations

from opgen.engine.builtin import BuiltinResource
from opgen.errors import ProjectError
from opgen.load import builtin_kinds

#: short group → the API group it names ("" is the core group).
CORE_GROUPS: dict[str, str] = {
    "core": "",
    "admissionregistration": "admissionregistration.k8s.io",
    "apiextensions": "apiextensions.k8s.io",
    "apiregistration": "apiregistration.k8s.io",
    "apps": "apps",
    "authentication": "authentication.k8s.io",
    "authorization": "authorization.k8s.io",
    "autoscaling": "autoscaling",
    "batch": "batch",
    "certificates": "certificates.k8s.io",
    "coordination": "coordination.k8s.io",
    "discovery": "discovery.k8s.io",
    "events": "events.k8s.io",
    "flowcontrol": "flowcontrol.apiserver.k8s.io",
    "networking": "networking.k8s.io",
    "node": "node.k8s.io",
    "policy": "policy",
    "rbac": "rbac.authorization.k8s.io",
    "resource": "resource.k8s.io",
    "scheduling": "scheduling.k8s.io",
    "storage": "storage.k8s.io",
}


def is_core_group(group: str) -> bool:
    return group in CORE_GROUPS


def k8s_module(group: str, version: str) -> str:
    """The `op.k8s` module of a short group's version: `apps`, `v1` →
    `opgen.api.k8s.apps_v1` (modules are named after the Go packages, whose
    names are the short groups)."""
    return f"opgen.api.k8s.{group}_{version}"


def find_core_type(group: str, version: str, kind: str) -> BuiltinResource:
    """The discovery facts `op.k8s` recorded for a built-in kind (its API group,
    plural and scope); a `ProjectError` for a group/version or kind it lacks."""
    module_name = k8s_module(group, version)
    kinds = builtin_kinds(module_name)
    if not kinds:
        raise ProjectError(
            f"op.k8s has no kinds of {group}/{version} (looked for {module_name})",
            hint="check --group and --version, e.g. --group apps --version v1; "
            "op.k8s holds the groups listed in docs/core-types.md",
        )
    found = kinds.get(kind)
    if found is None:
        raise ProjectError(
            f"{group}/{version} has no kind {kind!r}",
            hint="check the spelling of --kind, e.g. --kind Deployment",
        )
    return found
