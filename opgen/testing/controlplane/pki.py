"""Certificates and keys for a throwaway control plane, made with `cryptography`.

One EC P-256 CA signs the kube-apiserver's serving certificate (SAN
localhost and 127.0.0.1) and the admin client certificate (CN=admin,
O=system:masters, so RBAC lets it do anything). A separate key pair signs and
verifies service-account tokens. Everything lives for a week and is written
with owner-only permissions.
"""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from opgen.runtime.tls import certificate_builder, private_key_pem

__all__ = ["ADMIN_GROUP", "ADMIN_USER", "Pki", "generate_pki"]

ADMIN_USER = "admin"
ADMIN_GROUP = "system:masters"
VALIDITY = datetime.timedelta(days=7)


@dataclass(frozen=True)
class Pki:
    """Paths of the files the control plane and its clients use, plus PEM data."""

    ca_cert: Path
    serving_cert: Path
    serving_key: Path
    client_cert: Path
    client_key: Path
    service_account_public_key: Path
    service_account_private_key: Path
    ca_pem: bytes
    client_cert_pem: bytes
    client_key_pem: bytes


def _private_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _cert_pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def _builder(
    subject: x509.Name, issuer: x509.Name, public_key: ec.EllipticCurvePublicKey
) -> x509.CertificateBuilder:
    return certificate_builder(subject, issuer, public_key, VALIDITY)


def _key_usage(*, signs_certificates: bool) -> x509.KeyUsage:
    """Digital signatures always; certificate and CRL signing for the CA only."""
    return x509.KeyUsage(
        digital_signature=True,
        content_commitment=False,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=signs_certificates,
        crl_sign=signs_certificates,
        encipher_only=False,
        decipher_only=False,
    )


def _leaf(
    subject: x509.Name,
    usage: x509.ObjectIdentifier,
    ca_name: x509.Name,
    ca_key: ec.EllipticCurvePrivateKey,
    san: x509.SubjectAlternativeName | None = None,
) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = _private_key()
    builder = (
        _builder(subject, ca_name, key.public_key())
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_key_usage(signs_certificates=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
    )
    if san is not None:
        builder = builder.add_extension(san, critical=False)
    return builder.sign(ca_key, hashes.SHA256()), key


def _write(path: Path, data: bytes, secret: bool = False) -> Path:
    path.write_bytes(data)
    path.chmod(0o600 if secret else 0o644)
    return path


def generate_pki(directory: Path) -> Pki:
    """Create the CA, serving and client certificates and the SA key pair in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    ca_key = _private_key()
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "opgen-envtest-ca")])
    ca_cert = (
        _builder(ca_name, ca_name, ca_key.public_key())
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(_key_usage(signs_certificates=True), critical=True)
        .add_extension(
            x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False
        )
        .sign(ca_key, hashes.SHA256())
    )
    serving_cert, serving_key = _leaf(
        x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]),
        ExtendedKeyUsageOID.SERVER_AUTH,
        ca_name,
        ca_key,
        san=x509.SubjectAlternativeName(
            [
                x509.DNSName("localhost"),
                x509.IPAddress(ipaddress.IPv4Address("127.0.0.1")),
            ]
        ),
    )
    client_cert, client_key = _leaf(
        x509.Name(
            [
                x509.NameAttribute(NameOID.ORGANIZATION_NAME, ADMIN_GROUP),
                x509.NameAttribute(NameOID.COMMON_NAME, ADMIN_USER),
            ]
        ),
        ExtendedKeyUsageOID.CLIENT_AUTH,
        ca_name,
        ca_key,
    )
    sa_key = _private_key()
    sa_public_pem = sa_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    ca_pem = _cert_pem(ca_cert)
    client_cert_pem = _cert_pem(client_cert)
    client_key_pem = private_key_pem(client_key)
    return Pki(
        ca_cert=_write(directory / "ca.crt", ca_pem),
        serving_cert=_write(directory / "apiserver.crt", _cert_pem(serving_cert)),
        serving_key=_write(
            directory / "apiserver.key", private_key_pem(serving_key), secret=True
        ),
        client_cert=_write(directory / "admin.crt", client_cert_pem),
        client_key=_write(directory / "admin.key", client_key_pem, secret=True),
        service_account_public_key=_write(directory / "sa.pub", sa_public_pem),
        service_account_private_key=_write(
            directory / "sa.key", private_key_pem(sa_key), secret=True
        ),
        ca_pem=ca_pem,
        client_cert_pem=client_cert_pem,
        client_key_pem=client_key_pem,
    )
