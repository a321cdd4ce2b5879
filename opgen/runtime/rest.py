"""The HTTP layer: lightkube's AsyncClient, raw bytes in and out, rate-limited and counted.

lightkube does config, auth (token re-read on 401, exec plugins) and TLS: its
configured httpx2 client sends every request. This module builds the URLs and
requests itself — cheaper per request than lightkube's and httpx's general
preparation — so that it can ask for what lightkube's API cannot
(`allowWatchBookmarks`, delete preconditions, patches on subresources of
kinds defined by Pydantic models), keep bodies as bytes for the cache, and
map error responses to `opgen.runtime.errors`. Every request passes a
client-side token bucket (QPS/burst) and is counted per verb, both in
`RestClient.counts` and in `rest_client_requests_total`.
"""

from __future__ import annotations

import collections
import logging
import urllib.parse
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import lightkube
from lightkube.config.kubeconfig import KubeConfig

from opgen.runtime import errors, ratelimit
from opgen.runtime.metrics import Metrics
from opgen.runtime.resources import ResourceType

__all__ = ["WRITE_VERBS", "RestClient", "lightkube_client", "quiet_request_logs"]

REQUEST_TIMEOUT = 30.0

WRITE_VERBS = frozenset({"create", "update", "patch", "delete", "deletecollection"})

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

USER_AGENT = "opgen-runtime"


def _keep_connections_alive(http: httpx2.AsyncClient) -> None:
    """Keep every pooled connection alive, not httpx's default 20: a controller talks to
    one API server, and with more concurrent workers than that each extra request would
    pay a fresh TLS handshake (on both ends)."""
    pool = getattr(getattr(http, "_transport", None), "_pool", None)
    if pool is not None and hasattr(pool, "_max_keepalive_connections"):
        pool._max_keepalive_connections = max(
            pool._max_keepalive_connections, getattr(pool, "_max_connections", 0) or 0
        )


def _group_path(rtype: ResourceType[Any]) -> str:
    if rtype.group:
        return f"/apis/{rtype.group}/{rtype.version}"
    return f"/api/{rtype.version}"


def _segment(value: str) -> str:
    return urllib.parse.quote(value, safe=":@")


class _RequestLogsAtDebug(logging.Filter):
    """httpx2 logs every request at INFO; a manager sends thousands. Demote them to
    DEBUG: kept (relabelled) when the `httpx2` logger is enabled for DEBUG, else dropped.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.INFO:
            return True
        if not logging.getLogger(record.name).isEnabledFor(logging.DEBUG):
            return False
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return True


_REQUEST_LOG_FILTER = _RequestLogsAtDebug()


def quiet_request_logs() -> None:
    """Log the HTTP client's per-request lines at DEBUG instead of INFO (idempotent)."""
    logger = logging.getLogger("httpx2")
    if _REQUEST_LOG_FILTER not in logger.filters:
        logger.addFilter(_REQUEST_LOG_FILTER)


