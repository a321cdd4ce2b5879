"""Error answers in the API server's `Status` shape (`kind: Status`, reason, details, causes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from opgen.testing.memory.kinds import Kind

__all__ = [
    "PAGE_NOT_FOUND",
    "STALE",
    "Cause",
    "Refusal",
    "already_exists",
    "bad_request",
    "conflict",
    "invalid",
    "method_not_allowed",
    "namespace_not_found",
    "namespace_terminating",
    "not_found",
    "page_not_found",
    "status",
    "undecodable",
    "unsupported_media_type",
]


@dataclass(frozen=True)
class Cause:
    """One field error of a 422: `spec.replicas`, `FieldValueInvalid`, its message."""

    field: str
    reason: str
    message: str

    def body(self) -> dict[str, str]:
        return {"reason": self.reason, "message": self.message, "field": self.field}


class Refusal(Exception):
    """A request the server refuses: the HTTP status and the `Status` body it
    answers (None: the plain-text `404 page not found` of a path no API serves)."""

    def __init__(self, code: int, body: dict[str, Any] | None) -> None:
        super().__init__(body.get("message", "") if body else "404 page not found")
        self.code = code
        self.body = body


PAGE_NOT_FOUND = b"404 page not found\n"


def page_not_found() -> Refusal:
    return Refusal(404, None)


def status(
    code: int, reason: str, message: str, details: dict[str, Any] | None = None
) -> Refusal:
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }
    if details is not None:
        body["details"] = details
    return Refusal(code, body)


def _details(kind: Kind, name: str, noun: str) -> dict[str, Any]:
    details: dict[str, Any] = {"name": name}
    if kind.group:
        details["group"] = kind.group
    details["kind"] = noun
    return details


def not_found(kind: Kind, name: str) -> Refusal:
    return status(
        404,
        "NotFound",
        f'{kind.resource} "{name}" not found',
        _details(kind, name, kind.plural),
    )


def namespace_not_found(namespace: str) -> Refusal:
    return status(
        404,
        "NotFound",
        f'namespaces "{namespace}" not found',
        {"name": namespace, "kind": "namespaces"},
    )


def namespace_terminating(kind: Kind, name: str, namespace: str) -> Refusal:
    """A 403: no new object in a namespace being deleted."""
    details = _details(kind, name, kind.plural)
    details["causes"] = [
        Cause(
            "metadata.namespace",
            "NamespaceTerminating",
            f"namespace {namespace} is being terminated",
        ).body()
    ]
    return status(
        403,
        "Forbidden",
        f'{kind.resource} "{name}" is forbidden: unable to create new content in '
        f"namespace {namespace} because it is being terminated",
        details,
    )


def already_exists(kind: Kind, name: str, *, deleting: bool = False) -> Refusal:
    """A 409 AlreadyExists; `deleting`: the object in the way is being deleted."""
    prefix = "object is being deleted: " if deleting else ""
    return status(
        409,
        "AlreadyExists",
        f'{prefix}{kind.resource} "{name}" already exists',
        _details(kind, name, kind.plural),
    )


def conflict(kind: Kind, name: str, why: str, noun: str | None = None) -> Refusal:
    """A 409 Conflict; it names the kind by `noun` (the plural unless given)."""
    noun = noun or kind.plural
    named = f"{noun}.{kind.group}" if kind.group else noun
    return status(
        409,
        "Conflict",
        f'Operation cannot be fulfilled on {named} "{name}": {why}',
        _details(kind, name, noun),
    )


STALE = (
    "the object has been modified; please apply your changes to the latest "
    "version and try again"
)


def invalid(
    kind: Kind, name: str, causes: list[Cause], named: str | None = None
) -> Refusal:
    """A 422: `named` is the kind the body said it was (the message names it)."""
    # the message says each cause once, though the server may list one twice
    listed = list(
        dict.fromkeys(
            f"{c.field}: {c.message}" if c.field else c.message for c in causes
        )
    )
    summary = listed[0] if len(listed) == 1 else f"[{', '.join(listed)}]"
    noun = named or kind.kind
    details = _details(kind, name, noun)
    if not name:
        del details["name"]
    details["causes"] = [cause.body() for cause in causes]
    qualified = f"{noun}.{kind.group}" if kind.group else noun
    return status(
        422, "Invalid", f'{qualified} "{name}" is invalid: {summary}', details
    )


def undecodable(kind: Kind, cause: Cause, parent: str) -> Refusal:
    """The 400 of a built-in's body that does not decode (a string for an integer)."""
    actual = cause.message.split('"')[1] if '"' in cause.message else "value"
    return bad_request(
        f'{kind.kind} in version "{kind.version}" cannot be handled as a {kind.kind}: '
        f"json: cannot unmarshal {actual} into Go struct field {parent}.{cause.field}"
    )


def bad_request(message: str) -> Refusal:
    return status(400, "BadRequest", message)


def unsupported_media_type(content_type: str | None) -> Refusal:
    return status(
        415,
        "UnsupportedMediaType",
        f"the body of the request was in an unknown format - accepted media types "
        f"include: application/json-patch+json, application/merge-patch+json "
        f"(the memory server does not serve {content_type or 'none'})",
    )


def method_not_allowed(method: str) -> Refusal:
    return status(
        405, "MethodNotAllowed", f"the server does not allow this method ({method})"
    )
