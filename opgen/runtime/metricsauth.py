"""Who may scrape `/metrics`: Kubernetes authentication and authorisation of the caller.

The caller's bearer token is checked with a TokenReview (authentication.k8s.io/v1);
the user it names must be allowed `get` on the request's non-resource URL
(`/metrics`) by a SubjectAccessReview (authorization.k8s.io/v1) — what
Kubebuilder's default metrics server does, and what the scaffold's
`metrics-auth-role` (create tokenreviews and subjectaccessreviews) and
`metrics-reader` (get /metrics) ClusterRoles are for. No token or a token the
server rejects: 401; a user without the permission: 403. Answers are cached as
controller-runtime caches them (authenticated 1 min; allowed 5 min, denied 30 s).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from opgen.runtime import errors
from opgen.runtime.probes import Request, Response
from opgen.runtime.resources import resource_type
from opgen.runtime.rest import RestClient
from opgen.runtime.transport import TransportError

__all__ = ["Authenticated", "MetricsAuth"]

log = logging.getLogger("opgen.runtime.metricsauth")

AUTHENTICATED_TTL = 60.0
ALLOWED_TTL = 300.0
DENIED_TTL = 30.0
MAX_CACHED = 1024

_TEXT = "text/plain; charset=utf-8"


@dataclass(frozen=True)
class Authenticated:
    """The user a TokenReview names."""

    username: str
    uid: str | None = None
    groups: tuple[str, ...] = ()
    extra: dict[str, list[str]] = field(default_factory=dict)


class _TtlCache:
    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._entries: dict[Any, tuple[float, Any]] = {}

    def get(self, key: Any) -> Any:
        entry = self._entries.get(key)
        if entry is None:
            return None
        expires, value = entry
        if expires <= self._clock():
            del self._entries[key]
            return None
        return value

    def put(self, key: Any, value: Any, ttl: float) -> None:
        if ttl <= 0:
            return
        if len(self._entries) >= MAX_CACHED:
            now = self._clock()
            self._entries = {k: e for k, e in self._entries.items() if e[0] > now}
            if len(self._entries) >= MAX_CACHED:
                self._entries.clear()
        self._entries[key] = (self._clock() + ttl, value)


class MetricsAuth:
    """A `probes.Guard`: authenticates and authorises each request against the API server."""

    def __init__(
        self, rest: RestClient, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rest = rest
        self._users = _TtlCache(clock)
        self._decisions = _TtlCache(clock)

    async def __call__(self, request: Request) -> Response | None:
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            return Response(401, _TEXT, b"Unauthorized: a bearer token is required\n")
        try:
            user = await self.authenticate(token)
            if user is None:
                return Response(
                    401, _TEXT, b"Unauthorized: the token was not accepted\n"
                )
            verb = request.method.lower()
            if verb == "head":
                verb = "get"
            if not await self.authorize(user, verb, request.path):
                message = (
                    f'Forbidden: user "{user.username}" may not {verb} {request.path}\n'
                )
                return Response(403, _TEXT, message.encode())
        except (errors.ApiError, TransportError) as error:
            log.warning("cannot check a metrics request with the API server: %s", error)
            return Response(
                500, _TEXT, b"Internal Server Error: authentication unavailable\n"
            )
        return None

    async def authenticate(self, token: str) -> Authenticated | None:
        """The user the token belongs to, or None when the API server rejects it."""
        key = hashlib.sha256(token.encode()).hexdigest()
        cached = self._users.get(key)
        if cached is not None:
            return cached  # type: ignore[no-any-return]
        body = {
            "apiVersion": "authentication.k8s.io/v1",
            "kind": "TokenReview",
            "spec": {"token": token},
        }
        # imported here: only a manager serving authenticated metrics loads these models
        from opgen.api.k8s.authentication_v1 import TokenReview

        raw = await self.rest.request(
            "create", resource_type(TokenReview), body=msgspec.json.encode(body)
        )
        status = msgspec.json.decode(raw).get("status") or {}
        if not status.get("authenticated"):
            return None
        user = status.get("user") or {}
        result = Authenticated(
            username=str(user.get("username", "")),
            uid=user.get("uid"),
            groups=tuple(user.get("groups") or ()),
            extra=dict(user.get("extra") or {}),
        )
        self._users.put(key, result, AUTHENTICATED_TTL)
        return result

    async def authorize(self, user: Authenticated, verb: str, path: str) -> bool:
        """Whether `user` may `verb` the non-resource URL `path`."""
        key = (user.username, user.uid, user.groups, verb, path)
        cached = self._decisions.get(key)
        if cached is not None:
            return bool(cached)
        spec: dict[str, Any] = {
            "user": user.username,
            "groups": list(user.groups),
            "nonResourceAttributes": {"path": path, "verb": verb},
        }
        if user.uid:
            spec["uid"] = user.uid
        if user.extra:
            spec["extra"] = user.extra
        body = {
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SubjectAccessReview",
            "spec": spec,
        }
        from opgen.api.k8s.authorization_v1 import SubjectAccessReview

        raw = await self.rest.request(
            "create",
            resource_type(SubjectAccessReview),
            body=msgspec.json.encode(body),
        )
        allowed = bool((msgspec.json.decode(raw).get("status") or {}).get("allowed"))
        self._decisions.put(key, allowed, ALLOWED_TTL if allowed else DENIED_TTL)
        return allowed
