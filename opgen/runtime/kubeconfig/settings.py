"""The settings of one cluster and one user of a kubeconfig, read and checked.

`cluster(entry)` and `user(entry)` turn a kubeconfig entry into `Cluster` and
`User`: file paths resolved against the directory of the file that names them,
inline data decoded, each problem a `NoCluster` naming the file, the entry, what
is wrong and how to fix it.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "EXEC_API_VERSIONS",
    "FIX",
    "Cluster",
    "ConfigError",
    "Entry",
    "ExecConfig",
    "NoCluster",
    "User",
    "cluster",
    "user",
]

EXEC_API_VERSIONS = (
    "client.authentication.k8s.io/v1",
    "client.authentication.k8s.io/v1beta1",
    "client.authentication.k8s.io/v1alpha1",
)

_AUTH_PROVIDERS = {
    "gcp": "the `gke-gcloud-auth-plugin` exec plugin, which replaced it in "
    "Kubernetes 1.26 (`gcloud container clusters get-credentials` writes it)",
    "azure": "the `kubelogin` exec plugin, which replaced it in Kubernetes 1.26 "
    "(`kubelogin convert-kubeconfig`)",
    "oidc": "an OIDC exec plugin such as `kubectl oidc-login` (int128/kubelogin)",
}

_IMPERSONATION = ("as", "as-uid", "as-groups", "as-user-extra")

FIX = (
    "start a local cluster with `make cluster` (in another terminal), "
    "or set KUBECONFIG to a running cluster's kubeconfig"
)


class ConfigError(Exception):
    """A kubeconfig, or the credentials it names, cannot be used."""


class NoCluster(ConfigError):
    """No cluster to talk to: no kubeconfig, no usable context in it, or an API
    server that does not answer. Its message is one line naming the kubeconfig
    or the server, what is wrong and what to do (a generated operator's `main()`
    prints it and exits 1)."""


@dataclass(frozen=True)
class Cluster:
    server: str
    certificate_authority: Path | None = None
    certificate_authority_data: bytes | None = None
    insecure_skip_tls_verify: bool = False
    tls_server_name: str | None = None
    proxy_url: str | None = None
    exec_config: Any = None
    """The `client.authentication.k8s.io/exec` extension, given to an exec plugin."""


@dataclass(frozen=True)
class ExecConfig:
    api_version: str
    command: str
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    interactive_mode: str = "IfAvailable"
    install_hint: str | None = None
    provide_cluster_info: bool = False


@dataclass(frozen=True)
class User:
    token: str | None = None
    token_file: Path | None = None
    client_certificate: Path | None = None
    client_certificate_data: bytes | None = None
    client_key: Path | None = None
    client_key_data: bytes | None = None
    username: str | None = None
    password: str | None = None
    exec: ExecConfig | None = None


@dataclass(frozen=True)
class Entry:
    """A named cluster, user or context, and the file that named it."""

    body: Mapping[str, Any]
    file: Path | None


class _Fields:
    """Typed reads of one entry's fields, each error naming the file and entry."""

    def __init__(self, entry: Entry, subject: str, name: str) -> None:
        self.body = entry.body
        self.file = entry.file
        self.where = f"kubeconfig {entry.file or name}: {subject}"

    def error(self, problem: str) -> NoCluster:
        return NoCluster(f"{self.where}: {problem}")

    def text(self, key: str) -> str | None:
        value = self.body.get(key)
        if value is None or value == "":
            return None
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise self.error(f"`{key}` must be a string")
        return str(value)

    def flag(self, key: str) -> bool:
        value = self.body.get(key, False)
        if not isinstance(value, bool):
            raise self.error(f"`{key}` must be true or false, not {value!r}")
        return value

    def path(self, key: str) -> Path | None:
        value = self.text(key)
        if value is None:
            return None
        path = Path(value).expanduser()
        if not path.is_absolute() and self.file is not None:
            path = self.file.parent / path
        return path

    def data(self, key: str) -> bytes | None:
        value = self.text(key)
        if value is None:
            return None
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise self.error(
                f"`{key}` is not base64; encode the PEM with `base64 -w0`"
            ) from None


