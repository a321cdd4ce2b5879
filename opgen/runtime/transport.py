"""The runtime's HTTP client: every request to the API server, on aiohttp.

Every request the runtime sends goes through `Transport.send` or
`Transport.stream` (the `seams.Transport` protocol); no other module imports
aiohttp's client. The connection settings and credentials come from
`opgen.runtime.kubeconfig`.

What aiohttp gives, and how it is set:

- a pool of keep-alive HTTP/1.1 connections for requests (at most
  `MAX_CONNECTIONS`, every one kept alive once opened; idle ones closed after
  `IDLE_TIMEOUT`) and one for streams (a watch holds its connection while it
  runs), TLS with the context's `ssl.SSLContext` (CA, client certificate);
  HTTP/2 is never spoken;
- proxies from the environment (`HTTPS_PROXY`, `NO_PROXY`...), looked up once:
  aiohttp's `trust_env` would look them (and `~/.netrc`) up in a thread on
  every request;
- timeouts: connecting (waiting for a free connection included) and each read
  of the answer may take at most `timeout` seconds; a stream's reads have their
  own limit (a watch);
- a request on a reused connection that the server closed meanwhile is sent
  again once on a new one when it is idempotent, as Go's net/http does.

Credentials: the headers `kubeconfig.Credentials` gives are sent with every
request; when the server answers 401 they are asked again (a token file is
re-read, an exec plugin run again) and the request is sent once more.

Answers carry their headers: `Answer.retry_after` (the REST client waits and
retries a 429 or 5xx that names one) and `Answer.warnings`, the API server's
`Warning` headers, each logged once per transport (as client-go's default
handler does, deduplicated like kubectl's) and passed to `on_warning`.

Failures are mapped at this boundary: whatever aiohttp raises when a request
gets no answer (refused, reset, timed out, cut off part-way, also while a
stream is read) leaves this module as `opgen.runtime.errors.TransportError`,
with aiohttp's exception as its `__cause__`; `_no_answer` is the one place that
knows aiohttp's exception classes.
"""

from __future__ import annotations

import asyncio
import asyncio.sslproto
import base64
import logging
import re
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager

from aiohttp.client import ClientSession, ClientTimeout
from aiohttp.client_exceptions import (
    ClientConnectorError,
    ClientError,
    ClientOSError,
    ClientPayloadError,
    ServerDisconnectedError,
)
from aiohttp.client_reqrep import ClientResponse
from aiohttp.connector import TCPConnector
from aiohttp.cookiejar import DummyCookieJar
from yarl import URL

from opgen.runtime.errors import TransportError, TransportFailure
from opgen.runtime.kubeconfig import (
    ConfigSource,
    Connection,
    SingleConfig,
    connection,
    load_config,
)
from opgen.runtime.seams import Answer, warning_texts

__all__ = [
    "DEFAULT_TIMEOUT",
    "IDLE_TIMEOUT",
    "MAX_CONNECTIONS",
    "TLS_READ_BUFFER",
    "USER_AGENT",
    "Answer",
    "ConfigSource",
    "Stream",
    "Transport",
    "TransportError",
    "load_config",
]

log = logging.getLogger("opgen.runtime.transport")

DEFAULT_TIMEOUT = 30.0
"""Seconds a request may take to connect (or wait for a free connection), and
between bytes of the answer."""

MAX_CONNECTIONS = 32
"""Connections open at once for requests (watches have a pool of their own), each
kept alive once opened; a request finding them all busy waits for one. They are
opened on demand, so an operator holds about as many as it has requests in flight
(its workers'); each carries one request at a time (HTTP/1.1) and holds a
TLS read buffer (`TLS_READ_BUFFER`), which the heap may keep after it is
closed. In the runtime benchmark (32
workers, a local API server) a limit of 12 made requests queue for a connection:
paired runs at 32 converged faster on less operator CPU, for about 5 MiB more
steady RSS (docs/runtime.md, "Start-up and memory")."""

