"""What the webhook handlers share: answers, refusals, and reading a review's body.

`Answer` is an HTTP status and the JSON document to send. `Denied` is what a
validator (or defaulter) raises to refuse a request, with `FieldError` causes
in the shape the API server gives its own validation errors. `read_json`
reads a body and `review_request` turns the document into the review's
`request` mapping, each raising a `BadReview` saying, for the 400 answer, what
is wrong with it (the memory server's in-process call hands the document over
as it is, with no JSON either way).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "Answer",
    "BadReview",
    "Denied",
    "FieldError",
    "read_json",
    "review_request",
]

_UNSET: Any = object()

FieldErrorType = Literal[
    "FieldValueInvalid",
    "FieldValueRequired",
    "FieldValueForbidden",
    "FieldValueNotSupported",
    "FieldValueDuplicate",
]
_DETAIL = {
    "FieldValueInvalid": "Invalid value",
    "FieldValueRequired": "Required value",
    "FieldValueForbidden": "Forbidden",
    "FieldValueNotSupported": "Unsupported value",
    "FieldValueDuplicate": "Duplicate value",
}


@dataclass(frozen=True)
class Answer:
    """An HTTP status and the JSON document the handler sends."""

    status: int
    document: dict[str, Any]


class BadReview(Exception):
    """The body is not a review this endpoint can answer (a 4xx, never a crash)."""

    def __init__(self, message: str, *, uid: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.uid = uid


@dataclass(frozen=True)
class FieldError:
    """One cause of a refusal, as the API server reports its own field errors.

    `field` is the wire path (`spec.workerReplicas`, `spec.groups[0].name`);
    the message the client sees is `<field>: Invalid value: <value>: <message>`
    for the default type.
    """

    field: str
    message: str
    value: Any = _UNSET
    type: FieldErrorType = "FieldValueInvalid"

    def body(self) -> str:
        """The cause's message without the field (apimachinery's `ErrorBody`)."""
        detail = _DETAIL[self.type]
        if self.value is not _UNSET and self.type in (
            "FieldValueInvalid",
            "FieldValueNotSupported",
            "FieldValueDuplicate",
        ):
            detail += f": {json.dumps(self.value, default=str)}"
        return f"{detail}: {self.message}" if self.message else detail

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}"


class Denied(Exception):
    """Refuse the admission request.

    With field causes the API server answers 422 Invalid, listing them (what
    `kubectl` prints as `The RayCluster "a" is invalid: spec.x: ...`);
    without, 403 Forbidden with `message`. `code` and `reason` override.
    """

    def __init__(
        self,
        message: str = "",
        *causes: FieldError,
        code: int | None = None,
        reason: str | None = None,
    ) -> None:
        super().__init__(message or "; ".join(str(c) for c in causes) or "denied")
        self.message = message
        self.causes: tuple[FieldError, ...] = causes
        self.code = code if code is not None else (422 if causes else 403)
        self.reason = reason or ("Invalid" if causes else "Forbidden")

    def status(self, *, kind: str, group: str, name: str) -> dict[str, Any]:
        """The `metav1.Status` of this refusal for the object `name` of `kind`."""
        status: dict[str, Any] = {
            "code": self.code,
            "reason": self.reason,
            "message": self._message(kind, group, name),
        }
        if self.causes:
            status["details"] = {
                "name": name,
                "group": group,
                "kind": kind,
                "causes": [
                    {"reason": c.type, "message": c.body(), "field": c.field}
                    for c in self.causes
                ],
            }
        return status

    def _message(self, kind: str, group: str, name: str) -> str:
        if self.message or not self.causes:
            return self.message or "denied"
        listed = [str(c) for c in self.causes]
        joined = listed[0] if len(listed) == 1 else f"[{', '.join(listed)}]"
        return f'{kind}.{group} "{name}" is invalid: {joined}'


def read_json(body: bytes) -> object:
    """The JSON document of a body; `BadReview` if it is no JSON."""
    try:
        return json.loads(body)
    except (ValueError, RecursionError) as error:
        raise BadReview(f"the body is not JSON: {error}") from None


def review_request(
    document: object, *, kind: str, api_versions: Sequence[str]
) -> Mapping[str, Any]:
    """The `request` of an AdmissionReview or ConversionReview document; `BadReview`
    if it has none."""
    if not isinstance(document, dict):
        raise BadReview(f"the body is not a JSON object but {type(document).__name__}")
    api_version = document.get("apiVersion")
    if document.get("kind") != kind or api_version not in api_versions:
        raise BadReview(
            f"expected a {kind} ({', '.join(api_versions)}), got "
            f"kind={document.get('kind')!r} apiVersion={api_version!r}"
        )
    request = document.get("request")
    if not isinstance(request, dict):
        raise BadReview(f"the {kind} has no request")
    uid = request.get("uid")
    if not isinstance(uid, str) or not uid:
        raise BadReview(f"the {kind}'s request has no uid")
    return request
