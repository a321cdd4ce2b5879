"""Serving certificates for the manager's HTTPS endpoints (metrics, webhooks).

`ServingCertificate` builds the server's `ssl.SSLContext` from `tls.crt` and
`tls.key` in a directory (cert-manager's Secret layout, mounted into the pod)
and reloads them when the files change, so rotated certificates are picked
up without a restart. Without a directory it generates a self-signed
certificate at start, as Kubebuilder's default metrics server does. TLS 1.2 or
newer; ALPN offers HTTP/1.1 only.

`ServingCertificate.generated` makes the self-signed certificate in a child
Python process (`selfsigned.py` run as a script): `cryptography`, which only
certificate generation needs, then never loads into the serving process — its
import costs about 75 ms of CPU and 12.8 MiB of resident memory for the
process's whole life — and the child's work overlaps the caller's (the
manager's first lists). Should the child fail, the certificate is made in the
process itself.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from opgen.runtime import selfsigned
from opgen.runtime.selfsigned import (
    SELF_SIGNED_VALIDITY,
    certificate_builder,
    private_key_pem,
    self_signed_certificate,
    subject_alternative_names,
)

__all__ = [
    "SELF_SIGNED_VALIDITY",
    "ServingCertificate",
    "certificate_builder",
    "private_key_pem",
    "self_signed_certificate",
    "subject_alternative_names",
]

log = logging.getLogger("opgen.runtime.tls")

_SELF_SIGNED_SCRIPT = selfsigned.__file__
"""What the child runs: `-I` keeps the script's folder, the current directory,
the PYTHON* variables and the user's site-packages out of its path."""

_PRIVATE_KEY_BEGIN = b"-----BEGIN PRIVATE KEY-----"


def _server_context() -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.set_alpn_protocols(["http/1.1"])
    return context


def _load_pem(context: ssl.SSLContext, cert_pem: bytes, key_pem: bytes) -> None:
    """`load_cert_chain` from memory. The ssl module reads only files; on Linux they are
    memory files (memfd), so a read-only root filesystem (the scaffold's pod security
    settings) is no obstacle and the key never touches a disk."""
    if hasattr(os, "memfd_create"):
        cert_fd = os.memfd_create("tls.crt")
        key_fd = os.memfd_create("tls.key")
        try:
            os.write(cert_fd, cert_pem)
            os.write(key_fd, key_pem)
            context.load_cert_chain(
                f"/proc/self/fd/{cert_fd}", f"/proc/self/fd/{key_fd}"
            )
        finally:
            os.close(cert_fd)
            os.close(key_fd)
        return
    folder = tempfile.mkdtemp(prefix="opgen-serving-")  # mode 0700
    try:
        cert, key = Path(folder, "tls.crt"), Path(folder, "tls.key")
        cert.write_bytes(cert_pem)
        key.write_bytes(key_pem)
        context.load_cert_chain(cert, key)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _self_signed_hosts() -> list[str]:
    return ["localhost", socket.gethostname(), "127.0.0.1", "::1"]


async def _self_signed_in_child(
    common_name: str, hosts: Sequence[str]
) -> tuple[bytes, bytes] | None:
    """`self_signed_certificate(common_name, hosts)` run by a child Python; None
    (logged) when the child cannot run or fails."""
    if not sys.executable:
        return None
    try:
        child = await asyncio.create_subprocess_exec(
            sys.executable,
            "-I",
            _SELF_SIGNED_SCRIPT,
            common_name,
            *hosts,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except OSError as error:
        log.warning("making the certificate in this process: %s", error)
        return None
    try:
        out, err = await child.communicate()
    except asyncio.CancelledError:
        child.kill()
        await child.wait()
        raise
    cert_pem, marker, key_pem = out.partition(_PRIVATE_KEY_BEGIN)
    if child.returncode != 0 or not marker:
        lines = err.decode(errors="replace").strip().splitlines()
        log.warning(
            "making the certificate in this process: the child exited with %s (%s)",
            child.returncode,
            lines[-1] if lines else "no output",
        )
        return None
    return cert_pem, marker + key_pem


class ServingCertificate:
    """The SSL context of one HTTPS server, from files (reloaded on change) or self-signed."""

    def __init__(
        self,
        cert_dir: str | os.PathLike[str] | None,
        *,
        cert_name: str = "tls.crt",
        key_name: str = "tls.key",
        name: str = "opgen",
        made: tuple[bytes, bytes] | None = None,
    ) -> None:
        """Without `cert_dir`, self-signed: `made` (the certificate and key, PEM, for
        `_self_signed_hosts()`), else one made now for `name`."""
        self.cert_file = Path(cert_dir) / cert_name if cert_dir else None
        self.key_file = Path(cert_dir) / key_name if cert_dir else None
        self.context = _server_context()
        self._stamp: tuple[int, int] | None = None
        if self.cert_file is None:
            self._load_self_signed(name, made)
        else:
            self.reload()

    @property
    def self_signed(self) -> bool:
        return self.cert_file is None

    @classmethod
    async def generated(cls, name: str = "opgen") -> ServingCertificate:
        """A self-signed certificate made in a child process (see the module
        docstring); in this process should the child fail."""
        made = await _self_signed_in_child(name, _self_signed_hosts())
        return cls(None, name=name, made=made)

    def _load_self_signed(self, name: str, made: tuple[bytes, bytes] | None) -> None:
        hosts = _self_signed_hosts()
        cert_pem, key_pem = made or self_signed_certificate(name, hosts)
        _load_pem(self.context, cert_pem, key_pem)
        log.info("serving with a self-signed certificate for %s", ", ".join(hosts))

    def _files_stamp(self) -> tuple[int, int]:
        assert self.cert_file is not None and self.key_file is not None
        return (self.cert_file.stat().st_mtime_ns, self.key_file.stat().st_mtime_ns)

    def reload(self) -> bool:
        """Load the files again if they changed since last time; True when reloaded.

        New connections use the new certificate; established ones keep theirs.
        """
        if self.cert_file is None or self.key_file is None:
            return False
        stamp = self._files_stamp()
        if stamp == self._stamp:
            return False
        self.context.load_cert_chain(self.cert_file, self.key_file)
        self._stamp = stamp
        log.info("loaded serving certificate %s", self.cert_file)
        return True

    async def watch(self, interval: float = 10.0) -> None:
        """Reload on change until cancelled (cert-manager rotates the mounted files)."""
        while True:
            await asyncio.sleep(interval)
            try:
                self.reload()
            except (OSError, ssl.SSLError) as error:
                log.warning("keeping the current serving certificate: %s", error)
