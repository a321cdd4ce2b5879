"""Faults on demand: answers a memory server gives instead of doing the request.

A test covers its retry paths without a real outage: `server.faults.add(
Fault(429, method="GET", retry_after=1))` answers the next matching request
429 Too Many Requests with `Retry-After: 1`; `times` says how many requests
it answers (None: every one until `clear()`); `delay` (seconds) makes the
matching requests slow instead, or as well. Dropped watches are
`server.store.close_watches()`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Fault", "Faults"]

_REASONS = {
    409: "Conflict",
    429: "TooManyRequests",
    500: "InternalError",
    503: "ServiceUnavailable",
    504: "Timeout",
}


@dataclass
class Fault:
    """An answer to give to matching requests: `code` (None: only `delay`)."""

    code: int | None = None
    method: str | None = None
    """`GET`, `PUT`, ... (None: any); a watch is `WATCH`."""
    path: str = ""
    """A regular expression searched in the path (with its query)."""
    retry_after: int | None = None
    times: int | None = 1
    delay: float = 0.0
    message: str = "injected by the memory server's faults"
    answered: int = field(default=0, init=False)

    def matches(self, method: str, path: str) -> bool:
        return (
            (self.method is None or self.method == method)
            and re.search(self.path, path) is not None
            and (self.times is None or self.answered < self.times)
        )

    def body(self) -> dict[str, Any]:
        assert self.code is not None
        return {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": _REASONS.get(self.code, "InternalError"),
            "code": self.code,
        }

    def headers(self) -> dict[str, str]:
        headers = {"content-type": "application/json"}
        if self.retry_after is not None:
            headers["retry-after"] = str(self.retry_after)
        return headers


class Faults:
    """The faults a server holds, first added first matched."""

    def __init__(self) -> None:
        self._faults: list[Fault] = []

    def add(self, fault: Fault) -> Fault:
        self._faults.append(fault)
        return fault

    def clear(self) -> None:
        self._faults.clear()

    def take(self, method: str, path: str) -> Fault | None:
        """The fault that answers this request (counted as answered), if any."""
        for fault in self._faults:
            if fault.matches(method, path):
                fault.answered += 1
                return fault
        return None