TLS_READ_BUFFER = 5 + 2**14 + 2048
"""Bytes asyncio's TLS layer (Python 3.11+) reads from a socket at once, and
keeps as a buffer for each TLS connection for the connection's life: one whole
TLS record of any version (a 5-byte header, at most 16 KiB of data and, in TLS
1.2, at most 2 KiB of expansion; 1.3's is 256 B), so no full record needs two
reads for want of room. Its default, 256 KiB, made every kept-alive connection
cost about 0.3 MiB of resident memory; 32 KiB, the size before this one, took two
records a read where this takes one, for 14 KiB more a connection. Set by the
first transport for the whole process (`SSLProtocol.max_size`, a class
attribute: asyncio makes the protocol itself), so the manager's servers'
connections use it too; a process that already set a smaller one keeps it."""

IDLE_TIMEOUT = 90.0
"""Seconds an idle connection is kept open (Go's `http.Transport.IdleConnTimeout`)."""

USER_AGENT = "opgen-runtime"

_MAX_WARNINGS_KEPT = 1000
"""Distinct warning texts remembered (each is logged once); older ones are forgotten."""


_DISCONNECTED = (
    ServerDisconnectedError,  # closed before the answer began
    ClientPayloadError,  # closed part-way through it
    ClientOSError,  # reset
    ConnectionError,
)


_ENCODED_TARGET = re.compile(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]+|%[0-9A-Fa-f]{2})*")
"""A path and query already percent-encoded (as the REST client builds them)."""


def _no_answer(method: str, url: str, error: Exception) -> TransportError:
    """The runtime's error for a request without a (complete) answer."""
    failure: TransportFailure
    if isinstance(error, asyncio.TimeoutError):  # aiohttp's timeouts subclass it
        failure = "timeout"
    elif isinstance(error, ClientConnectorError):
        failure = "connect"
    elif isinstance(error, _DISCONNECTED):
        failure = "disconnected"
    else:
        failure = "protocol"
    detail = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    return TransportError(method, url.partition("?")[0], failure, detail)


_NO_ANSWER_ERRORS = (ClientError, asyncio.TimeoutError, ConnectionError)
"""What aiohttp raises when a request gets no (complete) answer."""


def _headers(
    response: ClientResponse,
) -> tuple[Mapping[str, str], tuple[str, ...]]:
    """The answer's headers (looked up by any case of their name), and its warnings' texts."""
    headers = response.headers
    warnings = warning_texts(headers.getall("Warning")) if "Warning" in headers else ()
    return headers, warnings


def _proxy_for(
    server: str, configured: str | None = None
) -> tuple[str | None, dict[str, str] | None]:
    """The proxy for `server` (None: connect directly): the kubeconfig's
    `proxy-url`, else the one the environment names; and the headers for it that
    carry the credentials in its URL."""
    proxy = configured
    if proxy is None:
        parts = urllib.parse.urlsplit(server)
        proxies = urllib.request.getproxies()
        proxy = proxies.get(parts.scheme) or proxies.get("all")
        if not proxy or urllib.request.proxy_bypass(parts.hostname or ""):
            return None, None
    url = urllib.parse.urlsplit(proxy if "://" in proxy else f"http://{proxy}")
    headers = None
    if url.username is not None:
        user = urllib.parse.unquote(url.username)
        password = urllib.parse.unquote(url.password or "")
        basic = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
        headers = {"Proxy-Authorization": f"Basic {basic}"}
    netloc = url.netloc.rpartition("@")[2]
    return url._replace(netloc=netloc).geturl(), headers


def _limit_tls_read_buffer() -> None:
    """Make asyncio's TLS connections read (and buffer) at most `TLS_READ_BUFFER`
    bytes at once (see there)."""
    protocol = asyncio.sslproto.SSLProtocol
    # Python 3.11+: Python 3.10's TLS layer keeps no buffer (and has no such
    # attribute); typeshed does not declare it
    size = getattr(protocol, "max_size", None)
    if size is not None and size > TLS_READ_BUFFER:
        protocol.max_size = TLS_READ_BUFFER  # type: ignore[attr-defined]


