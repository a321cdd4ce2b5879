"""The transport's contract with aiohttp and the kubeconfig: what opgen/runtime/transport.py
assumes of aiohttp, each assumption checked, so that an upgrade that breaks one
fails here — not in an operator; and what it does with a kubeconfig's settings.

- the names and signatures it imports (no server);
- what it relies on in behaviour, against a loopback HTTP server: requests on a
  bounded pool of connections kept alive, streams on their own, the per-request timeout, read timeouts on streams, the headers sent
  and received (`Retry-After`, `Warning`), proxies from the environment or the
  kubeconfig's `proxy-url`, `tls-server-name`, a request sent again with fresh
  credentials after a 401, and every failure leaving as the runtime's
  `TransportError` (no Kubernetes involved);
- credentials against a real API server: a client certificate, a token file
  re-read when the server answers 401 (rotated service-account tokens), an exec
  plugin run again on 401.

The loader itself (every kubeconfig shape, exec plugins, errors) is
tests/runtime/test_kubeconfig.py's.
"""

from __future__ import annotations

import asyncio
import asyncio.sslproto
import contextlib
import gc
import inspect
import json
import logging
import ssl
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiohttp
import msgspec
import pytest

from opgen import api as op
from opgen import runtime as rt
from opgen.runtime import transport as tp
from opgen.runtime.kubeconfig import KubeConfig
from opgen.runtime.resources import resource_type
from opgen.runtime.rest import METADATA_ACCEPT, METADATA_LIST_ACCEPT, RestClient
from opgen.runtime.transport import Transport
from opgen.testing import Environment
from opgen.testing.controlplane.pki import generate_pki
from tests.runtime.helpers import eventually, kubeconfig_for, token_for
from tests.runtime.kinds import Widget

# -- names and signatures -------------------------------------------------------


def parameters(function: Callable[..., Any]) -> list[str]:
    return list(inspect.signature(function).parameters)


def test_aiohttp_names_and_signatures() -> None:
    connector = parameters(aiohttp.TCPConnector.__init__)
    for name in ("limit", "ssl", "keepalive_timeout"):
        assert name in connector, name
    session = parameters(aiohttp.ClientSession.__init__)
    for name in ("connector", "timeout", "headers", "cookie_jar", "trace_configs"):
        assert name in session, name
    request = parameters(aiohttp.ClientSession._request)
    for name in (
        "data",
        "headers",
        "timeout",
        "proxy",
        "proxy_headers",
        "server_hostname",
    ):
        assert name in request, name
    timeout = aiohttp.ClientTimeout(total=None, connect=1.0, sock_read=None)
    assert (timeout.connect, timeout.sock_read) == (1.0, None)
    assert callable(aiohttp.TraceConfig().on_connection_create_end.append)
    # what `_no_answer` tells apart, and the classes it catches
    assert issubclass(aiohttp.ClientConnectorError, aiohttp.ClientError)
    for name in ("ServerTimeoutError", "ConnectionTimeoutError", "SocketTimeoutError"):
        assert issubclass(getattr(aiohttp, name), asyncio.TimeoutError), name
    for name in ("ServerDisconnectedError", "ClientPayloadError", "ClientOSError"):
        assert issubclass(getattr(aiohttp, name), aiohttp.ClientError), name


def test_msgspec_names() -> None:
    """The runtime's JSON codec."""
    for name in ("Struct", "Raw", "field", "convert", "to_builtins"):
        assert hasattr(msgspec, name), name
    assert msgspec.json.decode(msgspec.json.encode({"a": [1]})) == {"a": [1]}


# -- behaviour, against a loopback server ---------------------------------------


_LINE_PIECES = (b"a\n", b"b", b"c\nd\r\n", b"e\nf\n", b"\n", b"g\r\n", b"h")
"""A stream's body in chunks: lines whole, split, several in one, empty, the last unended."""


_LARGE_BODY = bytes(range(256)) * 4096
"""1 MiB: many times the TLS read buffer (`transport.TLS_READ_BUFFER`)."""


