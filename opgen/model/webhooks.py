"""Admission webhooks and conversions, as `@op.webhook` and `@op.conversion` declare them.

The manifests (`config/webhook/manifests.yaml`, a CRD's `spec.conversion`)
are rendered from these values, and the runtime's webhook server routes
requests by them, so the configuration the API server reads and the handler
the manager runs can never disagree on a path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from opgen.model.kinds import Kind, SourceRef

FailurePolicy = Literal["Fail", "Ignore"]
SideEffects = Literal["None", "NoneOnDryRun"]
MatchPolicy = Literal["Exact", "Equivalent"]
ReinvocationPolicy = Literal["Never", "IfNeeded"]
Operation = Literal["CREATE", "UPDATE", "DELETE", "CONNECT", "*"]

CONVERSION_PATH = "/convert"
"""The one path every conversion is served on (controller-runtime's)."""
PROBE_PATH = "/opgen-webhook-probe"
"""Served by opgen's webhook server for `opgen.testing` (which learns by it when the
API server calls the server); no generated configuration calls it."""


@dataclass(frozen=True)
class AdmissionWebhook:
    """One `@op.webhook(...)`: a mutating or validating webhook for one kind."""

    mutating: bool
    group: str
    """The kind's API group (`ray.example.com`)."""
    version: str
    """The version the rule names and the handler's objects are decoded as; with
    the default match policy (Equivalent) the API server converts requests made
    in other versions to it."""
    kind: str
    plural: str
    model: type
    """The `op.CustomResource` class the handler receives."""
    path: str
    name: str
    operations: tuple[Operation, ...]
    failure_policy: FailurePolicy = "Fail"
    side_effects: SideEffects = "None"
    timeout_seconds: int | None = None
    match_policy: MatchPolicy | None = None
    reinvocation_policy: ReinvocationPolicy | None = None
    admission_review_versions: tuple[str, ...] = ("v1",)
    source: SourceRef | None = None

    @property
    def configuration_kind(self) -> str:
        return (
            "MutatingWebhookConfiguration"
            if self.mutating
            else "ValidatingWebhookConfiguration"
        )


@dataclass(frozen=True)
class Conversion:
    """One `@op.conversion(hub=..., spoke=...)`: how one version converts through the hub."""

    group: str
    kind: str
    hub_version: str
    spoke_version: str
    hub: type
    spoke: type
    source: SourceRef | None = None


Declaration = AdmissionWebhook | Conversion


@dataclass(frozen=True)
class Webhooks:
    """Every declaration found in a project's webhook modules (the loader checks
    that no two clash)."""

    admission: tuple[AdmissionWebhook, ...] = ()
    conversions: tuple[Conversion, ...] = ()

    def conversions_of(self, kind: Kind) -> tuple[Conversion, ...]:
        return tuple(
            c
            for c in self.conversions
            if (c.group, c.kind) == (kind.group, kind.names.kind)
        )