class Stream:
    """An answer being received (a watch): its status and headers, then its lines."""

    def __init__(
        self, response: ClientResponse, headers: Mapping[str, str], url: str
    ) -> None:
        self.status = response.status
        self.headers = headers
        self._response = response
        self._method = response.method
        self._url = url

    async def read(self) -> bytes:
        """The whole body (for an error answer)."""
        try:
            return await self._response.read()
        except _NO_ANSWER_ERRORS as error:
            raise _no_answer(self._method, self._url, error) from error

    async def lines(self) -> AsyncIterator[str]:
        """The body line by line (split on `\\n`, a trailing `\\r` dropped), as it
        arrives; a line may be as long as the object it carries."""
        pending = b""
        try:
            async for piece in self._response.content.iter_any():
                newline = piece.find(b"\n")
                if newline < 0:
                    pending += piece
                    continue
                if not pending and newline == len(piece) - 1:
                    # one whole line, as a watch's event usually arrives
                    yield piece[:newline].rstrip(b"\r").decode()
                    continue
                *complete, pending = (pending + piece).split(b"\n")
                for line in complete:
                    yield line.rstrip(b"\r").decode()
        except _NO_ANSWER_ERRORS as error:
            raise _no_answer(self._method, self._url, error) from error
        if pending:
            yield pending.rstrip(b"\r").decode()


