"""Credentials: the headers a context's user sends, kept until they expire or the
server refuses them.

A `Source` fetches headers: a fixed token or basic auth; a token file, read again
every minute and after a 401 (a rotated service-account token, as client-go
does); an exec plugin (`client.authentication.k8s.io` v1, v1beta1, v1alpha1), run
again when its credential's `expirationTimestamp` passes or after a 401.
`Credentials` keeps what the source last gave and is the transport's seam:
`current()` before a request, `after_401(sent)` when the server refused it.
"""

from __future__ import annotations

import asyncio
import base64
import datetime
import json
import logging
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from opgen.runtime.kubeconfig.settings import (
    Cluster,
    ConfigError,
    ExecConfig,
    NoCluster,
    User,
)

__all__ = [
    "TOKEN_FILE_PERIOD",
    "Credentials",
    "ExecPlugin",
    "Fetched",
    "Fixed",
    "Source",
    "TokenFile",
    "source_for",
]

log = logging.getLogger("opgen.runtime.kubeconfig")

TOKEN_FILE_PERIOD = 60.0
"""Seconds a token read from a file is used before the file is read again (client-go's)."""


@dataclass(frozen=True)
class Fetched:
    headers: Mapping[str, str]
    expires: float | None = None
    """When to fetch again (`time.time()` seconds); None: only after a 401."""


class Source(Protocol):
    async def fetch(self, refused: bool) -> Fetched | None:
        """Headers to send; `refused`: the server answered the last ones with 401.
        None when there is nothing new to try (a fixed token: the 401 stands)."""


class Fixed:
    """A token or basic auth from the kubeconfig itself."""

    def __init__(self, headers: Mapping[str, str]) -> None:
        self.headers = dict(headers)

    async def fetch(self, refused: bool) -> Fetched | None:
        return None if refused else Fetched(self.headers)


class TokenFile:
    """A bearer token read from a file, again every `TOKEN_FILE_PERIOD` and after a 401."""

    def __init__(
        self, path: Path, where: str, clock: Callable[[], float] = time.time
    ) -> None:
        self.path = path
        self.where = where
        self.clock = clock
        self._last: str | None = None

    async def fetch(self, refused: bool) -> Fetched | None:
        try:
            token = self.path.read_text().strip()
        except OSError as error:
            if self._last is None:
                raise ConfigError(
                    f"{self.where}: cannot read tokenFile {self.path} ({error}); "
                    "fix the path, or mount the token there"
                ) from None
            log.warning("keeping the token read before: %s: %s", self.path, error)
            token = self._last
        self._last = token
        return Fetched(
            {"Authorization": f"Bearer {token}"}, self.clock() + TOKEN_FILE_PERIOD
        )


def _timestamp(text: str) -> float:
    """An RFC 3339 time (`2026-01-02T03:04:05Z`, fractions allowed) as `time.time()` seconds."""
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