def cluster(entry: Entry, subject: str, name: str) -> Cluster:
    fields = _Fields(entry, subject, name)
    server = fields.text("server")
    if server is None:
        raise fields.error("has no `server`; set it to the API server's URL")
    if "://" not in server:
        server = f"https://{server}"
    ca_file = fields.path("certificate-authority")
    ca_data = fields.data("certificate-authority-data")
    insecure = fields.flag("insecure-skip-tls-verify")
    if insecure and (ca_file or ca_data):
        raise fields.error(
            "sets both a certificate authority and `insecure-skip-tls-verify`; "
            "remove one (verifying with the CA is the safe choice)"
        )
    proxy = fields.text("proxy-url")
    if proxy is not None and not proxy.startswith(("http://", "https://")):
        raise fields.error(
            f"`proxy-url` {proxy} is not supported: opgen's HTTP client (aiohttp) "
            "reaches the API server through http:// or https:// proxies only; "
            "use one of those, or remove `proxy-url`"
        )
    exec_config = None
    for extension in entry.body.get("extensions") or []:
        if isinstance(extension, Mapping) and (
            extension.get("name") == "client.authentication.k8s.io/exec"
        ):
            exec_config = extension.get("extension")
    return Cluster(
        server=server.rstrip("/"),
        certificate_authority=ca_file,
        certificate_authority_data=ca_data,
        insecure_skip_tls_verify=insecure,
        tls_server_name=fields.text("tls-server-name"),
        proxy_url=proxy,
        exec_config=exec_config,
    )


def user(entry: Entry, subject: str, name: str) -> User:
    fields = _Fields(entry, subject, name)
    provider = entry.body.get("auth-provider")
    if provider:
        kind = provider.get("name") if isinstance(provider, Mapping) else None
        instead = _AUTH_PROVIDERS.get(str(kind), "the provider's exec plugin")
        raise fields.error(
            f'uses auth-provider "{kind}", which opgen does not support; use '
            f"{instead}, or a token"
        )
    impersonating = [key for key in _IMPERSONATION if entry.body.get(key)]
    if impersonating:
        raise fields.error(
            f"impersonation (`{impersonating[0]}`) is not supported by opgen; give "
            "the operator that identity's own credentials (a token or certificate)"
        )
    username, password = fields.text("username"), fields.text("password")
    if (username is None) != (password is None):
        raise fields.error("basic auth needs both `username` and `password`")
    certificate = fields.path("client-certificate")
    certificate_data = fields.data("client-certificate-data")
    key = fields.path("client-key")
    key_data = fields.data("client-key-data")
    if (certificate or certificate_data) and not (key or key_data):
        raise fields.error(
            "has a client certificate without a key; add `client-key` or "
            "`client-key-data`"
        )
    if (key or key_data) and not (certificate or certificate_data):
        raise fields.error(
            "has a client key without a certificate; add `client-certificate` "
            "or `client-certificate-data`"
        )
    return User(
        token=fields.text("token"),
        token_file=fields.path("tokenFile"),
        client_certificate=certificate,
        client_certificate_data=certificate_data,
        client_key=key,
        client_key_data=key_data,
        username=username,
        password=password,
        exec=_exec(entry, fields),
    )


def _exec(entry: Entry, owner: _Fields) -> ExecConfig | None:
    body = entry.body.get("exec")
    if not body:
        return None
    if not isinstance(body, Mapping):
        raise owner.error("`exec` must be a mapping")
    fields = _Fields(Entry(body, entry.file), "", "")
    fields.where = f"{owner.where}: exec"
    version = fields.text("apiVersion")
    if version not in EXEC_API_VERSIONS:
        raise fields.error(
            f"apiVersion {version!r} is not one opgen runs; use one of "
            + ", ".join(EXEC_API_VERSIONS)
        )
    command = fields.text("command")
    if command is None:
        raise fields.error("has no `command`; name the credential plugin to run")
    if os.sep in command and not Path(command).is_absolute() and entry.file:
        command = str(entry.file.parent / command)  # as client-go resolves it
    mode = fields.text("interactiveMode")
    if mode is None:
        if version.endswith("/v1"):
            raise fields.error(
                "the v1 exec API needs `interactiveMode`; set it to Never "
                "(an operator has no terminal)"
            )
        mode = "IfAvailable"
    if mode not in ("Never", "IfAvailable", "Always"):
        raise fields.error(
            f"interactiveMode {mode!r} is not Never, IfAvailable or Always"
        )
    if mode == "Always":
        raise fields.error(
            "interactiveMode Always needs a terminal, which an operator does not "
            "have; set it to Never, or use a plugin that needs no input"
        )
    args = body.get("args") or []
    env = body.get("env") or []
    if not isinstance(args, list) or not isinstance(env, list):
        raise fields.error("`args` and `env` must be lists")
    pairs = []
    for variable in env:
        if not isinstance(variable, Mapping) or "name" not in variable:
            raise fields.error("each `env` entry needs `name` and `value`")
        pairs.append((str(variable["name"]), str(variable.get("value", ""))))
    return ExecConfig(
        api_version=version,
        command=command,
        args=tuple(str(arg) for arg in args),
        env=tuple(pairs),
        interactive_mode=mode,
        install_hint=fields.text("installHint"),
        provide_cluster_info=fields.flag("provideClusterInfo"),
    )
