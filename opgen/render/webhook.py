"""`config/webhook/manifests.yaml` and CRD conversion, from `@op.webhook` / `@op.conversion`.

The manifests follow controller-gen's webhook generator: one
`MutatingWebhookConfiguration` named `mutating-webhook-configuration` and one
`ValidatingWebhookConfiguration` named `validating-webhook-configuration`
(each only when it has webhooks), webhooks sorted by name, each calling the
Service `webhook-service` in namespace `system` (kustomize renames both) on
its path, with one rule for the kind's group, version and plural. The
objects are built as data and dumped like the CRDs (sorted keys).

A kind with conversions gets `spec.conversion` in its CRD: strategy
`Webhook`, the same Service's `/convert`, `conversionReviewVersions: [v1]`.
The hub must be the storage version, and every other version of the kind
needs a conversion, else conversions between them would fail at run time:
both are errors naming the handler class.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgen.errors import Location, MarkerError
from opgen.model.kinds import Kind
from opgen.model.webhooks import CONVERSION_PATH, AdmissionWebhook, Conversion, Webhooks
from opgen.project.layout import GENERATED_MARK, WEBHOOK_MANIFESTS
from opgen.render.rbac import MANAGER_NAMESPACE
from opgen.render.yaml import dump_documents
from opgen.write.files import File, Ownership

__all__ = [
    "MANIFESTS_FILE",
    "SERVICE_NAME",
    "Webhooks",
    "conversion_section",
    "render_webhook_manifests",
]

MANIFESTS_FILE = WEBHOOK_MANIFESTS
SERVICE_NAME = "webhook-service"
CONFIGURATION_NAMES = {
    "MutatingWebhookConfiguration": "mutating-webhook-configuration",
    "ValidatingWebhookConfiguration": "validating-webhook-configuration",
}
HEADER = (
    f"{GENERATED_MARK} from the @op.webhook declarations in the webhook\n"
    "# modules. DO NOT EDIT. Change them and run `opgen generate manifests`.\n"
)


def _where(declaration: AdmissionWebhook | Conversion) -> Location:
    source = declaration.source
    return Location(file=source.file, cls=source.cls) if source else Location()


def _webhook_entry(webhook: AdmissionWebhook) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "admissionReviewVersions": list(webhook.admission_review_versions),
        "clientConfig": {
            "service": {
                "name": SERVICE_NAME,
                "namespace": MANAGER_NAMESPACE,
                "path": webhook.path,
            }
        },
        "failurePolicy": webhook.failure_policy,
        "name": webhook.name,
        "rules": [
            {
                "apiGroups": [webhook.group],
                "apiVersions": [webhook.version],
                "operations": list(webhook.operations),
                "resources": [webhook.plural],
            }
        ],
        "sideEffects": webhook.side_effects,
    }
    if webhook.match_policy is not None:
        entry["matchPolicy"] = webhook.match_policy
    if webhook.timeout_seconds is not None:
        entry["timeoutSeconds"] = webhook.timeout_seconds
    if webhook.reinvocation_policy is not None:
        entry["reinvocationPolicy"] = webhook.reinvocation_policy
    return entry


def webhook_documents(admission: Sequence[AdmissionWebhook]) -> list[dict[str, Any]]:
    """The two configurations (each only when it has webhooks), as data."""
    documents = []
    for kind, name in CONFIGURATION_NAMES.items():
        members = sorted(
            (w for w in admission if w.configuration_kind == kind),
            key=lambda w: w.name,
        )
        if members:
            documents.append(
                {
                    "apiVersion": "admissionregistration.k8s.io/v1",
                    "kind": kind,
                    "metadata": {"name": name},
                    "webhooks": [_webhook_entry(w) for w in members],
                }
            )
    return documents


def render_webhook_manifests(webhooks: Webhooks) -> File:
    """`config/webhook/manifests.yaml` (generated; only the header without webhooks)."""
    documents = webhook_documents(webhooks.admission)
    body = dump_documents(documents) if documents else ""
    return File(MANIFESTS_FILE, HEADER + body, Ownership.GENERATED)


def conversion_section(
    kind: Kind, conversions: Sequence[Conversion]
) -> dict[str, Any] | None:
    """The CRD's `spec.conversion` for `kind`, or None when it has no conversions."""
    if not conversions:
        return None
    first = conversions[0]
    for conversion in conversions:
        if conversion.hub_version != first.hub_version:
            raise MarkerError(
                f"@op.conversion: {kind.names.kind} has two hubs, {first.hub_version} "
                f"and {conversion.hub_version}",
                location=_where(conversion),
                hint="every conversion of a kind names the same hub version",
            )
    storage = kind.storage_version.version
    if first.hub_version != storage:
        raise MarkerError(
            f"@op.conversion: the hub of {kind.names.kind} is {first.hub_version}, but "
            f"etcd stores {storage}",
            location=_where(first),
            hint=f"mark {first.hub_version} with @op.storage_version() (or make "
            f"{storage} the hub), so that fields only the hub has are never lost",
        )
    known = {v.version for v in kind.versions}
    covered = {first.hub_version, *(c.spoke_version for c in conversions)}
    for conversion in conversions:
        if conversion.spoke_version not in known:
            raise MarkerError(
                f"@op.conversion: {kind.names.kind} has no version "
                f"{conversion.spoke_version}",
                location=_where(conversion),
                hint=f"its versions are {', '.join(sorted(known))}",
            )
    missing = sorted(
        v.version for v in kind.versions if v.served and v.version not in covered
    )
    if missing:
        raise MarkerError(
            f"@op.conversion: {kind.names.kind} {', '.join(missing)} "
            f"{'has' if len(missing) == 1 else 'have'} no conversion to the hub "
            f"{first.hub_version}",
            location=_where(first),
            hint="declare an @op.conversion(hub=..., spoke=...) for each served version "
            "(`opgen create webhook --conversion --spoke ...`)",
        )
    return {
        "strategy": "Webhook",
        "webhook": {
            "clientConfig": {
                "service": {
                    "name": SERVICE_NAME,
                    "namespace": MANAGER_NAMESPACE,
                    "path": CONVERSION_PATH,
                }
            },
            "conversionReviewVersions": ["v1"],
        },
    }
