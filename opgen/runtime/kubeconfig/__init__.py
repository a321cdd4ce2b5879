"""Kubeconfig and credentials: what the transport connects with, read as client-go does.

- `files`: kubeconfig files (`$KUBECONFIG` merged, the pod's service account,
  `~/.kube/config`) into one context's `SingleConfig`;
- `settings`: one cluster's and one user's settings, read and checked;
- `credentials`: the headers its user sends (token, token file, basic auth, exec
  plugin), fetched again when they expire and after a 401;
- here: `load_config` and `connection`, what the transport
  (`opgen.runtime.transport`) is given — the server, the context's namespace, an
  `ssl.SSLContext` (CA, client certificate) and `Credentials`.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path

from opgen.runtime.kubeconfig.credentials import Credentials, source_for
from opgen.runtime.kubeconfig.files import KubeConfig, SingleConfig
from opgen.runtime.kubeconfig.settings import (
    FIX,
    Cluster,
    ConfigError,
    NoCluster,
    User,
)
from opgen.runtime.tls import _load_pem as load_pem

__all__ = [
    "FIX",
    "ConfigError",
    "ConfigSource",
    "Connection",
    "Credentials",
    "KubeConfig",
    "NoCluster",
    "SingleConfig",
    "connection",
    "describe_context",
    "load_config",
]

ConfigSource = str | Path | KubeConfig | SingleConfig | None
"""A kubeconfig file, a `KubeConfig` or one context of one (`SingleConfig`); None
for the environment: `$KUBECONFIG`, else in-cluster (service account), else
`~/.kube/config`."""


def load_config(
    source: ConfigSource = None, *, context: str | None = None
) -> SingleConfig:
    """The connection settings of one context (`context`, else the current one);
    `NoCluster` when there is no kubeconfig, no such context, or it cannot be used."""
    if isinstance(source, SingleConfig):
        return source
    if isinstance(source, KubeConfig):
        kubeconfig = source
    elif source is None:
        kubeconfig = KubeConfig.from_env()
    else:
        kubeconfig = KubeConfig.from_file(source)
    return kubeconfig.get(context)


def describe_context(config: SingleConfig) -> str:
    """`context "NAME" of FILE`, for messages about the cluster it names."""
    where = f" of {config.fname}" if config.fname is not None else ""
    return f'context "{config.context_name}"{where}'


@dataclass(frozen=True)
class Connection:
    """Where one context's API server is, and how to talk to it."""

    server: str
    """The server's URL, without a trailing slash."""
    namespace: str
    """The context's namespace ("default" when it names none)."""
    ssl_context: ssl.SSLContext
    credentials: Credentials
    tls_server_name: str | None = None
    """The name to verify the server's certificate against (and send as SNI), when
    not the server's host."""
    proxy_url: str | None = None
    """The proxy the kubeconfig names (it wins over the environment's)."""


def connection(config: SingleConfig) -> Connection:
    """What the transport needs of one context; `NoCluster` for a CA or client
    certificate that cannot be loaded, or credentials opgen cannot use."""
    where = describe_context(config)
    return Connection(
        server=config.cluster.server,
        namespace=config.namespace,
        ssl_context=_ssl_context(config.cluster, config.user, where),
        credentials=Credentials(source_for(config.user, config.cluster, where)),
        tls_server_name=config.cluster.tls_server_name,
        proxy_url=config.cluster.proxy_url,
    )


def _ssl_context(cluster: Cluster, user: User, where: str) -> ssl.SSLContext:
    """As client-go's: a cluster's CA (its data, else its file) is the only one
    trusted; without one, the system's; with `insecure-skip-tls-verify`, none."""
    try:
        if cluster.insecure_skip_tls_verify:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        elif cluster.certificate_authority_data is not None:
            context = ssl.create_default_context(
                cadata=cluster.certificate_authority_data.decode("ascii", "replace")
            )
        elif cluster.certificate_authority is not None:
            context = ssl.create_default_context(cafile=cluster.certificate_authority)
        else:
            context = ssl.create_default_context()
    except (OSError, ssl.SSLError) as error:
        raise NoCluster(
            f"{where}: cannot load the cluster's certificate authority ({error}); "
            "fix `certificate-authority` or `certificate-authority-data`"
        ) from None
    try:
        _load_client_certificate(context, user)
    except (OSError, ssl.SSLError) as error:
        raise NoCluster(
            f"{where}: cannot load the user's client certificate and key ({error}); "
            "fix `client-certificate(-data)` and `client-key(-data)`"
        ) from None
    return context


def _load_client_certificate(context: ssl.SSLContext, user: User) -> None:
    """The user's certificate and key into `context`, loaded from memory as the
    serving certificates are (`tls`): inline data never touches a disk."""
    if user.client_certificate is None and user.client_certificate_data is None:
        return
    certificate = user.client_certificate_data
    if certificate is None:
        assert user.client_certificate is not None
        certificate = user.client_certificate.read_bytes()
    key = user.client_key_data
    if key is None:
        assert user.client_key is not None  # files.py checks the pair
        key = user.client_key.read_bytes()
    load_pem(context, certificate, key)
