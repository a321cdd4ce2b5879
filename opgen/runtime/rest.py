"""The HTTP layer: lightkube's AsyncClient, raw bytes in and out, rate-limited and counted.

lightkube does config, auth (token re-read on 401, exec plugins), TLS and URL
preparation (`GenericAsyncClient.prepare_request`); this module sends the
prepared requests itself so that it can ask for what lightkube's API cannot
(`allowWatchBookmarks`, delete preconditions, patches on subresources of
kinds defined by Pydantic models), keep bodies as bytes for the cache, and
map error responses to `opgen.runtime.errors`. Every request passes a
client-side token bucket (QPS/burst) and is counted per verb, both in
`RestClient.counts` and in `rest_client_requests_total`.
"""

from __future__ import annotations

import collections
import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import lightkube
import msgspec
from lightkube.config.kubeconfig import KubeConfig
from lightkube.core.generic_client import ALL_NS

from opgen.runtime import errors, ratelimit
from opgen.runtime.metrics import Metrics
from opgen.runtime.resources import ResourceType

__all__ = ["WRITE_VERBS", "RestClient", "lightkube_client", "quiet_request_logs"]

REQUEST_TIMEOUT = 30.0

WRITE_VERBS = frozenset({"create", "update", "patch", "delete", "deletecollection"})

# lightkube's prepare_request method names for each verb
_LK_METHOD = {
    "get": "get",
    "list": "list",
    "watch": "list",
    "create": "post",
    "update": "put",
    "patch": "patch",
    "delete": "delete",
    "deletecollection": "deletecollection",
}


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


class _Placeholder:
    """Stands in for the body object lightkube's prepare_request inspects on post/put."""

    class _Meta:
        namespace = None
        name = None

    metadata = _Meta()


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
        self.counts: collections.Counter[str] = collections.Counter()

    @property
    def default_namespace(self) -> str:
        return str(self._generic.namespace or "default")

    @property
    def writes(self) -> int:
        """How many write requests (create, update, patch, delete) were sent."""
        return sum(n for verb, n in self.counts.items() if verb in WRITE_VERBS)

    def _prepare(
        self,
        verb: str,
        rtype: ResourceType[Any],
        *,
        name: str | None,
        namespace: str | None,
        subresource: str | None,
        params: Mapping[str, Any] | None,
        content_type: str | None,
    ) -> Any:
        res = (
            rtype.lightkube_subresource(subresource)
            if subresource
            else rtype.lightkube_class
        )
        method = _LK_METHOD[verb]
        if rtype.namespaced:
            ns = (
                ALL_NS if namespace is None and verb in ("list", "watch") else namespace
            )
            if ns is None:
                raise ValueError(f"{rtype.kind} is namespaced: give a namespace")
        else:
            if namespace is not None:
                raise ValueError(f"{rtype.kind} is cluster-scoped: it has no namespace")
            ns = None
        obj = _Placeholder() if method in ("post", "put", "patch") else None
        headers = (
            {"Content-Type": content_type}
            if content_type
            else {"Content-Type": "application/json"}
        )
        if method == "put" and name is None:
            raise ValueError("update needs a name")
        query = {k: _param(v) for k, v in (params or {}).items() if v is not None}
        return self._generic.prepare_request(
            method,
            res=res,
            obj=obj,
            name=name,
            namespace=ns,
            watch=verb == "watch",
            params=query,
            headers=headers,
        )

    def _build(
        self, br: Any, body: bytes | None, timeout: httpx2.Timeout | None = None
    ) -> httpx2.Request:
        headers = dict(br.headers or {})
        if body is None:
            headers.pop("Content-Type", None)
        return self._http.build_request(
            br.method,
            br.url,
            params=br.params,
            content=body,
            headers=headers or None,
            timeout=timeout if timeout is not None else httpx2.USE_CLIENT_DEFAULT,
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
        br = self._prepare(
            verb,
            rtype,
            name=name,
            namespace=namespace,
            subresource=subresource,
            params=params,
            content_type=content_type,
        )
        await self._throttle(verb)
        response = await self._http.send(self._build(br, body))
        self.metrics.rest_requests.labels(
            str(response.status_code), br.method, self._host
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
        br = self._prepare(
            "watch",
            rtype,
            name=None,
            namespace=namespace,
            subresource=None,
            params=params,
            content_type=None,
        )
        await self._throttle("watch")
        timeout = httpx2.Timeout(self._http.timeout.connect, read=read_timeout)
        response = await self._http.send(self._build(br, None, timeout), stream=True)
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


def dumps(data: Any) -> bytes:
    """Encode a JSON-compatible value."""
    return msgspec.json.encode(data)
