"""The runtime's one door to its HTTP stack: lightkube's kubeconfig and credentials,
and the HTTP/1.1 client of `opgen.runtime.http1`.

Every request the runtime sends goes through `Transport.send` or
`Transport.stream`; no other runtime module sends HTTP or reads lightkube's
configuration. Only public names are used:

- lightkube: `KubeConfig` (`from_file`, `from_env`, `get`), `SingleConfig`
  (`cluster`, `user`, `namespace`, `abs_file`), `ConfigError`, and
  `lightkube.config.client_adapter.user_auth(user)` (bearer token; token file
  re-read on 401, for rotated service-account tokens; exec plugins, run again
  on 401; basic auth) and `verify_cluster(cluster, user, abs_file, trust_env=)`
  (CA, client certificate: an `ssl.SSLContext`).
- httpx2, for two things: the auth flows `user_auth` returns are `httpx2.Auth`
  objects, driven here with `httpx2.Request`/`httpx2.Response` (their
  `async_auth_flow`); and when the environment names an HTTP proxy for the API
  server (`HTTPS_PROXY`, `NO_PROXY`...), requests go through an
  `httpx2.AsyncClient` instead, which speaks to proxies.

Credentials: lightkube's flows set a header (`Authorization`) and, given a 401,
set a new one and ask for a retry. The transport runs a flow once and keeps the
headers it set for every request; when the server answers 401 it runs a flow
again with that answer (once for all the requests that got it) and sends the
request again with the new headers — what httpx2 does per request, without
doing it per request.

tests/runtime/test_transport_contract.py checks each assumption (names,
signatures, connection reuse, timeouts, token-file and exec credentials
refreshed on 401 against a real API server), and pyproject.toml pins the
version ranges it holds for.

Failures are mapped at this boundary: whatever the HTTP client raises when a
request gets no answer (refused, reset, timed out, cut off part-way, also while
a stream is read) leaves this module as `opgen.runtime.errors.TransportError`,
with the client's exception as its `__cause__`; `_no_answer` is the one place
that knows the client's exception classes.
"""

from __future__ import annotations

import asyncio
import logging
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx2
from lightkube import KubeConfig, SingleConfig
from lightkube.config.client_adapter import user_auth, verify_cluster
from lightkube.config.models import User

from opgen.runtime import http1
from opgen.runtime.errors import TransportError, TransportFailure

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

log = logging.getLogger("opgen.runtime.transport")

DEFAULT_TIMEOUT = 30.0
"""Seconds a request may take to connect, send, and between bytes of the answer."""

MAX_CONNECTIONS = 100
"""Connections to the API server, every one kept alive once opened: a controller
talks to one server, and each request beyond the open connections would pay a
new TLS handshake on both ends."""

USER_AGENT = "opgen-runtime"

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

    def __init__(
        self,
        status: int,
        stream: http1.Stream | httpx2.Response,
        method: str,
        url: str,
    ) -> None:
        self.status = status
        self._stream = stream
        self._method = method
        self._url = url

    async def read(self) -> bytes:
        """The whole body (for an error answer)."""
        try:
            if isinstance(self._stream, http1.Stream):
                return await self._stream.read()
            return await self._stream.aread()
        except _CLIENT_ERRORS as error:
            raise _no_answer(self._method, self._url, error) from error

    async def lines(self) -> AsyncIterator[str]:
        """The body line by line, as it arrives."""
        try:
            if isinstance(self._stream, http1.Stream):
                async for line in self._stream.lines():
                    yield line
            else:
                async for line in self._stream.aiter_lines():
                    yield line
        except _CLIENT_ERRORS as error:
            raise _no_answer(self._method, self._url, error) from error


_CLIENT_ERRORS = (http1.HTTPError, httpx2.HTTPError)
"""What the HTTP clients raise when a request gets no (complete) answer."""


