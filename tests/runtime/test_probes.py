"""The health probe and metrics server (`probes.ProbeServer`) on its own, over HTTP and HTTPS.

Checks answer 200 or 500 with the list kubelet and `kubectl` show; a guard
answers instead of a route (the metrics server's authentication); a path
without a route is a 404, a method other than GET or HEAD a 405; what is not
HTTP/1.1 (an HTTP/2 preface, garbage) is a 400; a silent connection is closed
after the read timeout; HTTPS offers HTTP/1.1 alone.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import AsyncIterator

import aiohttp
import pytest

from opgen.runtime import probes, tls

TEXT = "text/plain; charset=utf-8"


async def _failing() -> None:
    raise RuntimeError("informers not synced: widgets")


async def _ok() -> None:
    return None


async def _guard(request: probes.Request) -> probes.Response | None:
    if request.headers.get("authorization") != "Bearer let-me-in":
        return probes.Response(401, TEXT, b"Unauthorized\n")
    return None


async def _metrics() -> probes.Response:
    return probes.Response(200, "text/plain; version=0.0.4", b"up 1\n")


def _routes() -> dict[str, probes.Route]:
    return {
        "/healthz": probes.checks_route({"ping": _ok}),
        "/readyz": probes.checks_route({"ping": _ok, "informers": _failing}),
    }


@pytest.fixture
async def plain() -> AsyncIterator[probes.ProbeServer]:
    server = probes.ProbeServer("127.0.0.1", 0, _routes(), read_timeout=0.5)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def _get(
    url: str, *, method: str = "GET", headers: dict[str, str] | None = None
) -> tuple[int, str]:
    async with (
        aiohttp.ClientSession() as session,
        session.request(method, url, headers=headers, ssl=False) as answer,
    ):
        return answer.status, await answer.text()


async def test_checks_answer_200_or_500_listing_each(
    plain: probes.ProbeServer,
) -> None:
    base = f"http://127.0.0.1:{plain.port}"
    assert await _get(f"{base}/healthz") == (200, "[+]ping ok\nok\n")
    status, text = await _get(f"{base}/readyz")
    assert status == 500
    assert text.splitlines() == [
        "[-]informers failed: informers not synced: widgets",
        "[+]ping ok",
        "check failed",
    ]
    assert await _get(f"{base}/healthz", method="HEAD") == (200, "")
    assert (await _get(f"{base}/healthz/"))[0] == 200
    assert (await _get(f"{base}/nowhere"))[0] == 404
    assert (await _get(f"{base}/healthz", method="POST"))[0] == 405


async def test_what_is_not_http_1_is_a_400_and_silence_is_closed(
    plain: probes.ProbeServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, "opgen.runtime.probes")
    for request in (
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",  # HTTP/2 with prior knowledge
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",  # TLS to the plain port
        b"GET /healthz HTTP/1.1\r\n\r\n",  # no Host
    ):
        reader, writer = await asyncio.open_connection("127.0.0.1", plain.port)
        writer.write(request)
        answer = await reader.read()
        writer.close()
        assert answer.split(b" ", 2)[1] == b"400", (request, answer)
    reader, writer = await asyncio.open_connection("127.0.0.1", plain.port)
    assert await reader.read() == b""  # nothing sent: closed after the read timeout
    writer.close()
    assert (await _get(f"http://127.0.0.1:{plain.port}/healthz"))[0] == 200
    # The client's fault: a warning line each (TLS on the plain port, the first
    # thing on a connection, only at DEBUG, as port scanners send it), no traceback.
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2, [r.getMessage() for r in warnings]
    assert all("400 for a malformed request" in r.getMessage() for r in warnings)
    shown = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert not [r for r in shown if r.exc_info or r.levelno > logging.WARNING]


async def test_a_route_that_raises_is_a_500_and_an_error_with_its_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def broken() -> probes.Response:
        raise RuntimeError("the registry is gone")

    server = probes.ProbeServer("127.0.0.1", 0, {"/metrics": broken})
    await server.start()
    try:
        assert (await _get(f"http://127.0.0.1:{server.port}/metrics"))[0] == 500
    finally:
        await server.stop()
    (error,) = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert error.name == "opgen.runtime.probes"
    assert error.exc_info is not None and "the registry is gone" in str(
        error.exc_info[1]
    )


async def test_https_with_a_guard_offers_http_1_1_only() -> None:
    certificate = tls.ServingCertificate(None, name="probes-test")
    server = probes.ProbeServer(
        "127.0.0.1",
        0,
        {"/metrics": _metrics},
        ssl_context=certificate.context,
        guard=_guard,
    )
    await server.start()
    try:
        assert server.scheme == "https"
        url = f"https://127.0.0.1:{server.port}/metrics"
        assert await _get(url) == (401, "Unauthorized\n")
        allowed = {"Authorization": "Bearer let-me-in"}
        assert await _get(url, headers=allowed) == (200, "up 1\n")
        assert (await _get(f"https://127.0.0.1:{server.port}/nowhere"))[0] == 404

        offering_h2 = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        offering_h2.check_hostname = False
        offering_h2.verify_mode = ssl.CERT_NONE
        offering_h2.set_alpn_protocols(["h2", "http/1.1"])
        _, writer = await asyncio.open_connection(
            "127.0.0.1", server.port, ssl=offering_h2
        )
        ssl_object = writer.get_extra_info("ssl_object")
        assert ssl_object.selected_alpn_protocol() == "http/1.1"
        writer.close()

        with pytest.raises(aiohttp.ClientError):  # plain HTTP is not served
            await _get(f"http://127.0.0.1:{server.port}/metrics")
    finally:
        await server.stop()
    assert not server.serving
