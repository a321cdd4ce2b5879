"""Admission webhooks as the API server calls them: matched, reviewed, applied.

A project's `MutatingWebhookConfiguration`s and
`ValidatingWebhookConfiguration`s (the generated `config/webhook`) say which
requests each webhook sees; the memory server calls the matching ones in
process (`handlers.Handlers`, by each webhook's `clientConfig` path) with the
AdmissionReview the API server would send, in the server's order: mutating
webhooks (their JSON patches applied in turn), then the schema's pruning,
defaults and validation, then validating webhooks.

Matching follows the API server: a rule's `operations`, `apiGroups`,
`apiVersions`, `resources` (`*`, `plural/status`, `*/*`) and `scope`; the
`objectSelector` and `namespaceSelector`; with `matchPolicy: Equivalent`
(the default) a request in another served version of the same resource is
converted to the webhook's version, reviewed there and converted back. A
webhook that cannot be called (no handler on its path, an answer that is no
review) fails the request with a 500 under `failurePolicy: Fail` (the
default) and is skipped under `Ignore`; a refusal is the server's
(`admission webhook "<name>" denied the request: ...`). A dry run reaches
only webhooks declaring `sideEffects: None` or `NoneOnDryRun`, else it is
refused as the server refuses it.
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from opgen.runtime.webhook.review import Answer
from opgen.testing.memory import answers
from opgen.testing.memory.answers import Refusal
from opgen.testing.memory.kinds import Kind
from opgen.testing.memory.patches import JSON_PATCH, PatchError, apply_patch
from opgen.testing.memory.store import json_copy

if TYPE_CHECKING:
    from opgen.testing.memory.handlers import Handlers
    from opgen.testing.memory.server import MemoryApiServer

__all__ = ["Admission", "Request", "Webhook"]

ADMISSION_API_VERSION = "admission.k8s.io/v1"
ADMIN = {"username": "admin", "groups": ["system:masters", "system:authenticated"]}
"""Who every request to the memory server comes from (envtest's admin)."""
_OPTIONS = {
    "CREATE": "CreateOptions",
    "UPDATE": "UpdateOptions",
    "DELETE": "DeleteOptions",
}
_CREATE_ONLY = ("uid", "creationTimestamp", "generation")
"""What the server sets on a create after the mutating webhooks have seen it."""


@dataclass(frozen=True)
class Request:
    """One write as admission sees it: what, on which object, in which version."""

    kind: Kind
    operation: str
    """CREATE, UPDATE or DELETE."""
    obj: dict[str, Any] | None
    old: dict[str, Any] | None
    subresource: str | None = None
    dry_run: bool = False

    @property
    def meta(self) -> Mapping[str, Any]:
        return (self.obj or self.old or {}).get("metadata") or {}


@dataclass(frozen=True)
class Webhook:
    """One webhook of a configuration."""

    name: str
    mutating: bool
    path: str
    rules: tuple[Mapping[str, Any], ...]
    failure_policy: str = "Fail"
    match_policy: str = "Equivalent"
    side_effects: str = "None"
    object_selector: Mapping[str, Any] = field(default_factory=dict)
    namespace_selector: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def read(cls, configuration: Mapping[str, Any]) -> list[Webhook]:
        """The webhooks of a Mutating/ValidatingWebhookConfiguration document."""
        mutating = configuration.get("kind") == "MutatingWebhookConfiguration"
        found = []
        for webhook in configuration.get("webhooks") or ():
            client = webhook.get("clientConfig") or {}
            path = (client.get("service") or {}).get("path")
            if path is None:
                url = str(client.get("url") or "")
                path = "/" + url.split("://", 1)[-1].partition("/")[2]
            found.append(
                cls(
                    name=str(webhook["name"]),
                    mutating=mutating,
                    path=str(path or "/"),
                    rules=tuple(webhook.get("rules") or ()),
                    failure_policy=str(webhook.get("failurePolicy") or "Fail"),
                    match_policy=str(webhook.get("matchPolicy") or "Equivalent"),
                    side_effects=str(webhook.get("sideEffects") or "None"),
                    object_selector=webhook.get("objectSelector") or {},
                    namespace_selector=webhook.get("namespaceSelector") or {},
                )
            )
        return found

    def rule_matches(self, request: Request, version: str) -> bool:
        """Whether a rule takes `request` were it in `version` of its resource."""
        kind = request.kind
        resource = kind.plural + (
            f"/{request.subresource}" if request.subresource else ""
        )
        scope = "Namespaced" if kind.namespaced else "Cluster"
        return any(
            _listed(rule.get("operations"), request.operation)
            and _listed(rule.get("apiGroups"), kind.group)
            and _listed(rule.get("apiVersions"), version)
            and _resource_listed(rule.get("resources") or (), resource)
            and rule.get("scope", "*") in ("*", scope)
            for rule in self.rules
        )


def _listed(values: Iterable[str] | None, value: str) -> bool:
    listed = list(values or ())
    return "*" in listed or value in listed


def _resource_listed(patterns: Iterable[str], resource: str) -> bool:
    plural, _, sub = resource.partition("/")
    for pattern in patterns:
        wanted_plural, _, wanted_sub = pattern.partition("/")
        if wanted_plural not in ("*", plural):
            continue
        if wanted_sub == sub or (wanted_sub == "*" and sub):
            return True
        if pattern == "*/*":
            return True
    return False


def selector_matches(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """Whether `labels` satisfy a `LabelSelector` (an empty one takes everything)."""
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions") or ():
        key, operator = expression.get("key"), expression.get("operator")
        values = expression.get("values") or []
        present = key in labels
        if operator == "In" and not (present and labels[key] in values):
            return False
        if operator == "NotIn" and present and labels[key] in values:
            return False
        if operator == "Exists" and not present:
            return False
        if operator == "DoesNotExist" and present:
            return False
    return True


class Admission:
    """The webhooks of a server's configurations, called through `handlers`."""

    def __init__(
        self,
        server: MemoryApiServer,
        configurations: Iterable[Mapping[str, Any]],
        handlers: Handlers,
    ) -> None:
        self.server = server
        self.handlers = handlers
        self.webhooks = [w for c in configurations for w in Webhook.read(c)]
        self.warnings: list[str] = []
        """Every warning the webhooks gave (the server sends them as `Warning` headers)."""
        self._matched: dict[tuple[object, ...], list[tuple[Webhook, str]]] = {}
        self._matched_of = -1
        """The `Kinds.revision` `_matched` was worked out for."""

    def mutate(self, request: Request) -> dict[str, Any] | None:
        """The object after every matching mutating webhook (`request.obj` itself
        when none changed it)."""
        obj = request.obj
        for webhook, version in self._matching(request, mutating=True):
            current = Request(
                request.kind,
                request.operation,
                obj,
                request.old,
                request.subresource,
                request.dry_run,
            )
            obj = self._call(webhook, version, current)
        return obj

    def validate(self, request: Request) -> None:
        """Raise the refusal of the first validating webhook that refuses `request`."""
        for webhook, version in self._matching(request, mutating=False):
            self._call(webhook, version, request)

    # -- one call -----------------------------------------------------------

    def _matching(
        self, request: Request, *, mutating: bool
    ) -> list[tuple[Webhook, str]]:
        """The mutating (or validating) webhooks whose rules take the request,
        each with the version it sees the request in, in their order (worked
        out once for each kind, operation and subresource: most writes, of
        kinds no webhook takes, pay a lookup alone)."""
        kinds = self.server.kinds
        if self._matched_of != kinds.revision:
            self._matched.clear()
            self._matched_of = kinds.revision
        kind = request.kind
        key = (
            mutating,
            kind.group,
            kind.version,
            kind.plural,
            kind.namespaced,
            request.operation,
            request.subresource,
        )
        found = self._matched.get(key)
        if found is None:
            found = self._matched[key] = []
            for webhook in self.webhooks:
                version = None
                if webhook.mutating == mutating:
                    version = self._matched_version(webhook, request)
                if version is not None:
                    found.append((webhook, version))
        return found

    def _matched_version(self, webhook: Webhook, request: Request) -> str | None:
        kind = request.kind
        if webhook.rule_matches(request, kind.version):
            return kind.version
        if webhook.match_policy != "Equivalent":
            return None
        for other in self.server.versions.served(kind):
            if webhook.rule_matches(request, other.version):
                return other.version
        return None

    def _selected(self, webhook: Webhook, request: Request) -> bool:
        meta = request.meta
        if not selector_matches(webhook.object_selector, meta.get("labels") or {}):
            return False
        if not webhook.namespace_selector or not request.kind.namespaced:
            return True
        namespace = self.server.store.peek(  # only read
            ("", "v1", "namespaces"), "", meta.get("namespace", "")
        )
        labels = ((namespace or {}).get("metadata") or {}).get("labels") or {}
        return selector_matches(webhook.namespace_selector, labels)

    def _call(
        self, webhook: Webhook, version: str, request: Request
    ) -> dict[str, Any] | None:
        if not self._selected(webhook, request):
            return request.obj
        if request.dry_run and webhook.side_effects not in ("None", "NoneOnDryRun"):
            raise answers.bad_request(
                f'admission webhook "{webhook.name}" does not support dry run'
            )
        versions = self.server.versions
        seen = versions.kind_of(request.kind, version)
        obj = None if request.obj is None else versions.convert(request.obj, seen)
        old = None if request.old is None else versions.convert(request.old, seen)
        sent = _without_create_only(obj) if request.operation == "CREATE" else obj
        # the handler's own copies, as it would read them from the JSON sent:
        # what it does to them reaches neither the store nor the candidate
        review = _review(request, seen, json_copy(sent), json_copy(old))
        answer = self.handlers.review(webhook.path, review)
        response = _response(answer, review["request"]["uid"])
        if response is None:
            if webhook.failure_policy == "Ignore":
                return request.obj
            raise answers.status(
                500,
                "InternalError",
                f'Internal error occurred: failed calling webhook "{webhook.name}": '
                + _failure(webhook, answer),
            )
        self.warnings.extend(str(w) for w in response.get("warnings") or ())
        if not response.get("allowed"):
            raise _denied(webhook.name, response.get("status") or {})
        patch = response.get("patch")
        if not webhook.mutating or not patch or sent is None or request.obj is None:
            return request.obj
        try:
            patched = apply_patch(JSON_PATCH, sent, json.loads(base64.b64decode(patch)))
        except (PatchError, ValueError) as error:
            raise answers.status(
                500,
                "InternalError",
                f'Internal error occurred: the patch of webhook "{webhook.name}" '
                f"does not apply: {error}",
            ) from error
        if request.operation == "CREATE" and obj is not None:
            meta = patched.setdefault("metadata", {})
            for key in _CREATE_ONLY:
                if key in obj.get("metadata", {}):
                    meta[key] = obj["metadata"][key]
        return versions.convert(patched, request.kind)


def _without_create_only(obj: dict[str, Any] | None) -> dict[str, Any] | None:
    if obj is None:
        return None
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return obj
    # only read (encoded, patched into a copy): a shallow copy will do
    return {
        **obj,
        "metadata": {k: v for k, v in meta.items() if k not in _CREATE_ONLY},
    }


def _review(
    request: Request,
    kind: Kind,
    obj: dict[str, Any] | None,
    old: dict[str, Any] | None,
) -> dict[str, Any]:
    meta = request.meta
    asked = request.kind
    body: dict[str, Any] = {
        "uid": str(uuid.uuid4()),
        "kind": {"group": kind.group, "version": kind.version, "kind": kind.kind},
        "resource": {
            "group": kind.group,
            "version": kind.version,
            "resource": kind.plural,
        },
        "requestKind": {
            "group": asked.group,
            "version": asked.version,
            "kind": asked.kind,
        },
        "requestResource": {
            "group": asked.group,
            "version": asked.version,
            "resource": asked.plural,
        },
        "name": meta.get("name", ""),
        "operation": request.operation,
        "userInfo": ADMIN,
        "object": obj,
        "oldObject": old,
        "dryRun": request.dry_run,
        "options": {
            "apiVersion": "meta.k8s.io/v1",
            "kind": _OPTIONS[request.operation],
        },
    }
    if request.kind.namespaced:
        body["namespace"] = meta.get("namespace", "")
    if request.subresource:
        body["subResource"] = request.subresource
        body["requestSubResource"] = request.subresource
    return {
        "apiVersion": ADMISSION_API_VERSION,
        "kind": "AdmissionReview",
        "request": body,
    }


def _response(answer: Answer | None, uid: str) -> dict[str, Any] | None:
    """The review's response, when the answer is one for this request."""
    if answer is None or answer.status != 200:
        return None
    response = answer.document.get("response")
    if not isinstance(response, dict) or response.get("uid") != uid:
        return None
    return response


def _failure(webhook: Webhook, answer: Answer | None) -> str:
    if answer is None:
        return f"no handler is served at {webhook.path}"
    if answer.status != 200:
        return f"the server responded with the status code {answer.status}"
    return "the response is not an AdmissionReview of this request"


def _denied(name: str, status: Mapping[str, Any]) -> Refusal:
    """The API server's refusal for a webhook's `status` (webhookerrors.ToStatusErr)."""
    code = int(status.get("code") or 0)
    code = code if code >= 400 else 400
    denied = f'admission webhook "{name}" denied the request'
    message = status.get("message") or status.get("reason")
    text = f"{denied}: {message}" if message else f"{denied} without explanation"
    refusal = answers.status(
        code, str(status.get("reason") or ""), text, status.get("details")
    )
    if refusal.body is not None and not refusal.body.get("reason"):
        refusal.body.pop("reason")
    return refusal