class RestClient:
    """Sends requests for a `ResourceType`; bodies and answers are raw JSON bytes."""

    def __init__(
        self,
        client: lightkube.AsyncClient,
        *,
        qps: float = 20.0,
        burst: int = 30,
        metrics: Metrics | None = None,
    ) -> None:
        self.lightkube = client
        self._generic: Any = client._client  # lightkube's GenericAsyncClient
        self._http: httpx2.AsyncClient = self._generic._client
        self._bucket = ratelimit.TokenBucket(qps, burst) if qps > 0 else None
        self.metrics = metrics if metrics is not None else Metrics()
        self._host = str(self._http.base_url.host)
        self._base = str(self._http.base_url).rstrip("/")
        self._headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        self._headers.update(
            {
                k: v
                for k, v in self._http.headers.items()
                if k.lower() == "authorization"
            }
        )
        self._field_manager: str | None = self._generic._field_manager
        _keep_connections_alive(self._http)
        self._dry_run: bool = bool(getattr(self._generic, "_dry_run", False))
        self.counts: collections.Counter[str] = collections.Counter()

    @property
    def default_namespace(self) -> str:
        return str(self._generic.namespace or "default")

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

    def _url(
        self,
        verb: str,
        rtype: ResourceType[Any],
        name: str | None,
        namespace: str | None,
        subresource: str | None,
        params: Mapping[str, Any] | None,
    ) -> str:
        """The request URL, built directly (lightkube's and httpx's general request
        preparation cost more than the request itself on a busy controller)."""
        if rtype.namespaced:
            if namespace is None and verb not in ("list", "watch"):
                raise ValueError(f"{rtype.kind} is namespaced: give a namespace")
        elif namespace is not None:
            raise ValueError(f"{rtype.kind} is cluster-scoped: it has no namespace")
        if verb == "update" and name is None:
            raise ValueError("update needs a name")
        parts = [self._base, _group_path(rtype)]
        if namespace is not None:
            parts.append(f"/namespaces/{_segment(namespace)}")
        parts.append(f"/{rtype.plural}")
        if name is not None:
            parts.append(f"/{_segment(name)}")
        if subresource:
            parts.append(f"/{subresource}")
        query = {k: _param(v) for k, v in (params or {}).items() if v is not None}
        if verb == "watch":
            query["watch"] = "true"
        if verb in ("create", "update", "patch"):
            if self._field_manager and "fieldManager" not in query:
                query["fieldManager"] = self._field_manager
            if self._dry_run and "dryRun" not in query:
                query["dryRun"] = "All"
        if query:
            parts.append("?" + urllib.parse.urlencode(query))
        return "".join(parts)

    def _build(
        self,
        verb: str,
        url: str,
        body: bytes | None,
        content_type: str | None,
        timeout: httpx2.Timeout | None = None,
    ) -> httpx2.Request:
        headers = dict(self._headers)
        if body is not None:
            headers["Content-Type"] = content_type or "application/json"
        return httpx2.Request(
            _METHODS[verb],
            url,
            content=body,
            headers=headers,
            extensions={"timeout": (timeout or self._http.timeout).as_dict()},
        )

    async def _throttle(self, verb: str) -> None:
        if self._bucket is not None:
            await self._bucket.acquire()
        self.counts[verb] += 1

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
    ) -> bytes:
        """Send one request and return the response body; raises `errors.ApiError` subclasses."""
        request = self._build(
            verb,
            self._url(verb, rtype, name, namespace, subresource, params),
            body,
            content_type,
        )
        await self._throttle(verb)
        response = await self._http.send(request)
        self.metrics.rest_requests.labels(
            str(response.status_code), request.method, self._host
        ).inc()
        if response.status_code >= 400:
            raise errors.from_response(response.status_code, response.content)
        return response.content

    @asynccontextmanager
    async def stream(
        self,
        rtype: ResourceType[Any],
        *,
        namespace: str | None,
        params: Mapping[str, Any],
        read_timeout: float | None,
    ) -> AsyncIterator[AsyncIterator[str]]:
        """Open a watch; yields an iterator over its lines. Error answers raise before yielding."""
        timeout = httpx2.Timeout(self._http.timeout.connect, read=read_timeout)
        request = self._build(
            "watch",
            self._url("watch", rtype, None, namespace, None, params),
            None,
            None,
            timeout,
        )
        await self._throttle("watch")
        response = await self._http.send(request, stream=True)
        try:
            self.metrics.rest_requests.labels(
                str(response.status_code), "WATCH", self._host
            ).inc()
            if response.status_code >= 400:
                raise errors.from_response(response.status_code, await response.aread())
            yield response.aiter_lines()
        finally:
            await response.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()


def lightkube_client(
    kubeconfig: str | Path | None = None, *, context: str | None = None
) -> lightkube.AsyncClient:
    """A lightkube client for a kubeconfig file; without one: in-cluster (service
    account), else `$KUBECONFIG`, else `~/.kube/config`."""
    config = (
        KubeConfig.from_file(kubeconfig)
        if kubeconfig is not None
        else KubeConfig.from_env()
    )
    return lightkube.AsyncClient(
        config.get(context_name=context), timeout=httpx2.Timeout(REQUEST_TIMEOUT)
    )


def _param(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
