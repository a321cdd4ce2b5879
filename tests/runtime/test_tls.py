"""Self-signed serving certificates made in a child process (`tls.ServingCertificate.generated`).

The serving process never imports `cryptography` for them (its import costs an
operator about 12 MiB for good); when the child cannot run, the certificate is
made in the process itself. Either way the server presents a certificate for
localhost and 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import sys
import textwrap
from pathlib import Path

import pytest

from opgen.runtime import tls
from tests.fresh import in_fresh_interpreter

ROOT = Path(__file__).parents[2]


async def _presented(context: ssl.SSLContext) -> tuple[str, list[str], set[str]]:
    """The subject, DNS names and IP addresses of the certificate a TLS server with
    `context` presents."""

    async def answer(
        reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0, ssl=context)
    port = server.sockets[0].getsockname()[1]
    client = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    client.check_hostname = False
    client.verify_mode = ssl.CERT_NONE
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port, ssl=client)
        der = writer.get_extra_info("ssl_object").getpeercert(binary_form=True)
        writer.close()
    finally:
        server.close()
        await server.wait_closed()
    from cryptography import x509

    certificate = x509.load_der_x509_certificate(der)
    names = certificate.extensions.get_extension_for_class(
        x509.SubjectAlternativeName
    ).value
    return (
        certificate.subject.rfc4514_string(),
        names.get_values_for_type(x509.DNSName),
        {str(ip) for ip in names.get_values_for_type(x509.IPAddress)},
    )


def test_a_generated_certificate_leaves_cryptography_out_of_the_process() -> None:
    script = textwrap.dedent("""
        import asyncio, sys
        from opgen.runtime import tls

        async def main():
            certificate = await tls.ServingCertificate.generated("opgen-metrics")
            assert certificate.self_signed
            assert "cryptography" not in sys.modules, "cryptography was imported"
            print("ok")

        asyncio.run(main())
        """)
    assert in_fresh_interpreter(script, cwd=ROOT) == "ok"


async def test_a_generated_certificate_names_localhost_and_the_loopback() -> None:
    certificate = await tls.ServingCertificate.generated("opgen-metrics")
    subject, dns_names, addresses = await _presented(certificate.context)
    assert subject == "CN=opgen-metrics"
    assert "localhost" in dns_names
    assert {"127.0.0.1", "::1"} <= addresses


async def test_without_a_child_the_certificate_is_made_in_the_process(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")
    with caplog.at_level(logging.WARNING, logger="opgen.runtime.tls"):
        certificate = await tls.ServingCertificate.generated("opgen-metrics")
    assert "making the certificate in this process" in caplog.text
    subject, _, _ = await _presented(certificate.context)
    assert subject == "CN=opgen-metrics"


async def test_a_failing_child_is_replaced_by_the_process_itself(
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
) -> None:
    failing = tmp_path / "selfsigned.py"
    failing.write_text("raise SystemExit('no cryptography')\n")
    monkeypatch.setattr(tls, "_SELF_SIGNED_SCRIPT", str(failing))
    with caplog.at_level(logging.WARNING, logger="opgen.runtime.tls"):
        certificate = await tls.ServingCertificate.generated("opgen-metrics")
    assert "the child exited with 1 (no cryptography)" in caplog.text
    subject, _, _ = await _presented(certificate.context)
    assert subject == "CN=opgen-metrics"