def _no_answer(
    method: str, url: str, error: http1.HTTPError | httpx2.HTTPError
) -> TransportError:
    """The runtime's error for a request without an answer."""
    failure: TransportFailure
    if isinstance(error, (http1.ConnectError, httpx2.ConnectError)):
        failure = "connect"
    elif isinstance(error, (http1.Timeout, httpx2.TimeoutException)):
        failure = "timeout"
    elif isinstance(
        error, (http1.ConnectionClosed, httpx2.NetworkError, httpx2.RemoteProtocolError)
    ):
        failure = "disconnected"
    else:
        failure = "protocol"
    detail = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    return TransportError(method, url.partition("?")[0], failure, detail)


class _Credentials:
    """The headers lightkube's auth flow sets: asked once, and again after a 401."""

    def __init__(self, auth: httpx2.Auth | None, url: str) -> None:
        self._auth = auth
        self._url = url
        self.lines = b"" if auth is None else None
        """The header lines to send (None until the flow has been asked)."""
        self._lock: asyncio.Lock | None = None

    def _locked(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    async def current(self) -> bytes:
        if self.lines is None:
            async with self._locked():
                if self.lines is None:
                    self.lines = await self._ask(None) or b""
        return self.lines

    async def after_401(self, sent_with: bytes) -> bytes | None:
        """New header lines for a request that `sent_with` got a 401 for; None when
        the flow does not retry (a fixed token: the 401 stands)."""
        if self._auth is None:
            return None
        async with self._locked():
            if self.lines != sent_with:  # another request refreshed them meanwhile
                return self.lines
            fresh = await self._ask(401)
            if fresh is not None:
                self.lines = fresh
            return fresh

    async def _ask(self, status: int | None) -> bytes | None:
        assert self._auth is not None
        request = httpx2.Request("GET", self._url)
        before = dict(request.headers)
        flow = self._auth.async_auth_flow(request)
        try:
            sent = await flow.__anext__()
            if status is not None:
                sent = await flow.asend(httpx2.Response(status, request=sent))
        except StopAsyncIteration:
            return None
        finally:
            await flow.aclose()
        return b"".join(
            f"{name}: {value}\r\n".encode("latin-1")
            for name, value in sent.headers.items()
            if before.get(name) != value
        )


def _proxied(server: str) -> bool:
    """Whether the environment sends requests to `server` through a proxy."""
    proxies = urllib.request.getproxies()
    scheme = urllib.parse.urlsplit(server).scheme
    if not (proxies.get(scheme) or proxies.get("all")):
        return False
    host = urllib.parse.urlsplit(server).hostname or ""
    return not urllib.request.proxy_bypass(host)


class Transport:
    """Sends requests to one API server with one context's credentials."""

    def __init__(
        self, config: SingleConfig, *, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        user = config.user if config.user is not None else User()
        self.server = config.cluster.server.rstrip("/")
        parts = urllib.parse.urlsplit(self.server)
        self.host = parts.hostname or ""
        self.namespace = config.namespace
        """The context's namespace ("default" when it names none)."""
        self._prefix = parts.path
        self._timeout = timeout
        auth = user_auth(user)
        context = verify_cluster(config.cluster, user, config.abs_file, trust_env=True)
        self._credentials = _Credentials(auth, self.server + "/")
        self._fixed = (
            f"Accept: application/json\r\nUser-Agent: {USER_AGENT}\r\n".encode()
        )
        self._pool: http1.Pool | None = None
        self._proxied: httpx2.AsyncClient | None = None
        if _proxied(self.server):
            self._proxied = httpx2.AsyncClient(
                base_url=self.server,
                auth=auth,
                verify=context,
                timeout=httpx2.Timeout(timeout),
                limits=httpx2.Limits(
                    max_connections=MAX_CONNECTIONS,
                    max_keepalive_connections=MAX_CONNECTIONS,
                ),
                trust_env=True,
            )
        else:
            port = parts.port or (443 if parts.scheme == "https" else 80)
            self._pool = http1.Pool(
                http1.Origin(parts.scheme, self.host, port),
                context,
                max_connections=MAX_CONNECTIONS,
                timeout=timeout,
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
        if self._proxied is not None:
            return self._proxied.is_closed
        assert self._pool is not None
        return self._pool.closed

    @property
    def connections_opened(self) -> int:
        """How many connections were opened so far (each a TLS handshake)."""
        return self._pool.connections_opened if self._pool is not None else 0

    def _headers(self, credentials: bytes, content_type: str | None) -> bytes:
        if content_type is None:
            return self._fixed + credentials
        return self._fixed + credentials + f"Content-Type: {content_type}\r\n".encode()

    async def send(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        content_type: str | None = None,
    ) -> Answer:
        """Send one request (`path` starts with `/` and carries the query) and read the answer."""
        if body is not None and content_type is None:
            content_type = "application/json"
        if self._proxied is not None:
            return await self._send_proxied(method, path, body, content_type)
        assert self._pool is not None
        target = self._prefix + path
        credentials = await self._credentials.current()
        try:
            status, data = await self._pool.request(
                method, target, self._headers(credentials, content_type), body
            )
            if status == 401:
                fresh = await self._credentials.after_401(credentials)
                if fresh is not None:
                    status, data = await self._pool.request(
                        method, target, self._headers(fresh, content_type), body
                    )
        except http1.HTTPError as error:
            raise _no_answer(method, self.server + path, error) from error
        if log.isEnabledFor(logging.DEBUG):
            log.debug("%s %s: %d", method, path, status)
        return Answer(status, data)

    @asynccontextmanager
    async def stream(
        self, method: str, path: str, *, read_timeout: float | None
    ) -> AsyncIterator[Stream]:
        """Send one request and receive its answer as it arrives; closed on exit.
        `read_timeout`: the longest silence between two chunks (None: no limit)."""
        if self._proxied is not None:
            async with self._stream_proxied(method, path, read_timeout) as stream:
                yield stream
            return
        assert self._pool is not None
        target = self._prefix + path
        url = self.server + path
        credentials = await self._credentials.current()
        # The answer's own reads map their failures (Stream); this maps opening it.
        try:
            for attempt in (1, 2):
                async with self._pool.stream(
                    method,
                    target,
                    self._headers(credentials, None),
                    read_timeout=read_timeout,
                ) as answer:
                    if answer.status == 401 and attempt == 1:
                        await answer.read()
                        fresh = await self._credentials.after_401(credentials)
                        if fresh is not None:
                            credentials = fresh
                            continue
                    if log.isEnabledFor(logging.DEBUG):
                        log.debug("%s %s: %d (stream)", method, path, answer.status)
                    yield Stream(answer.status, answer, method, url)
                    return
        except http1.HTTPError as error:
            raise _no_answer(method, url, error) from error

    async def _send_proxied(
        self, method: str, path: str, body: bytes | None, content_type: str | None
    ) -> Answer:
        assert self._proxied is not None
        headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        if content_type is not None:
            headers["Content-Type"] = content_type
        request = httpx2.Request(
            method, self.server + path, content=body, headers=headers
        )
        try:
            response = await self._proxied.send(request)
        except httpx2.HTTPError as error:
            raise _no_answer(method, self.server + path, error) from error
        return Answer(response.status_code, response.content)

    @asynccontextmanager
    async def _stream_proxied(
        self, method: str, path: str, read_timeout: float | None
    ) -> AsyncIterator[Stream]:
        assert self._proxied is not None
        timeout = httpx2.Timeout(self._timeout, read=read_timeout)
        request = httpx2.Request(
            method,
            self.server + path,
            headers={"Accept": "application/json", "User-Agent": USER_AGENT},
            extensions={"timeout": timeout.as_dict()},
        )
        try:
            response = await self._proxied.send(request, stream=True)
        except httpx2.HTTPError as error:
            raise _no_answer(method, self.server + path, error) from error
        try:
            yield Stream(response.status_code, response, method, self.server + path)
        finally:
            await response.aclose()

    async def aclose(self) -> None:
        """Close every connection (idempotent)."""
        if self._proxied is not None:
            await self._proxied.aclose()
        if self._pool is not None:
            await self._pool.aclose()


class _RequestLogsAtDebug(logging.Filter):
    """httpx2 logs every request at INFO (through a proxy); a manager sends thousands.
    Demote them to DEBUG: kept (relabelled) when the `httpx2` logger is enabled for
    DEBUG, else dropped.
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