class Server:
    """A small HTTP/1.1 server: keeps connections open, records what it saw, and
    answers each request once `gate` lets it (`script` may answer differently)."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.tls = tls
        self.accepted_token = "secret"
        """`/guarded` answers 401 to any other bearer token."""
        self.connections = 0
        self.busy = 0
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.arrived = asyncio.Condition()
        self.gate = asyncio.Event()
        self.gate.set()
        self._server: asyncio.base_events.Server | None = None
        self._handlers: set[asyncio.Task[Any]] = set()
        self.port = 0

    async def __aenter__(self) -> Server:
        self._server = await asyncio.start_server(
            self._serve, "127.0.0.1", 0, ssl=self.tls
        )
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for handler in self._handlers:
            handler.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)

    def transport(
        self,
        user: dict[str, Any] | None = None,
        server: str | None = None,
        cluster: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Transport:
        config = KubeConfig.from_dict(
            {
                "clusters": [
                    {
                        "name": "c",
                        "cluster": {
                            "server": server or f"http://127.0.0.1:{self.port}",
                            **(cluster or {}),
                        },
                    }
                ],
                "users": [{"name": "u", "user": user or {"token": "secret"}}],
                "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
                "current-context": "x",
            }
        )
        return Transport.from_kubeconfig(config, **kwargs)

    async def _serve(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self.connections += 1
        handler = asyncio.current_task()
        assert handler is not None
        self._handlers.add(handler)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                line, *lines = head.decode("latin-1").split("\r\n")
                headers = {
                    k.strip().lower(): v.strip()
                    for k, _, v in (h.partition(":") for h in lines if h)
                }
                length = int(headers.get("content-length", "0"))
                if length:
                    await reader.readexactly(length)
                async with self.arrived:
                    self.requests.append((line, headers))
                    self.arrived.notify_all()
                await self.gate.wait()
                path = line.split()[1].partition("?")[0]
                if path == "/guarded" and headers.get("authorization") != (
                    f"Bearer {self.accepted_token}"
                ):
                    writer.write(
                        b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 2\r\n\r\n{}"
                    )
                    await writer.drain()
                    continue
                if path == "/silent":
                    await asyncio.Event().wait()  # never answers
                if path == "/hangs-up":
                    return  # closes the connection without answering
                if path == "/cut-off":
                    writer.write(
                        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                        b"6\r\nline1\n\r\n"
                    )
                    await writer.drain()
                    return  # closes it part-way through the answer
                if path.endswith("/busy"):
                    self.busy += 1
                    if self.busy <= 2:
                        writer.write(
                            b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 0\r\n"
                            b"Content-Length: 2\r\n\r\n{}"
                        )
                        await writer.drain()
                        continue
                if path == "/large":
                    writer.write(
                        b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s"
                        % (len(_LARGE_BODY), _LARGE_BODY)
                    )
                    await writer.drain()
                    continue
                if path == "/warns":
                    writer.write(
                        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
                        b'Warning: 299 - "v1 Thing is deprecated"\r\n'
                        b'Warning: 299 - "unknown field \\"spec.x\\""\r\n\r\n{}'
                    )
                    await writer.drain()
                    continue
                if path == "/lines":
                    writer.write(
                        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                    )
                    for piece in _LINE_PIECES:
                        writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                        await writer.drain()
                    writer.write(b"0\r\n\r\n")
                    await writer.drain()
                    continue
                if path == "/stalls":
                    writer.write(
                        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                        b"6\r\nline1\n\r\n"
                    )
                    await writer.drain()
                    await asyncio.Event().wait()  # then nothing more
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
                    b"Content-Type: application/json\r\n\r\n{}"
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()

    async def wait_for(self, count: int) -> None:
        async with self.arrived:
            await self.arrived.wait_for(lambda: len(self.requests) >= count)


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    async with Server() as running:
        yield running


async def test_requests_share_a_bounded_pool_kept_alive(server: Server) -> None:
    """More concurrent requests than `MAX_CONNECTIONS` open that many connections; the
    rest wait for one, and a second round reuses every connection (no new handshakes).
    """
    transport = server.transport()
    concurrent = tp.MAX_CONNECTIONS + 8
    try:
        for round_ in (1, 2):
            server.gate.clear()  # hold every answer: the pool is all in flight
            before = len(server.requests)
            sending = [
                asyncio.create_task(transport.send("GET", f"/r{round_}/{i}"))
                for i in range(concurrent)
            ]
            await server.wait_for(before + tp.MAX_CONNECTIONS)
            await asyncio.sleep(0.1)  # room for a request beyond the pool to arrive
            assert len(server.requests) == before + tp.MAX_CONNECTIONS
            server.gate.set()
            answers = await asyncio.gather(*sending)
            assert {a.status for a in answers} == {200}
            assert server.connections == tp.MAX_CONNECTIONS, round_
    finally:
        await transport.aclose()


async def test_streams_have_connections_of_their_own(server: Server) -> None:
    """Watches hold their connections while they run, outside the requests' pool:
    more of them than `MAX_CONNECTIONS` leave requests answered."""
    transport = server.transport()
    try:
        async with contextlib.AsyncExitStack() as streams:
            for _ in range(tp.MAX_CONNECTIONS + 1):
                stream = await streams.enter_async_context(
                    transport.stream("GET", "/stalls", read_timeout=None)
                )
                assert stream.status == 200
            answer = await transport.send("GET", "/answered")
            assert answer.status == 200
            assert server.connections == tp.MAX_CONNECTIONS + 2
    finally:
        await transport.aclose()


async def test_answers_carry_warnings_and_retry_after(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """The API server's `Warning` headers reach the caller (and the log, once per
    text); a 429 with `Retry-After` is retried by the REST client."""
    warned: list[str] = []
    transport = server.transport(on_warning=warned.append)
    try:
        with caplog.at_level(logging.WARNING, logger="opgen.runtime.transport"):
            for _ in range(2):
                answer = await transport.send("GET", "/warns")
                assert answer.warnings == (
                    "v1 Thing is deprecated",
                    'unknown field "spec.x"',
                )
        assert warned == list(answer.warnings) * 2
        logged = [r.getMessage() for r in caplog.records]
        assert logged == [
            "the API server warns: v1 Thing is deprecated",
            'the API server warns: unknown field "spec.x"',
        ]
        busy = await transport.send("GET", "/busy")
        assert (busy.status, busy.retry_after) == (429, 0.0)
        rest = RestClient(transport, rt.ClientOptions(qps=0))
        widgets = resource_type(Widget)
        assert await rest.request("get", widgets, name="busy", namespace="x") == b"{}"
        assert server.busy == 3, "its 429 was retried after the Retry-After"
    finally:
        await transport.aclose()


async def test_proxies_come_from_the_environment(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`HTTP_PROXY` (with credentials in its URL) sends requests through the proxy;
    `NO_PROXY` names the servers reached directly."""
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://me:pw@127.0.0.1:{server.port}")
    monkeypatch.setenv("NO_PROXY", "direct.invalid")
    proxied = server.transport(server="http://k8s.invalid:6443")
    try:
        assert (await proxied.send("GET", "/api?x=1")).status == 200
        line, headers = server.requests[-1]
        assert line == "GET http://k8s.invalid:6443/api?x=1 HTTP/1.1"
        assert headers["proxy-authorization"] == "Basic bWU6cHc="
        assert headers["authorization"] == "Bearer secret"
    finally:
        await proxied.aclose()
    direct = server.transport(server="http://direct.invalid:6443")
    try:
        with pytest.raises(rt.TransportError) as unresolvable:
            await direct.send("GET", "/api")
        assert unresolvable.value.failure == "connect"
        assert len(server.requests) == 1, "NO_PROXY: not sent to the proxy"
    finally:
        await direct.aclose()


