"""The webhook server's HTTPS: framing, refusals, timeouts, TLS, certificates, metrics.

Requests that are not a JSON POST of a sane size get a 4xx in the endpoint's
own review format and a log line; a silent or slow client costs a
connection, never the server; rotated certificate files are served without
a restart.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import ssl
from pathlib import Path
from typing import Any

import pytest

import opgen.api as op
from opgen import runtime as rt
from opgen.runtime.webhook import write_local_certificates
from tests.waiting import until
from tests.webhook.handlers import CrashValidator, GizmoConversion, PetDefaulter
from tests.webhook.kinds_v1 import Pet
from tests.webhook.serving import Client, ServerThread, review

MUTATE = "/mutate-webhook-opgen-dev-v1-pet"
CRASH = "/validate-webhook-opgen-dev-v1-crash"


def pet_review(uid: str = "u-1", **spec: Any) -> bytes:
    return review(
        "AdmissionReview",
        {
            "uid": uid,
            "kind": {"group": "webhook.opgen.dev", "version": "v1", "kind": "Pet"},
            "operation": "CREATE",
            "name": "rex",
            "object": {
                "apiVersion": "webhook.opgen.dev/v1",
                "kind": "Pet",
                "metadata": {"name": "rex"},
                "spec": {"name": "rex", **spec},
            },
        },
    )


@pytest.fixture
def server() -> Any:
    with ServerThread(PetDefaulter(), CrashValidator(), GizmoConversion()) as running:
        yield running


def test_one_connection_serves_many_reviews(server: ServerThread) -> None:
    client = Client(server)
    for index in range(5):
        reply = client.post(MUTATE, pet_review(f"u-{index}"))
        assert reply.status == 200
        assert reply.json()["response"]["uid"] == f"u-{index}"
        # HTTP/1.1 keeps the connection unless the answer says `Connection: close`.
        assert reply.headers.get("connection", "keep-alive") == "keep-alive"
    assert client.connections == 1


@pytest.mark.parametrize(
    ("method", "path", "headers", "body", "status"),
    [
        ("POST", "/nowhere", {}, b"{}", 404),
        ("GET", MUTATE, {}, b"", 405),
        ("PUT", MUTATE, {}, b"{}", 405),
        ("POST", MUTATE, {"Content-Type": "text/plain"}, b"{}", 415),
        ("POST", MUTATE, {"Content-Type": "application/yaml"}, b"{}", 415),
        ("POST", MUTATE, {}, b"not json", 400),
        ("POST", MUTATE, {}, b"[1, 2]", 400),
        ("POST", MUTATE, {}, b'{"kind": "AdmissionReview"}', 400),
        ("POST", "/convert", {}, b'{"apiVersion": "v1"}', 400),
    ],
)
def test_bad_requests_get_a_4xx_in_the_endpoints_format(
    server: ServerThread,
    method: str,
    path: str,
    headers: dict[str, str],
    body: bytes,
    status: int,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, "opgen.runtime.webhook")
    reply = Client(server).post(path, body, headers, method=method)
    assert reply.status == status
    document = reply.json()
    if path == MUTATE:
        assert document["kind"] == "AdmissionReview"
        assert document["response"]["allowed"] is False
    elif path == "/convert":
        assert document["kind"] == "ConversionReview"
        assert document["response"]["result"]["status"] == "Failure"
    else:
        assert (document["kind"], document["code"]) == ("Status", 404)
    assert any(
        str(status) in r.getMessage() or "bad request" in r.getMessage()
        for r in caplog.records
    )
    assert server.call(_ready) is None  # still serving


async def _ready() -> None:
    return None


def test_oversized_and_unframed_bodies_are_refused_unread(server: ServerThread) -> None:
    limit = server.server.options.max_request_bytes
    with server.raw() as tls:
        tls.sendall(
            f"POST {MUTATE} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {limit + 1}\r\n\r\n".encode()
        )
        answer = _read_all(tls)
    assert _status(answer) == 413
    assert json.loads(answer.partition(b"\r\n\r\n")[2])["kind"] == "AdmissionReview"
    with server.raw() as tls:
        tls.sendall(
            f"POST {MUTATE} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n".encode()
        )
        assert _status(_read_all(tls)) == 411
    # What aiohttp cannot parse gets its own 400 (plain text), then the connection closes.
    for malformed in (
        b"NONSENSE\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: x\r\n" + b"X-Many: 1\r\n" * 200 + b"\r\n",
        f"POST {MUTATE} HTTP/1.1\r\nHost: x\r\nX-Long: {'a' * 9000}\r\n\r\n".encode(),
        f"POST {MUTATE} HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n"
        "Content-Length: 2\r\n\r\n{}".encode(),
        f"POST {MUTATE} HTTP/1.1\r\nHost: x\r\nContent-Length: 2x\r\n\r\n".encode(),
        f"POST {MUTATE} HTTP/1.1\r\nContent-Length: 2\r\n\r\n{{}}".encode(),
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    ):
        with server.raw() as tls:
            tls.sendall(malformed)
            assert _status(_read_all(tls)) == 400, malformed[:40]
    assert Client(server).post(MUTATE, pet_review()).status == 200


def _read_all(tls: ssl.SSLSocket) -> bytes:
    """Everything until the server closes the connection."""
    chunks = []
    while chunk := tls.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def _status(answer: bytes) -> int:
    """The status code of an HTTP/1.x answer's status line."""
    version, code, _ = answer.split(b" ", 2)
    assert version in (b"HTTP/1.0", b"HTTP/1.1"), answer[:40]
    return int(code)


