"""Requests for kinds: URLs, client-side QPS/burst, field manager, request counts.

`RestClient` turns "create this Widget in namespace ns" into a method, a path
and a body, and hands them to a transport (`seams.Transport`: the HTTP one of
`opgen.runtime.transport`, or a test's own). Building URLs here — cheaper than
a general client's request preparation — lets the runtime ask for what lightkube's API cannot
(`allowWatchBookmarks`, delete preconditions, patches on subresources of kinds
defined by Pydantic models), keep bodies as bytes for the cache, and map error
answers to `opgen.runtime.errors`. Every write carries the configured field
manager (`ClientOptions.field_manager`). Every request passes a client-side
token bucket (QPS/burst) and is counted per verb, both in `RestClient.counts`
and in `rest_client_requests_total` — by the answer's status code, or, as
client-go counts them, `code="<error>"` when the request got no answer
(`errors.TransportError`).

A read may ask for metadata only (`accept=METADATA_LIST_ACCEPT` on a list,
`METADATA_ACCEPT` on a get or a watch), as controller-runtime's metadata client
does: the API server answers `PartialObjectMetadataList` and
`PartialObjectMetadata` (`meta.k8s.io/v1`: each object's `metadata` alone),
or, if it cannot, the objects whole.

An answer of 429, or of 5xx, that names a `Retry-After` is retried after that
many seconds (at most `MAX_RETRY_WAIT`), up to `MAX_RETRIES` times, as
client-go's REST client does; the error that ends the retries carries
`retry_after`, so the controller's backoff can respect it.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import re
import urllib.parse
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from opgen.runtime import errors, ratelimit
from opgen.runtime.metrics import CounterSeries, Metrics
from opgen.runtime.resources import ResourceType
from opgen.runtime.seams import Answer, parse_retry_after
from opgen.runtime.seams import Transport as TransportProtocol
from opgen.runtime.transport import DEFAULT_TIMEOUT, ConfigSource, Transport

__all__ = [
    "DEFAULT_FIELD_MANAGER",
    "MAX_RETRIES",
    "MAX_RETRY_WAIT",
    "METADATA_ACCEPT",
    "METADATA_LIST_ACCEPT",
    "NO_ANSWER",
    "WRITE_VERBS",
    "ClientOptions",
    "RestClient",
]

log = logging.getLogger("opgen.runtime.rest")

DEFAULT_FIELD_MANAGER = "opgen"

MAX_RETRIES = 10
"""Retries of a request the server answered with a `Retry-After` (client-go's)."""

MAX_RETRY_WAIT = 10.0
"""The longest wait a `Retry-After` is honoured with, in seconds."""

WRITE_VERBS = frozenset({"create", "update", "patch", "delete", "deletecollection"})

_FIELD_MANAGED_VERBS = frozenset({"create", "update", "patch"})

NO_ANSWER = "<error>"
"""`rest_client_requests_total`'s code for a request that got no answer (client-go's)."""

METADATA_LIST_ACCEPT = (
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
)
"""A list's `Accept` for its objects' metadata alone (a `PartialObjectMetadataList`);
the server that cannot answers the objects whole."""

METADATA_ACCEPT = (
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
)
"""A get's or a watch's `Accept` for the metadata alone (`PartialObjectMetadata`)."""

_METHODS = {
    "get": "GET",
    "list": "GET",
    "watch": "GET",
    "create": "POST",
    "update": "PUT",
    "patch": "PATCH",
    "delete": "DELETE",
    "deletecollection": "DELETE",
}


@dataclass(frozen=True)
class ClientOptions:
    """How the runtime talks to the API server; defaults as controller-runtime's."""

    qps: float = 20.0
    """Client-side request rate (token bucket refill per second); 0 disables the limit. Default 20."""
    burst: int = 30
    """Client-side burst. Default 30."""
    field_manager: str = DEFAULT_FIELD_MANAGER
    """The field manager every create, update, patch and apply is recorded under
    (`metadata.managedFields[*].manager`). Default "opgen"."""
    timeout: float = DEFAULT_TIMEOUT
    """Seconds a request may take to connect, send, and between bytes of the answer
    (watches use the cache's `read_timeout`). Default 30."""


def _group_path(rtype: ResourceType[Any]) -> str:
    if rtype.group:
        return f"/apis/{rtype.group}/{rtype.version}"
    return f"/api/{rtype.version}"


_UNQUOTED = re.compile(r"[A-Za-z0-9_.~:@-]*")
"""What `_segment` sends as it is: every object name and namespace the API server
accepts (DNS labels and subdomains) is made of these."""


def _segment(value: str) -> str:
    if _UNQUOTED.fullmatch(value):
        return value
    return urllib.parse.quote(value, safe=":@")


class RestClient:
    """Sends requests for a `ResourceType`; bodies and answers are raw JSON bytes."""

    def __init__(
        self,
        transport: TransportProtocol,
        options: ClientOptions | None = None,
        *,
        metrics: Metrics | None = None,
    ) -> None:
        self.transport = transport
        self.options = options or ClientOptions()
        qps, burst = self.options.qps, self.options.burst
        self._bucket = ratelimit.TokenBucket(qps, burst) if qps > 0 else None
        self.metrics = metrics if metrics is not None else Metrics()
        self.counts: collections.Counter[str] = collections.Counter()
        self._m_requests: dict[tuple[int | str, str], CounterSeries] = {}
        self._manager_query = "?" + urllib.parse.urlencode(
            {"fieldManager": self.options.field_manager}
        )

    @classmethod
    def from_kubeconfig(
        cls,
        source: ConfigSource = None,
        options: ClientOptions | None = None,
        *,
        context: str | None = None,
        metrics: Metrics | None = None,
    ) -> RestClient:
        """A REST client for a kubeconfig (see `transport.ConfigSource`)."""
        options = options or ClientOptions()
        transport = Transport.from_kubeconfig(
            source, context=context, timeout=options.timeout
        )
        return cls(transport, options, metrics=metrics)

    @property
    def field_manager(self) -> str:
        return self.options.field_manager

    @property
    def default_namespace(self) -> str:
        return self.transport.namespace

    def namespace_for(
        self, rtype: ResourceType[Any], namespace: str | None
    ) -> str | None:
        """Where a request about one object of `rtype` goes: no namespace for a
        cluster-scoped kind; else `namespace`, or the kubeconfig's default."""
        if not rtype.namespaced:
            return None
        return namespace or self.default_namespace

    @property
    def writes(self) -> int:
        """How many write requests (create, update, patch, delete) were sent."""
        return sum(n for verb, n in self.counts.items() if verb in WRITE_VERBS)

    def path(
        self,
        verb: str,
        rtype: ResourceType[Any],
        name: str | None,
        namespace: str | None,
        subresource: str | None,
        params: Mapping[str, Any] | None,
    ) -> str:
        """The request's path and query; writes carry the field manager unless given one."""
        if rtype.namespaced:
            if namespace is None and verb not in ("list", "watch"):
                raise ValueError(f"{rtype.kind} is namespaced: give a namespace")
        elif namespace is not None:
            raise ValueError(f"{rtype.kind} is cluster-scoped: it has no namespace")
        if verb == "update" and name is None:
            raise ValueError("update needs a name")
        parts = [_group_path(rtype)]
        if namespace is not None:
            parts.append(f"/namespaces/{_segment(namespace)}")
        parts.append(f"/{rtype.plural}")
        if name is not None:
            parts.append(f"/{_segment(name)}")
        if subresource:
            parts.append(f"/{subresource}")
        query = (
            {k: _param(v) for k, v in params.items() if v is not None}
            if params
            else None
        )
        if not query:  # the common case, without encoding a query
            if verb in _FIELD_MANAGED_VERBS:
                parts.append(self._manager_query)
            elif verb == "watch":
                parts.append("?watch=true")
            return "".join(parts)
        if verb == "watch":
            query["watch"] = "true"
        if verb in _FIELD_MANAGED_VERBS:
            query.setdefault("fieldManager", self.options.field_manager)
        parts.append("?" + urllib.parse.urlencode(query))
        return "".join(parts)

    async def _throttle(self, verb: str) -> None:
        if self._bucket is not None:
            await self._bucket.acquire()
        self.counts[verb] += 1

    def _count(self, code: int | str, method: str) -> None:
        key = (code, method)
        child = self._m_requests.get(key)
        if child is None:
            child = self._m_requests[key] = self.metrics.rest_requests.labels(
                str(code), method, self.transport.host
            )
        child.inc()

    async def request(
        self,
        verb: str,
        rtype: ResourceType[Any],
        *,
        name: str | None = None,
        namespace: str | None = None,
        subresource: str | None = None,
        params: Mapping[str, Any] | None = None,
        body: bytes | None = None,
        content_type: str | None = None,
        accept: str | None = None,
    ) -> bytes:
        """Send one request and return the response body; raises `errors.ApiError`
        subclasses. `accept`: the `Accept` header (None: JSON; `METADATA_ACCEPT`...)."""
        path = self.path(verb, rtype, name, namespace, subresource, params)
        method = _METHODS[verb]
        bucket, counts = self._bucket, self.counts
        for retries in range(MAX_RETRIES + 1):
            # `_throttle`, inline: no coroutine per request when no wait is due
            if bucket is not None:
                delay = bucket.reserve()
                if delay > 0:
                    await asyncio.sleep(delay)
            counts[verb] += 1
            try:
                if accept is None:
                    answer = await self.transport.send(
                        method, path, body=body, content_type=content_type
                    )
                else:
                    answer = await self.transport.send(
                        method,
                        path,
                        body=body,
                        content_type=content_type,
                        accept=accept,
                    )
            except errors.TransportError:
                self._count(NO_ANSWER, method)
                raise
            # `_count`, inline: once per request
            key = (answer.status, method)
            series = self._m_requests.get(key)
            if series is None:
                series = self._m_requests[key] = self.metrics.rest_requests.labels(
                    str(answer.status), method, self.transport.host
                )
            series.inc()
            if answer.status < 400:
                return answer.body
            wait = _retry_wait(answer)
            if wait is None or retries == MAX_RETRIES:
                break
            log.debug(
                "%s %s: %d, retrying in %.3gs (Retry-After)",
                method,
                path.partition("?")[0],
                answer.status,
                wait,
            )
            await asyncio.sleep(wait)
        raise errors.from_response(
            answer.status, answer.body, retry_after=answer.retry_after
        )

    @asynccontextmanager
    async def stream(
        self,
        rtype: ResourceType[Any],
        *,
        namespace: str | None,
        params: Mapping[str, Any],
        read_timeout: float | None,
        accept: str | None = None,
    ) -> AsyncIterator[AsyncIterator[str]]:
        """Open a watch; yields an iterator over its lines. Error answers raise before
        yielding. `accept`: the `Accept` header (None: JSON; `METADATA_ACCEPT`)."""
        path = self.path("watch", rtype, None, namespace, None, params)
        await self._throttle("watch")
        answered = False
        opening = (
            self.transport.stream("GET", path, read_timeout=read_timeout)
            if accept is None
            else self.transport.stream(
                "GET", path, read_timeout=read_timeout, accept=accept
            )
        )
        try:
            async with opening as answer:
                answered = True
                self._count(answer.status, "WATCH")
                if answer.status >= 400:
                    raise errors.from_response(
                        answer.status,
                        await answer.read(),
                        retry_after=parse_retry_after(
                            answer.headers.get("retry-after")
                        ),
                    )
                yield answer.lines()
        except errors.TransportError:
            if not answered:
                self._count(NO_ANSWER, "WATCH")
            raise

    async def aclose(self) -> None:
        await self.transport.aclose()


def _retry_wait(answer: Answer) -> float | None:
    """How long to wait before sending a request again (None: do not), as client-go:
    only a 429 or 5xx answer that names a `Retry-After`."""
    if answer.status != 429 and answer.status < 500:
        return None
    seconds = answer.retry_after
    return None if seconds is None else min(seconds, MAX_RETRY_WAIT)


def _param(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
