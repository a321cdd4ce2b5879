"""Self-signed serving certificates, with `cryptography`: the part of `tls` that needs it.

A module of its own, importing nothing of opgen and little of the standard
library, so that it also runs as a script (`python -I selfsigned.py NAME
HOST...` writes a certificate and its key, PEM, to stdout): the manager makes
its self-signed metrics certificate in such a child process
(`tls.ServingCertificate.generated`), and `cryptography` (about 12 MiB resident
for the process's whole life) stays out of the serving process.
"""

from __future__ import annotations

import datetime
import ipaddress
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # imported where used: most operators never make a certificate
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric import ec

__all__ = [
    "SELF_SIGNED_VALIDITY",
    "certificate_builder",
    "private_key_pem",
    "self_signed_certificate",
    "subject_alternative_names",
]

SELF_SIGNED_VALIDITY = datetime.timedelta(days=365)


def subject_alternative_names(hosts: Sequence[str]) -> x509.SubjectAlternativeName:
    """The SAN extension for `hosts`: IP addresses as such, anything else as DNS names."""
    from cryptography import x509

    names: list[x509.GeneralName] = []
    for host in dict.fromkeys(hosts):
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    return x509.SubjectAlternativeName(names)


def certificate_builder(
    subject: x509.Name,
    issuer: x509.Name,
    public_key: ec.EllipticCurvePublicKey,
    validity: datetime.timedelta,
) -> x509.CertificateBuilder:
    """A builder valid from five minutes ago (clock skew) for `validity`."""
    from cryptography import x509

    now = datetime.datetime.now(datetime.timezone.utc)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + validity)
    )


def private_key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    """`key` as unencrypted PKCS#8 PEM."""
    from cryptography.hazmat.primitives import serialization

    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def self_signed_certificate(
    common_name: str, hosts: Sequence[str]
) -> tuple[bytes, bytes]:
    """A self-signed serving certificate and its key (PEM) for `hosts` (names or IPs)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    certificate = (
        certificate_builder(subject, subject, key.public_key(), SELF_SIGNED_VALIDITY)
        .add_extension(subject_alternative_names(hosts), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    return certificate.public_bytes(serialization.Encoding.PEM), private_key_pem(key)


if __name__ == "__main__":
    certificate, private_key = self_signed_certificate(sys.argv[1], sys.argv[2:])
    sys.stdout.buffer.write(certificate + private_key)