def test_a_silent_client_is_closed_and_a_slow_body_timed_out() -> None:
    server = ServerThread(PetDefaulter())
    server.server.read_timeout = 0.2
    server.server.body_timeout = 0.2
    with server:
        with server.raw() as tls:
            assert _read_all(tls) == b""  # nothing sent: closed without an answer
        with server.raw() as tls:
            tls.sendall(f"POST {MUTATE} HTTP/1.1\r\nContent-Ty".encode())
            assert _read_all(tls) == b""  # a head begun but never ended: the same
        with server.raw() as tls:
            tls.sendall(
                f"POST {MUTATE} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                'Content-Length: 100\r\n\r\n{"kind":'.encode()
            )
            assert _status(_read_all(tls)) == 408
        assert Client(server).post(MUTATE, pet_review()).status == 200


def test_a_handler_that_runs_too_long_is_refused() -> None:
    @op.webhook(Pet, mutating=True)
    class Stuck:
        async def default(self, obj: Pet) -> None:
            await asyncio.Event().wait()

    with ServerThread(Stuck(), handler_timeout=0.2) as server:
        reply = Client(server).post(MUTATE, pet_review())
    response = reply.json()["response"]
    assert reply.status == 200 and response["allowed"] is False
    assert response["status"]["code"] == 500
    assert "did not answer within" in response["status"]["message"]


def test_a_raising_handler_is_a_refusal_and_a_panic(server: ServerThread) -> None:
    body = review(
        "AdmissionReview",
        {
            "uid": "u-crash",
            "kind": {"group": "webhook.opgen.dev", "version": "v1", "kind": "Crash"},
            "operation": "CREATE",
            "object": {
                "apiVersion": "webhook.opgen.dev/v1",
                "kind": "Crash",
                "spec": {},
            },
        },
    )
    response = Client(server).post(CRASH, body).json()["response"]
    assert response["allowed"] is False
    assert "the crash handler always raises" in response["status"]["message"]
    registry = server.metrics.registry
    assert registry.get_sample_value("controller_runtime_webhook_panics_total") == 1


def test_metrics_use_controller_runtimes_names(server: ServerThread) -> None:
    client = Client(server)
    client.post(MUTATE, pet_review())
    client.post(MUTATE, b"not json")
    registry = server.metrics.registry
    sample = registry.get_sample_value
    assert (
        sample(
            "controller_runtime_webhook_requests_total",
            {"webhook": MUTATE, "code": "200"},
        )
        == 1
    )
    assert (
        sample(
            "controller_runtime_webhook_requests_total",
            {"webhook": MUTATE, "code": "400"},
        )
        == 1
    )
    assert (
        sample("controller_runtime_webhook_requests_in_flight", {"webhook": MUTATE})
        == 0
    )
    assert (
        sample("controller_runtime_webhook_latency_seconds_count", {"webhook": MUTATE})
        == 2
    )
    assert sample("controller_runtime_conversion_webhook_panics_total") == 0


def test_tls_is_1_2_or_newer_and_http_1_1_only(server: ServerThread) -> None:
    certificate = server.server.certificate
    assert certificate is not None
    assert certificate.context.minimum_version == ssl.TLSVersion.TLSv1_2
    offering_h2 = server.context()
    offering_h2.set_alpn_protocols(["h2", "http/1.1"])
    with (
        socket.create_connection(("127.0.0.1", server.port)) as sock,
        offering_h2.wrap_socket(sock) as tls,
    ):
        assert tls.selected_alpn_protocol() == "http/1.1"
        assert tls.version() in ("TLSv1.2", "TLSv1.3")


def test_readiness_waits_for_the_server() -> None:
    server = ServerThread(PetDefaulter())
    server._thread.start()
    try:
        with pytest.raises(RuntimeError, match="not serving"):
            server.call(server.server.check_ready)
        server.call(server.server.start)
        assert server.call(server.server.check_ready) is None
    finally:
        server.__exit__()


def test_rotated_certificate_files_are_served_without_a_restart(tmp_path: Path) -> None:
    first = write_local_certificates(tmp_path, ["127.0.0.1"])
    with ServerThread(PetDefaulter(), cert_path=str(tmp_path)) as server:
        server.server.reload_interval = 0.05
        served = _served_certificate(server)
        assert served == first.cert_file.read_bytes().decode().strip()
        second = write_local_certificates(tmp_path, ["127.0.0.1"])
        rotated = second.cert_file.read_bytes().decode().strip()
        assert rotated != served
        until(lambda: _served_certificate(server) == rotated, "the new certificate")


def _served_certificate(server: ServerThread) -> str:
    with (
        socket.create_connection(("127.0.0.1", server.port)) as sock,
        server.context().wrap_socket(sock) as tls,
    ):
        der = tls.getpeercert(binary_form=True)
    assert der is not None
    return ssl.DER_cert_to_PEM_cert(der).strip()


def test_a_missing_certificate_folder_is_a_clear_error(tmp_path: Path) -> None:
    server = rt.webhook.WebhookServer(
        rt.WebhookOptions(host="127.0.0.1", port=0, cert_path=str(tmp_path / "none"))
    )
    server.add(PetDefaulter())
    with pytest.raises(FileNotFoundError, match="--webhook-cert-path"):
        asyncio.run(server.start())
