"""The runtime's one door to its HTTP stack: lightkube's kubeconfig and credentials,
and an httpx2 client this module builds itself.

Every request the runtime sends goes through `Transport.send` or
`Transport.stream`; no other runtime module imports httpx2 or reads lightkube's
configuration. Only public names are used:

- lightkube: `KubeConfig` (`from_file`, `from_env`, `get`), `SingleConfig`
  (`cluster`, `user`, `namespace`, `abs_file`), `ConfigError`, and
  `lightkube.config.client_adapter.user_auth(user)` (bearer token; token file
  re-read on 401, for rotated service-account tokens; exec plugins, run again
  on 401; basic auth) and `verify_cluster(cluster, user, abs_file, trust_env=)`
  (CA, client certificate). lightkube's own client is not used: its HTTP client
  is private to it.
- httpx2: `AsyncClient(base_url=, auth=, verify=, timeout=, limits=,
  trust_env=)` with `send(request, stream=)`, `is_closed` and `aclose()`;
  `Request(method, url, content=, headers=, extensions={"timeout": ...})`;
  `Timeout`, `Limits`, `HTTPError`; a response's `status_code`, `content`,
  `aread()`, `aiter_lines()` and `aclose()`; the `httpx2` logger.

tests/runtime/test_transport_contract.py checks each assumption (names,
signatures, connection reuse, token-file and exec credentials refreshed on
401 against a real API server), and pyproject.toml pins the version ranges it
holds for. Another HTTP client can replace httpx2 behind `send` and `stream`
without any other module changing.
"""

from __future__ import annotations

import logging
import urllib.parse
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx2
from lightkube import KubeConfig, SingleConfig
from lightkube.config.client_adapter import user_auth, verify_cluster
from lightkube.config.models import User

__all__ = [
    "DEFAULT_TIMEOUT",
    "MAX_CONNECTIONS",
    "USER_AGENT",
    "Answer",
    "ConfigSource",
    "Stream",
    "Transport",
    "TransportError",
    "load_config",
    "quiet_request_logs",
]

DEFAULT_TIMEOUT = 30.0
"""Seconds a request may take to connect, send, and between bytes of the answer."""

MAX_CONNECTIONS = 100
"""Connections to the API server, every one kept alive once opened: a controller
talks to one server, and with more concurrent workers than httpx's default 20
kept-alive connections each extra request would pay a new TLS handshake on both
ends."""

USER_AGENT = "opgen-runtime"

TransportError = httpx2.HTTPError
"""What a request raises when it gets no answer (refused, timed out, cut off)."""

ConfigSource = str | Path | KubeConfig | SingleConfig | None
"""A kubeconfig file, a lightkube `KubeConfig` or `SingleConfig`; None for the
environment: in-cluster (service account), else `$KUBECONFIG`, else `~/.kube/config`."""


def load_config(
    source: ConfigSource = None, *, context: str | None = None
) -> SingleConfig:
    """The connection settings of one context (`context`, else the current one)."""
    if isinstance(source, SingleConfig):
        return source
    if isinstance(source, KubeConfig):
        kubeconfig = source
    elif source is None:
        kubeconfig = KubeConfig.from_env()
    else:
        kubeconfig = KubeConfig.from_file(source)
    config = kubeconfig.get(context_name=context)
    assert (
        config is not None
    )  # `get` without a default raises instead of returning None
    return config


@dataclass(frozen=True)
class Answer:
    """The API server's answer: status code and body."""

    status: int
    body: bytes


class Stream:
    """An answer being received (a watch): its status code, then its lines."""

    def __init__(self, response: httpx2.Response) -> None:
        self._response = response
        self.status: int = response.status_code

    async def read(self) -> bytes:
        """The whole body (for an error answer)."""
        return await self._response.aread()

    def lines(self) -> AsyncIterator[str]:
        """The body line by line, as it arrives."""
        return self._response.aiter_lines()


class Transport:
    """Sends requests to one API server with one context's credentials."""

    def __init__(
        self, config: SingleConfig, *, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        user = config.user if config.user is not None else User()
        self.server = config.cluster.server.rstrip("/")
        self.host = urllib.parse.urlsplit(self.server).hostname or ""
        self.namespace = config.namespace
        """The context's namespace ("default" when it names none)."""
        self._timeout = httpx2.Timeout(timeout)
        self._http = httpx2.AsyncClient(
            base_url=self.server,
            auth=user_auth(user),
            verify=verify_cluster(
                config.cluster, user, config.abs_file, trust_env=True
            ),
            timeout=self._timeout,
            limits=httpx2.Limits(
                max_connections=MAX_CONNECTIONS,
                max_keepalive_connections=MAX_CONNECTIONS,
            ),
            trust_env=True,
        )

    @classmethod
    def from_kubeconfig(
        cls,
        source: ConfigSource = None,
        *,
        context: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> Transport:
        return cls(load_config(source, context=context), timeout=timeout)

    @property
    def closed(self) -> bool:
        return self._http.is_closed

    def _request(
        self,
        method: str,
        path: str,
        body: bytes | None,
        content_type: str | None,
        timeout: httpx2.Timeout,
    ) -> httpx2.Request:
        # Built directly: httpx's general request preparation costs more than the
        # request itself on a busy controller.
        headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        if body is not None:
            headers["Content-Type"] = content_type or "application/json"
        return httpx2.Request(
            method,
            self.server + path,
            content=body,
            headers=headers,
            extensions={"timeout": timeout.as_dict()},
        )

    async def send(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        content_type: str | None = None,
    ) -> Answer:
        """Send one request (`path` starts with `/` and carries the query) and read the answer."""
        request = self._request(method, path, body, content_type, self._timeout)
        response = await self._http.send(request)
        return Answer(response.status_code, response.content)

    @asynccontextmanager
    async def stream(
        self, method: str, path: str, *, read_timeout: float | None
    ) -> AsyncIterator[Stream]:
        """Send one request and receive its answer as it arrives; closed on exit.
        `read_timeout`: the longest silence between two chunks (None: no limit)."""
        timeout = httpx2.Timeout(self._timeout.connect, read=read_timeout)
        request = self._request(method, path, None, None, timeout)
        response = await self._http.send(request, stream=True)
        try:
            yield Stream(response)
        finally:
            await response.aclose()

    async def aclose(self) -> None:
        """Close every connection (idempotent)."""
        await self._http.aclose()


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