async def test_the_kubeconfigs_proxy_url_wins_over_the_environment(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As client-go: a cluster's `proxy-url` is used for it, whatever `HTTP_PROXY`
    and `NO_PROXY` say."""
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "k8s.invalid")
    proxied = server.transport(
        server="http://k8s.invalid:6443",
        cluster={"proxy-url": f"http://me:pw@127.0.0.1:{server.port}"},
    )
    try:
        assert (await proxied.send("GET", "/api")).status == 200
        line, headers = server.requests[-1]
        assert line == "GET http://k8s.invalid:6443/api HTTP/1.1"
        assert headers["proxy-authorization"] == "Basic bWU6cHc="
    finally:
        await proxied.aclose()


async def test_tls_server_name_is_the_name_verified(tmp_path: Path) -> None:
    """`tls-server-name`: the server's certificate is checked against it (and it is
    sent as SNI), not against the host in `server`."""
    pki = generate_pki(tmp_path)
    serving = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    serving.load_cert_chain(pki.serving_cert, pki.serving_key)
    async with Server(tls=serving) as tls_server:
        for name, verified in (("localhost", True), ("kubernetes", False)):
            transport = tls_server.transport(
                server=f"https://127.0.0.1:{tls_server.port}",
                cluster={
                    "certificate-authority": str(pki.ca_cert),
                    "tls-server-name": name,
                },
            )
            try:
                if verified:
                    assert (await transport.send("GET", "/x")).status == 200
                else:
                    with pytest.raises(rt.TransportError) as refused:
                        await transport.send("GET", "/x")
                    assert "kubernetes" in str(refused.value.__cause__)
            finally:
                await transport.aclose()


async def test_tls_connections_read_into_a_small_buffer(tmp_path: Path) -> None:
    """Each TLS connection buffers at most `TLS_READ_BUFFER` bytes of what it reads
    (asyncio's default, 256 KiB, is kept for every connection's life), and an
    answer many times that size arrives whole, twice on one kept-alive connection."""
    pki = generate_pki(tmp_path)
    serving = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    serving.load_cert_chain(pki.serving_cert, pki.serving_key)
    async with Server(tls=serving) as tls_server:
        transport = tls_server.transport(
            server=f"https://127.0.0.1:{tls_server.port}",
            cluster={
                "certificate-authority": str(pki.ca_cert),
                "tls-server-name": "localhost",
            },
        )
        try:
            for _ in range(2):
                answer = await transport.send("GET", "/large")
                assert (answer.status, answer.body) == (200, _LARGE_BODY)
            assert tls_server.connections == 1
            if sys.version_info < (3, 11):
                return  # asyncio's TLS layer keeps no read buffer before 3.11
            protocols = [
                o
                for o in gc.get_objects()
                if isinstance(o, asyncio.sslproto.SSLProtocol)
            ]
            assert protocols, "the connections' TLS protocols"
            for protocol in protocols:
                assert len(protocol.get_buffer(-1)) == tp.TLS_READ_BUFFER
        finally:
            await transport.aclose()


async def test_a_401_is_sent_again_with_fresh_credentials(
    server: Server, tmp_path: Path
) -> None:
    """The transport asks the credentials again after a 401 and sends the request
    once more: a token file read again, the answer to the second try returned."""
    token = tmp_path / "token"
    token.write_text("old")
    transport = server.transport({"tokenFile": str(token)})
    try:
        server.accepted_token = "old"
        assert (await transport.send("GET", "/guarded")).status == 200
        token.write_text("new")
        server.accepted_token = "new"
        assert (await transport.send("GET", "/guarded")).status == 200
        sent = [headers["authorization"] for _, headers in server.requests]
        assert sent == ["Bearer old", "Bearer old", "Bearer new"]
        server.accepted_token = "other"
        refused = await transport.send("GET", "/guarded")
        assert refused.status == 401, "the file did not change: the 401 stands"
        async with transport.stream("GET", "/guarded", read_timeout=5) as stream:
            assert stream.status == 401
            assert await stream.read() == b"{}", "the 401 that stands can be read"
        token.write_text("other")
        async with transport.stream("GET", "/guarded", read_timeout=5) as stream:
            assert stream.status == 200
    finally:
        await transport.aclose()


async def test_headers_bodies_and_the_request_log(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    transport = server.transport()
    try:
        with caplog.at_level(logging.DEBUG, logger="opgen.runtime.transport"):
            answer = await transport.send(
                "PATCH",
                "/x?a=b",
                body=b"{}",
                content_type="application/merge-patch+json",
            )
        assert (answer.status, answer.body) == (200, b"{}")
        line, headers = server.requests[-1]
        assert line == "PATCH /x?a=b HTTP/1.1"
        assert headers["authorization"] == "Bearer secret"
        assert headers["user-agent"] == tp.USER_AGENT
        assert headers["accept"] == "application/json"
        assert headers["content-type"] == "application/merge-patch+json"
        # one DEBUG line per request
        assert any(
            r.name == "opgen.runtime.transport"
            and r.getMessage() == "PATCH /x?a=b: 200"
            for r in caplog.records
        )
    finally:
        await transport.aclose()
    assert transport.closed


async def test_paths_go_under_the_servers_path(server: Server) -> None:
    """A server URL with a path (a proxy in front of several clusters) prefixes
    every request's path; a percent-encoded path is sent as it is, and any other
    is quoted."""
    transport = server.transport(server=f"http://127.0.0.1:{server.port}/k8s/c-1/")
    try:
        for path, sent in (
            ("/api/v1/namespaces/a%20b/pods?labelSelector=app%3Dx&limit=5", None),
            ("/api/v1/namespaces/a b/pods", "/api/v1/namespaces/a%20b/pods"),
        ):
            assert (await transport.send("GET", path)).status == 200
            line, _ = server.requests[-1]
            assert line == f"GET /k8s/c-1{sent or path} HTTP/1.1"
    finally:
        await transport.aclose()


async def test_a_request_may_name_its_accept(server: Server) -> None:
    """A metadata-only read's `Accept` goes with that request alone."""
    transport = server.transport()
    try:
        await transport.send("GET", "/list", accept=METADATA_LIST_ACCEPT)
        async with transport.stream(
            "GET", "/watch", read_timeout=None, accept=METADATA_ACCEPT
        ) as stream:
            assert [line async for line in stream.lines()] == ["{}"]
        await transport.send("GET", "/plain")
        async with transport.stream("GET", "/plain-watch", read_timeout=None) as plain:
            await plain.read()
        sent = {line.split()[1]: headers["accept"] for line, headers in server.requests}
        assert sent == {
            "/list": METADATA_LIST_ACCEPT,
            "/watch": METADATA_ACCEPT,
            "/plain": "application/json",
            "/plain-watch": "application/json",
        }
    finally:
        await transport.aclose()


