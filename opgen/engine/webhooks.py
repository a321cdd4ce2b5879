"""Webhook names and paths, and the rules a declaration's values follow.

Shared by `@op.webhook` (defaults and argument checks), the scaffold (the
paths it writes into a new webhook file) and the manifests, so that the three
always agree. Paths follow Kubebuilder: `/mutate-<group>-<version>-<kind>`
and `/validate-...` with the group's dots as dashes, all lower case.
"""

from __future__ import annotations

import re

from opgen.model.webhooks import CONVERSION_PATH, PROBE_PATH

__all__ = [
    "FAILURE_POLICIES",
    "MATCH_POLICIES",
    "OPERATIONS",
    "REINVOCATION_POLICIES",
    "SIDE_EFFECTS",
    "default_name",
    "default_path",
    "path_problem",
]

FAILURE_POLICIES = ("Fail", "Ignore")
SIDE_EFFECTS = ("None", "NoneOnDryRun")
"""The classes admissionregistration/v1 accepts (`Some` and `Unknown` are refused)."""
MATCH_POLICIES = ("Exact", "Equivalent")
REINVOCATION_POLICIES = ("Never", "IfNeeded")
OPERATIONS = ("CREATE", "UPDATE", "DELETE", "CONNECT", "*")

_PATH = re.compile(r"^/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$")


def _slug(group: str, version: str, kind: str) -> str:
    return f"{group.replace('.', '-')}-{version}-{kind}".lower()


def default_path(*, mutating: bool, group: str, version: str, kind: str) -> str:
    """`/mutate-ray-example-com-v1-raycluster` (or `/validate-...`), as Kubebuilder names it."""
    verb = "mutate" if mutating else "validate"
    return f"/{verb}-{_slug(group, version, kind)}"


def default_name(*, mutating: bool, group: str, version: str, kind: str) -> str:
    """`mraycluster-v1.ray.example.com` (or `vraycluster-...`): unique in the cluster.

    Kubebuilder ends every name in `.kb.io`; opgen ends it in the kind's group,
    a domain the project owns.
    """
    return f"{'m' if mutating else 'v'}{kind.lower()}-{version}.{group}"


def path_problem(path: str) -> str | None:
    """Why `path` cannot be a webhook's URL path, or None."""
    if not path.startswith("/"):
        return "must start with '/'"
    if _PATH.match(path) is None:
        return "may only hold the characters of a URL path (no spaces, '?' or '#')"
    if path in (CONVERSION_PATH, PROBE_PATH, "/healthz", "/readyz", "/metrics"):
        return f"{path} is taken by the manager"
    return None