class Transport:
    """Sends requests to one API server with one context's credentials."""

    def __init__(
        self,
        config: SingleConfig | Connection,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        on_warning: Callable[[str], None] | None = None,
    ) -> None:
        self._connection = (
            config if isinstance(config, Connection) else connection(config)
        )
        self.server = self._connection.server
        self.host = urllib.parse.urlsplit(self.server).hostname or ""
        base = URL(self.server)
        self._scheme, self._authority = base.scheme, base.raw_authority
        self._path_prefix = base.raw_path.rstrip("/")
        self.namespace = self._connection.namespace
        """The context's namespace ("default" when it names none)."""
        self._timeout = timeout
        self._request_timeout = ClientTimeout(
            total=None, connect=timeout, sock_read=timeout
        )
        self._on_warning = on_warning
        self._warned: dict[str, None] = {}
        self._session: ClientSession | None = None
        self._streams: ClientSession | None = None
        self._proxy, self._proxy_headers = _proxy_for(
            self.server, self._connection.proxy_url
        )
        self._closed = False

    @classmethod
    def from_kubeconfig(
        cls,
        source: ConfigSource = None,
        *,
        context: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        on_warning: Callable[[str], None] | None = None,
    ) -> Transport:
        return cls(
            load_config(source, context=context),
            timeout=timeout,
            on_warning=on_warning,
        )

    @property
    def closed(self) -> bool:
        return self._closed

    def sibling(self) -> Transport:
        """A transport to the same server with the same credentials, on connections
        of its own: its `aclose` closes them and leaves this transport's open."""
        return Transport(
            self._connection, timeout=self._timeout, on_warning=self._on_warning
        )

    def _open_session(self) -> ClientSession:
        """The session, made on first use (aiohttp needs the running loop)."""
        if self._closed:  # a programming error: no request after aclose()
            raise RuntimeError("cannot send a request: the client has been closed")
        if self._session is None:
            self._session = self._new_session(MAX_CONNECTIONS)
        return self._session

    def _open_stream_session(self) -> ClientSession:
        """The session of streams (watches), made on first use: each stream holds
        its connection for as long as it runs, so they have a pool of their own,
        without a limit, and never wait for (or keep out) a request."""
        self._open_session()  # refuses after aclose()
        if self._streams is None:
            self._streams = self._new_session(0)
        return self._streams

    def _new_session(self, limit: int) -> ClientSession:
        """A session on a pool of at most `limit` connections (0: no limit)."""
        _limit_tls_read_buffer()
        connector = TCPConnector(
            limit=limit,
            ssl=(
                self._connection.ssl_context
                if self.server.startswith("https:")
                else False
            ),
            keepalive_timeout=IDLE_TIMEOUT,
        )
        return ClientSession(
            connector=connector,
            timeout=self._request_timeout,
            headers=self._fixed_headers(),
            cookie_jar=DummyCookieJar(),
        )

    def _fixed_headers(self) -> dict[str, str]:
        """The headers of every request; with a proxy's credentials when the proxy
        sees the requests themselves (a plain-HTTP server: an HTTPS one is reached
        through a CONNECT tunnel, whose request carries them)."""
        headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        if self._proxy_headers and not self.server.startswith("https:"):
            headers.update(self._proxy_headers)
        return headers

    def _warn(self, warnings: tuple[str, ...]) -> None:
        for text in warnings:
            if text not in self._warned:
                log.warning("the API server warns: %s", text)
                self._warned[text] = None
                if len(self._warned) > _MAX_WARNINGS_KEPT:
                    del self._warned[next(iter(self._warned))]
            if self._on_warning is not None:
                self._on_warning(text)

    def _url(self, path: str) -> URL:
        """The URL of `path` on the server. A percent-encoded path is joined to the
        server's without parsing it; aiohttp would parse and quote a string again
        on every request."""
        if not _ENCODED_TARGET.fullmatch(path):
            return URL(self.server + path)
        path, _, query = path.partition("?")
        return URL.build(
            scheme=self._scheme,
            authority=self._authority,
            path=self._path_prefix + path,
            query_string=query,
            encoded=True,
        )

    async def _answer(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        content_type: str | None = None,
        timeout: ClientTimeout,
        session: ClientSession,
        accept: str | None = None,
    ) -> ClientResponse:
        """The answer to one request, once its status and headers have arrived.
        After a 401 the credentials are asked again; when they change, the
        request is sent once more with them. aiohttp's errors are left to the
        caller, which knows what it was doing."""
        url = self._url(path)
        extra = (
            {} if body is None else {"Content-Type": content_type or "application/json"}
        )
        if accept is not None:
            extra["Accept"] = accept
        credentials = await self._connection.credentials.current()
        for attempt in (1, 2):
            response = await session.request(
                method,
                url,
                data=body,
                # None: the session's fixed headers alone (a client certificate's GET)
                headers={**credentials, **extra} if credentials or extra else None,
                timeout=timeout,
                proxy=self._proxy,
                proxy_headers=self._proxy_headers,
                server_hostname=self._connection.tls_server_name,
            )
            if response.status != 401 or attempt == 2:
                break
            await response.read()  # the connection is free again; the 401 may stand
            fresh = await self._connection.credentials.after_401(credentials)
            if fresh is None:
                break
            response.release()
            credentials = fresh
        return response

    def _log(self, method: str, path: str, status: int, stream: bool) -> None:
        if log.isEnabledFor(logging.DEBUG):
            log.debug(
                "%s %s: %d%s", method, path, status, " (stream)" if stream else ""
            )

    async def send(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        content_type: str | None = None,
        accept: str | None = None,
    ) -> Answer:
        """Send one request (`path` starts with `/` and carries the query) and read the
        answer; `accept`: the `Accept` header (None: `application/json`)."""
        try:
            response = await self._answer(
                method,
                path,
                body=body,
                content_type=content_type,
                timeout=self._request_timeout,
                session=self._open_session(),
                accept=accept,
            )
            try:
                data = await response.read()
            finally:
                response.release()
        except _NO_ANSWER_ERRORS as error:
            raise _no_answer(method, self.server + path, error) from error
        headers, warnings = _headers(response)
        if warnings:
            self._warn(warnings)
        self._log(method, path, response.status, False)
        return Answer(response.status, data, headers, warnings)

    @asynccontextmanager
    async def stream(
        self,
        method: str,
        path: str,
        *,
        read_timeout: float | None,
        accept: str | None = None,
    ) -> AsyncIterator[Stream]:
        """Send one request and receive its answer as it arrives; closed on exit.
        `read_timeout`: the longest silence between two chunks (None: no limit);
        `accept`: the `Accept` header (None: `application/json`)."""
        timeout = ClientTimeout(
            total=None, connect=self._timeout, sock_read=read_timeout
        )
        # The answer's own reads map their failures (Stream); this maps opening it.
        try:
            response = await self._answer(
                method,
                path,
                timeout=timeout,
                session=self._open_stream_session(),
                accept=accept,
            )
        except _NO_ANSWER_ERRORS as error:
            raise _no_answer(method, self.server + path, error) from error
        try:
            headers, warnings = _headers(response)
            if warnings:
                self._warn(warnings)
            self._log(method, path, response.status, True)
            yield Stream(response, headers, self.server + path)
        finally:
            response.release()  # kept alive only when the whole body was read

    async def aclose(self) -> None:
        """Close every connection (idempotent); later requests raise `RuntimeError`."""
        self._closed = True
        if self._session is not None:
            session, self._session = self._session, None
            await session.close()
        if self._streams is not None:
            streams, self._streams = self._streams, None
            await streams.close()
