"""Certificates for the webhook server: where they are found, and local ones made here.

In a cluster the serving certificate is cert-manager's Secret mounted into the
pod (`--webhook-cert-path`). Without a path the server looks where
controller-runtime looks, `<tmp>/k8s-webhook-server/serving-certs/`, and
falls back to a self-signed certificate (which the API server will not trust:
a warning says so).

For local development and tests, `write_local_certificates` makes a CA and a
serving certificate for the addresses the API server will call (127.0.0.1,
a host's IP or name); the webhook configurations carry the CA as their
`caBundle`. Nothing here talks to a cluster.
"""

from __future__ import annotations

import datetime
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from opgen.runtime import tls

if TYPE_CHECKING:
    from cryptography import x509  # imported where used, as in `tls`

__all__ = [
    "DEFAULT_CERT_DIR",
    "LocalCertificates",
    "default_cert_dir",
    "write_local_certificates",
]

LOCAL_VALIDITY = datetime.timedelta(days=30)


def default_cert_dir() -> Path:
    """`<tmp>/k8s-webhook-server/serving-certs`, controller-runtime's default CertDir."""
    return Path(tempfile.gettempdir(), "k8s-webhook-server", "serving-certs")


DEFAULT_CERT_DIR = default_cert_dir()


@dataclass(frozen=True)
class LocalCertificates:
    """A CA and the serving certificate and key it signed, written to `directory`."""

    directory: Path
    ca_pem: bytes
    """The CA certificate: the webhook configurations' `caBundle`."""
    cert_file: Path
    key_file: Path
    hosts: tuple[str, ...]


def _name(common_name: str) -> x509.Name:
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def write_local_certificates(
    directory: str | os.PathLike[str],
    hosts: Sequence[str],
    *,
    cert_name: str = "tls.crt",
    key_name: str = "tls.key",
    validity: datetime.timedelta = LOCAL_VALIDITY,
) -> LocalCertificates:
    """Write `ca.crt`, `<cert_name>` and `<key_name>` (owner-only) for `hosts`.

    Files are replaced atomically, so a running server's reload never reads
    half a key.
    """
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID

    if not hosts:
        raise ValueError("a serving certificate needs at least one host")
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = _name("opgen-webhook-ca")
    ca = (
        tls.certificate_builder(ca_name, ca_name, ca_key.public_key(), validity)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        tls.certificate_builder(_name(hosts[0]), ca_name, key.public_key(), validity)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False
        )
        .add_extension(tls.subject_alternative_names(hosts), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    ca_pem = ca.public_bytes(serialization.Encoding.PEM)
    key_pem = tls.private_key_pem(key)
    _replace(folder / "ca.crt", ca_pem, mode=0o644)
    _replace(folder / key_name, key_pem, mode=0o600)
    _replace(
        folder / cert_name, leaf.public_bytes(serialization.Encoding.PEM), mode=0o644
    )
    return LocalCertificates(
        directory=folder,
        ca_pem=ca_pem,
        cert_file=folder / cert_name,
        key_file=folder / key_name,
        hosts=tuple(hosts),
    )


def _replace(path: Path, data: bytes, *, mode: int) -> None:
    staging = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    staging.write_bytes(data)
    staging.chmod(mode)
    os.replace(staging, path)