async def test_a_stream_is_read_line_by_line(server: Server) -> None:
    """Lines come whole however the body's chunks cut them; a trailing `\\r` is dropped."""
    transport = server.transport()
    try:
        async with transport.stream("GET", "/lines", read_timeout=None) as stream:
            lines = [line async for line in stream.lines()]
        assert lines == ["a", "bc", "d", "e", "f", "", "g", "h"]
    finally:
        await transport.aclose()


async def test_timeouts_end_requests_that_get_no_answer(server: Server) -> None:
    transport = server.transport(timeout=0.2)
    try:
        with pytest.raises(rt.TransportError) as silent:
            await transport.send("GET", "/silent?watch=true")
        assert silent.value.failure == "timeout"
        assert silent.value.url == f"http://127.0.0.1:{server.port}/silent"
        async with transport.stream("GET", "/stalls", read_timeout=0.2) as stream:
            assert stream.status == 200
            lines = stream.lines()
            assert await anext(lines) == "line1"
            with pytest.raises(rt.TransportError) as stalled:
                await anext(lines)
            assert stalled.value.failure == "timeout"
    finally:
        await transport.aclose()


async def test_every_failure_is_the_runtimes_transport_error(server: Server) -> None:
    """Refused, hung up on, cut off part-way: `rt.TransportError`, never the HTTP
    client's own class, with the client's exception kept as its cause."""
    transport = server.transport()
    try:
        with pytest.raises(rt.TransportError) as hung_up:
            await transport.send("GET", "/hangs-up")
        assert hung_up.value.failure == "disconnected"
        assert isinstance(hung_up.value.__cause__, aiohttp.ClientError)
        async with transport.stream("GET", "/cut-off", read_timeout=5) as stream:
            lines = stream.lines()
            assert await anext(lines) == "line1"
            with pytest.raises(rt.TransportError) as cut_off:
                await anext(lines)
            assert cut_off.value.failure == "disconnected"
    finally:
        await transport.aclose()
    await server.__aexit__()
    refused = server.transport()
    try:
        with pytest.raises(rt.TransportError) as no_server:
            await refused.send("GET", "/x")
        assert no_server.value.failure == "connect"
        assert str(no_server.value).startswith(
            f"GET http://127.0.0.1:{server.port}/x: cannot connect to the API server ("
        )
        with pytest.raises(rt.TransportError):
            async with refused.stream("GET", "/x", read_timeout=5):
                pass
    finally:
        await refused.aclose()


