"""Kubeconfig and credentials: the one runtime module that imports lightkube's configuration.

lightkube loads a kubeconfig (in-cluster service account, `$KUBECONFIG`,
`~/.kube/config`, contexts, files relative to the kubeconfig, inline data) and
runs its credentials: a bearer token, a token file re-read after a 401
(rotated service-account tokens), an exec plugin run again after a 401, basic
auth. The transport (`opgen.runtime.transport`) sends the requests; this module
gives it what to send them with: the server, the context's namespace, an
`ssl.SSLContext` (CA, client certificate) and `Credentials`.

Only public names of lightkube are used: `KubeConfig` (`from_file`,
`from_env`, `get`), `SingleConfig` (`cluster`, `user`, `namespace`,
`abs_file`), `lightkube.config.client_adapter.user_auth(user)` and
`verify_cluster(cluster, user, abs_file, trust_env=)`. `user_auth` returns an
auth flow, a generator that sets the `Authorization` header of the request it
is given and, shown the answer's `status_code`, sets a new one when the answer
was a 401. `Credentials` drives that flow with a stand-in request (a `headers`
dict) and answer (a `status_code`), so no HTTP client of lightkube's is
involved. tests/runtime/test_transport_contract.py checks each assumption.
"""

from __future__ import annotations

import asyncio
import os
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lightkube import ConfigError, KubeConfig, SingleConfig
from lightkube.config.client_adapter import user_auth, verify_cluster
from lightkube.config.models import User

__all__ = [
    "ConfigError",
    "ConfigSource",
    "Connection",
    "Credentials",
    "KubeConfig",
    "NoCluster",
    "SingleConfig",
    "connection",
    "load_config",
]

ConfigSource = str | Path | KubeConfig | SingleConfig | None
"""A kubeconfig file, a lightkube `KubeConfig` or `SingleConfig`; None for the
environment: in-cluster (service account), else `$KUBECONFIG`, else `~/.kube/config`."""


class NoCluster(ConfigError):
    """No cluster to talk to: no kubeconfig, no context in it, or an API server
    that does not answer. Its message is one line naming the kubeconfig or the
    server, and what to do (a generated operator's `main()` prints it and exits 1)."""


FIX = (
    "start a local cluster with `make cluster` (in another terminal), "
    "or set KUBECONFIG to a running cluster's kubeconfig"
)


def load_config(
    source: ConfigSource = None, *, context: str | None = None
) -> SingleConfig:
    """The connection settings of one context (`context`, else the current one);
    `NoCluster` when there is no kubeconfig or no such context."""
    if isinstance(source, SingleConfig):
        return source
    try:
        if isinstance(source, KubeConfig):
            kubeconfig = source
        elif source is None:
            kubeconfig = KubeConfig.from_env()
        else:
            kubeconfig = KubeConfig.from_file(source)
        config = kubeconfig.get(context_name=context)
    except (ConfigError, AttributeError, KeyError, OSError) as error:
        # lightkube reads an empty file as None, and indexes the sections it needs.
        if isinstance(error, AttributeError):
            problem = "it is empty"
        elif isinstance(error, KeyError):
            problem = f"it has no {error.args[0]}"
        else:
            problem = str(error)
        raise NoCluster(
            f"no cluster to connect to: kubeconfig {_kubeconfig_named(source)}: "
            f"{problem}; {FIX}"
        ) from None
    assert config is not None  # `get` without a default raises instead
    return config


def _kubeconfig_named(source: ConfigSource) -> str:
    if source is None:
        configured = os.environ.get("KUBECONFIG")
        return f"$KUBECONFIG={configured}" if configured else "~/.kube/config"
    if isinstance(source, KubeConfig):
        return "(given)"
    return str(source)


def describe_context(config: SingleConfig) -> str:
    """`context "NAME" of FILE`, for messages about the cluster it names."""
    where = f" of {config.fname}" if config.fname is not None else ""
    return f'context "{config.context_name}"{where}'


@dataclass
class _Request:
    """What an auth flow is given: a request whose headers it sets."""

    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Answer:
    """What an auth flow is shown after a request: the answer's status."""

    status_code: int


class Credentials:
    """The headers a context's credentials set: asked once, and again after a 401.

    The headers are kept for every request. When the server answers 401, the
    flow is asked again with that answer — once for all the requests that got
    it — and the request is sent again with the new headers.
    """

    def __init__(self, auth: Any) -> None:
        self._auth = auth
        self.headers: Mapping[str, str] | None = {} if auth is None else None
        """The headers to send (None until the flow has been asked)."""
        self._lock: asyncio.Lock | None = None

    def _locked(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    async def current(self) -> Mapping[str, str]:
        if self.headers is None:
            async with self._locked():
                if self.headers is None:
                    self.headers = await self._ask(None) or {}
        return self.headers

    async def after_401(self, sent_with: Mapping[str, str]) -> Mapping[str, str] | None:
        """New headers for a request that `sent_with` got a 401 for; None when the
        credentials do not change (a fixed token: the 401 stands)."""
        if self._auth is None:
            return None
        async with self._locked():
            if self.headers is not sent_with:  # another request refreshed them
                return self.headers
            fresh = await self._ask(401)
            if fresh is not None:
                self.headers = fresh
            return fresh

    async def _ask(self, status: int | None) -> dict[str, str] | None:
        request = _Request()
        flow = self._auth.async_auth_flow(request)
        try:
            sent = await flow.__anext__()
            if status is not None:
                sent = await flow.asend(_Answer(status))
        except StopAsyncIteration:
            return None
        finally:
            await flow.aclose()
        return dict(sent.headers)


@dataclass(frozen=True)
class Connection:
    """Where one context's API server is, and how to talk to it."""

    server: str
    """The server's URL, without a trailing slash."""
    namespace: str
    """The context's namespace ("default" when it names none)."""
    ssl_context: ssl.SSLContext
    credentials: Credentials


def connection(config: SingleConfig) -> Connection:
    """What the transport needs of one context; raises `ConfigError` for credentials
    lightkube does not support (an `auth-provider`)."""
    user = config.user if config.user is not None else User()
    context = verify_cluster(config.cluster, user, config.abs_file, trust_env=True)
    return Connection(
        server=config.cluster.server.rstrip("/"),
        namespace=config.namespace,
        ssl_context=context,
        credentials=Credentials(user_auth(user)),
    )