class ExecPlugin:
    """A credential plugin: run, its `ExecCredential` read from its output."""

    def __init__(self, config: ExecConfig, cluster: Cluster, where: str) -> None:
        self.config = config
        self.cluster = cluster
        self.where = f"{where}: exec plugin `{config.command}`"

    def _exec_info(self) -> str:
        spec: dict[str, Any] = {"interactive": False}
        if self.config.provide_cluster_info:
            cluster: dict[str, Any] = {"server": self.cluster.server}
            if self.cluster.tls_server_name:
                cluster["tls-server-name"] = self.cluster.tls_server_name
            if self.cluster.insecure_skip_tls_verify:
                cluster["insecure-skip-tls-verify"] = True
            ca = self.cluster.certificate_authority_data
            if ca is None and self.cluster.certificate_authority is not None:
                ca = self.cluster.certificate_authority.read_bytes()
            if ca is not None:
                cluster["certificate-authority-data"] = base64.b64encode(ca).decode()
            if self.cluster.proxy_url:
                cluster["proxy-url"] = self.cluster.proxy_url
            if self.cluster.exec_config is not None:
                cluster["config"] = self.cluster.exec_config
            spec["cluster"] = cluster
        return json.dumps(
            {
                "apiVersion": self.config.api_version,
                "kind": "ExecCredential",
                "spec": spec,
            }
        )

    async def fetch(self, refused: bool) -> Fetched | None:
        env = {
            **os.environ,
            **dict(self.config.env),
            "KUBERNETES_EXEC_INFO": self._exec_info(),
        }
        try:
            process = await asyncio.create_subprocess_exec(
                self.config.command,
                *self.config.args,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=env,
            )
        except OSError as error:
            hint = self.config.install_hint or "install it, or fix `command`"
            raise ConfigError(
                f"{self.where}: cannot run it ({error.strerror or error}); "
                + " ".join(hint.split())
            ) from None
        out, err = await process.communicate()
        if process.returncode != 0:
            said = " ".join(err.decode(errors="replace").split())[-500:]
            raise ConfigError(
                f"{self.where}: exited with status {process.returncode}"
                + (f": {said}" if said else "")
                + "; run it by hand to see why"
            )
        return self._read(out)

    def _read(self, out: bytes) -> Fetched:
        try:
            credential = json.loads(out)
        except ValueError:
            credential = None
        if not isinstance(credential, dict) or credential.get("kind") != (
            "ExecCredential"
        ):
            raise ConfigError(
                f"{self.where}: its output is not an ExecCredential (JSON); "
                "check the plugin and its `args`"
            )
        if credential.get("apiVersion") != self.config.api_version:
            raise ConfigError(
                f"{self.where}: it answered apiVersion "
                f"{credential.get('apiVersion')!r}, the kubeconfig asks for "
                f"{self.config.api_version}; set `apiVersion` to what it speaks"
            )
        status = credential.get("status") or {}
        if status.get("clientCertificateData") or status.get("clientKeyData"):
            raise ConfigError(
                f"{self.where}: it returns a client certificate, which opgen does "
                "not support from exec plugins; use a plugin mode that returns a token"
            )
        token = status.get("token")
        if not isinstance(token, str) or not token:
            raise ConfigError(f"{self.where}: its ExecCredential has no status.token")
        expires = status.get("expirationTimestamp")
        try:
            at = _timestamp(expires) if expires else None
        except (TypeError, ValueError):
            raise ConfigError(
                f"{self.where}: expirationTimestamp {expires!r} is not an "
                "RFC 3339 time"
            ) from None
        return Fetched({"Authorization": f"Bearer {token}"}, at)


def source_for(user: User, cluster: Cluster, where: str) -> Source | None:
    """What fetches `user`'s headers; None for a user without credentials (or with
    a client certificate only, which the TLS context carries)."""
    if user.exec is not None:
        return ExecPlugin(user.exec, cluster, where)
    if user.token_file is not None:  # client-go: the file wins over `token`
        return TokenFile(user.token_file, where)
    if user.token is not None and user.username is not None:
        raise NoCluster(
            f"{where}: the user sets both a token and username/password; keep one"
        )
    if user.token is not None:
        return Fixed({"Authorization": f"Bearer {user.token}"})
    if user.username is not None:
        basic = f"{user.username}:{user.password or ''}".encode()
        return Fixed({"Authorization": f"Basic {base64.b64encode(basic).decode()}"})
    return None


class Credentials:
    """The headers a context's credentials set: fetched once, again when they
    expire, and again after a 401.

    The headers are kept for every request. When the server answers 401, the
    source is asked again — once for all the requests that got it — and the
    request is sent again with the new headers.
    """

    def __init__(
        self, source: Source | None, *, clock: Callable[[], float] = time.time
    ) -> None:
        self._source = source
        self._clock = clock
        self.headers: Mapping[str, str] | None = {} if source is None else None
        """The headers to send (None until the source has been asked)."""
        self._expires: float | None = None
        self._lock: asyncio.Lock | None = None

    def _locked(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    def _stale(self) -> bool:
        return self.headers is None or (
            self._expires is not None and self._clock() >= self._expires
        )

    async def current(self) -> Mapping[str, str]:
        if self._stale():
            async with self._locked():
                if self._stale():
                    assert self._source is not None
                    self._keep(await self._source.fetch(False))
        assert self.headers is not None
        return self.headers

    async def after_401(self, sent_with: Mapping[str, str]) -> Mapping[str, str] | None:
        """New headers for a request that `sent_with` got a 401 for; None when the
        credentials do not change (a fixed token: the 401 stands)."""
        if self._source is None:
            return None
        async with self._locked():
            if self.headers is not sent_with:  # another request refreshed them
                return self.headers
            fresh = await self._source.fetch(True)
            if fresh is None or dict(fresh.headers) == dict(sent_with):
                return None
            self._keep(fresh)
            return self.headers

    def _keep(self, fetched: Fetched | None) -> None:
        self.headers = dict(fetched.headers) if fetched is not None else {}
        self._expires = fetched.expires if fetched is not None else None