# -- credentials, against the API server ------------------------------------------


async def username(transport: Transport) -> str:
    """Who the API server says the transport's credentials are (SelfSubjectReview)."""
    body = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
    answer = await transport.send(
        "POST",
        "/apis/authentication.k8s.io/v1/selfsubjectreviews",
        body=json.dumps(body).encode(),
    )
    assert answer.status == 201, answer.body
    return str(json.loads(answer.body)["status"]["userInfo"]["username"])


def account(namespace: str, name: str) -> str:
    return f"system:serviceaccount:{namespace}:{name}"


@pytest.mark.envtest
async def test_client_certificate(envtest: Environment) -> None:
    transport = Transport.from_kubeconfig(envtest.kube_config())
    try:
        assert await username(transport)  # the admin's certificate names the user
    finally:
        await transport.aclose()


@pytest.mark.envtest
@pytest.mark.slow  # the API server caches a token's authentication for ~10 s
async def test_token_file_is_read_again_after_a_401(
    envtest: Environment,
    client: rt.Client,
    namespace: str,
    tmp_path: Path,
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(await token_for(client, "first", namespace))
    config = kubeconfig_for(envtest, {"tokenFile": str(token_file)})
    transport = Transport.from_kubeconfig(KubeConfig.from_dict(config))
    try:
        assert await username(transport) == account(namespace, "first")
        # The token is rotated, and the old one stops working (its account goes).
        token_file.write_text(await token_for(client, "second", namespace))
        await client.delete(
            op.k8s.ServiceAccount(
                metadata=op.ObjectMeta(name="first", namespace=namespace)
            )
        )
        names: list[str] = []

        async def rotated() -> bool:
            names.append(await username(transport))
            return names[-1] == account(namespace, "second")

        await eventually(rotated, timeout=30.0, message="the rotated credentials")
        assert set(names) <= {account(namespace, "first"), account(namespace, "second")}
    finally:
        await transport.aclose()


EXEC_V1BETA1 = "client.authentication.k8s.io/v1beta1"
EXEC_PLUGIN = """\
import json, pathlib, sys
here = pathlib.Path(sys.argv[1])
with (here / "runs").open("a") as runs:
    runs.write("run\\n")
print(json.dumps({
    "apiVersion": "client.authentication.k8s.io/v1beta1",
    "kind": "ExecCredential",
    "status": {"token": (here / "token").read_text().strip()},
}))
"""


@pytest.mark.envtest
@pytest.mark.slow  # the API server caches a token's authentication for ~10 s
async def test_exec_plugin_runs_again_after_a_401(
    envtest: Environment,
    client: rt.Client,
    namespace: str,
    tmp_path: Path,
) -> None:
    (tmp_path / "plugin.py").write_text(EXEC_PLUGIN)
    (tmp_path / "token").write_text(await token_for(client, "first", namespace))
    exec_user = {
        "exec": {
            "apiVersion": "client.authentication.k8s.io/v1beta1",
            "command": sys.executable,
            "args": [str(tmp_path / "plugin.py"), str(tmp_path)],
        }
    }
    config = kubeconfig_for(envtest, exec_user)
    transport = Transport.from_kubeconfig(KubeConfig.from_dict(config))

    def runs() -> int:
        return len((tmp_path / "runs").read_text().splitlines())

    try:
        assert await username(transport) == account(namespace, "first")
        assert await username(transport) == account(namespace, "first")
        assert runs() == 1, "the credential is kept until the server refuses it"
        (tmp_path / "token").write_text(await token_for(client, "second", namespace))
        await client.delete(
            op.k8s.ServiceAccount(
                metadata=op.ObjectMeta(name="first", namespace=namespace)
            )
        )

        async def rotated() -> bool:
            return await username(transport) == account(namespace, "second")

        await eventually(rotated, timeout=30.0, message="the rotated credentials")
        assert runs() == 2, "run once more, on the 401"
    finally:
        await transport.aclose()


async def test_exec_api_versions(server: Server, tmp_path: Path) -> None:
    """Exec plugins of the v1, v1beta1 and v1alpha1 APIs, each run again after a 401."""
    for version in (
        "client.authentication.k8s.io/v1",
        "client.authentication.k8s.io/v1beta1",
        "client.authentication.k8s.io/v1alpha1",
    ):
        (tmp_path / "plugin.py").write_text(EXEC_PLUGIN.replace(EXEC_V1BETA1, version))
        (tmp_path / "token").write_text("from-exec")
        exec_user = {
            "apiVersion": version,
            "command": sys.executable,
            "args": [str(tmp_path / "plugin.py"), str(tmp_path)],
            "interactiveMode": "Never",
        }
        transport = server.transport({"exec": exec_user})
        try:
            server.accepted_token = "from-exec"
            assert (await transport.send("GET", "/guarded")).status == 200
            assert server.requests[-1][1]["authorization"] == "Bearer from-exec"
            (tmp_path / "token").write_text("rotated")
            server.accepted_token = "rotated"
            assert (await transport.send("GET", "/guarded")).status == 200
            assert server.requests[-1][1]["authorization"] == "Bearer rotated"
        finally:
            await transport.aclose()
