"""Typed errors for requests to the API server.

    ApiError            any non-2xx answer; .code, .reason, .message, .status (the Status body),
                        .retry_after (seconds, when the answer named them)
    ├── NotFound        404
    ├── Conflict        409 (optimistic-concurrency conflict: the object was modified)
    │   └── AlreadyExists   409 with reason AlreadyExists
    ├── Invalid         422; .causes lists the server's field causes
    └── Gone            410 (resourceVersion too old: relist)
    TransportError      no answer at all: refused, reset, timed out, cut off part-way

`from_response(code, body)` maps a response to the right class. The transport
raises `TransportError` for every failure of its HTTP client, whichever client
that is, so nothing above it sees the HTTP library's own exceptions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import msgspec

__all__ = [
    "AlreadyExists",
    "ApiError",
    "Cause",
    "Conflict",
    "Gone",
    "Invalid",
    "NotFound",
    "TransportError",
    "TransportFailure",
    "from_response",
    "from_status",
]


@dataclass(frozen=True)
class Cause:
    """One reason the server rejected an object (`status.details.causes[]`)."""

    field: str | None
    reason: str | None
    message: str | None


class ApiError(Exception):
    """The API server answered with an error status."""

    def __init__(
        self,
        code: int,
        message: str,
        *,
        reason: str = "",
        status: dict[str, Any] | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(
            f"{code} {reason}: {message}" if reason else f"{code}: {message}"
        )
        self.code = code
        self.reason = reason
        self.message = message
        self.status: dict[str, Any] = status or {}
        self.retry_after = retry_after
        """Seconds the server asked the client to wait before retrying (`Retry-After`)."""


class NotFound(ApiError):
    """404: the object (or its namespace) does not exist."""


class Conflict(ApiError):
    """409: the object changed since it was read; read it again and retry."""


class AlreadyExists(Conflict):
    """409 AlreadyExists: an object with this name already exists."""


class Gone(ApiError):
    """410: the requested resourceVersion is too old."""


class Invalid(ApiError):
    """422: the object failed validation; `causes` says which fields and why."""

    @property
    def causes(self) -> tuple[Cause, ...]:
        """The server's `status.details.causes`, in its order."""
        details = self.status.get("details") or {}
        return tuple(
            Cause(c.get("field"), c.get("reason"), c.get("message"))
            for c in details.get("causes") or ()
        )


TransportFailure = Literal["connect", "timeout", "disconnected", "protocol"]
"""Why a request got no answer: it could not connect (refused, DNS, TLS handshake);
it timed out (connecting, sending, or waiting between bytes of the answer); the
connection broke (reset, or closed before the answer was complete); or the
answer could not be read as HTTP."""


class TransportError(Exception):
    """A request got no answer from the API server (`failure` says why).

    Not a bug in the caller's code: the server is down, restarting or unreachable,
    and a later retry may work. A reconcile that raises it is retried with
    backoff and logged as one line, without a traceback."""

    def __init__(
        self, method: str, url: str, failure: TransportFailure, detail: str
    ) -> None:
        super().__init__(f"{method} {url}: {_FAILURES[failure]} ({detail})")
        self.method = method
        self.url = url
        """The request's URL without its query."""
        self.failure: TransportFailure = failure
        self.detail = detail
        """The HTTP client's own account of the failure."""


_FAILURES: dict[str, str] = {
    "connect": "cannot connect to the API server",
    "timeout": "the API server did not answer in time",
    "disconnected": "the connection to the API server broke",
    "protocol": "the API server's answer could not be read",
}


def from_status(
    status: dict[str, Any], code: int | None = None, *, retry_after: float | None = None
) -> ApiError:
    """The typed error for a `Status` object (from a response body or a watch ERROR event)."""
    code = int(status.get("code") or code or 500)
    reason = str(status.get("reason") or "")
    message = str(status.get("message") or "")
    cls: type[ApiError]
    if code == 404:
        cls = NotFound
    elif code == 409:
        cls = AlreadyExists if reason == "AlreadyExists" else Conflict
    elif code == 410 or reason in ("Expired", "Gone"):
        cls = Gone
    elif code == 422:
        cls = Invalid
    else:
        cls = ApiError
    return cls(code, message, reason=reason, status=status, retry_after=retry_after)


def from_response(
    code: int, body: bytes, *, retry_after: float | None = None
) -> ApiError:
    """The typed error for an HTTP error response (`retry_after`: its `Retry-After`)."""
    try:
        status = msgspec.json.decode(body)
    except msgspec.DecodeError:
        status = None
    if not isinstance(status, dict):
        status = {"code": code, "message": body.decode("utf-8", "replace")[:500]}
    return from_status(status, code, retry_after=retry_after)
