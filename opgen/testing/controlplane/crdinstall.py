"""Installing a project's CRDs into a running cluster: what `make install` runs.

(`connect` and `check_reachable` also serve `make run`'s first step: no
kubeconfig, or a server that does not answer, is one error pointing to
`make cluster`, within seconds.)

Each CRD is created, or replaced whole (an update of the entire object, as
`kubectl replace` does), so the cluster ends with exactly the CRD
`opgen generate` wrote, whoever installed it before: `make cluster`'s
control plane (field manager `opgen-envtest`), an earlier `kubectl apply`.
There is no field-manager conflict to force, and a field or version the
types no longer have goes (a server-side apply would leave fields another
manager owns).

Two things the cluster set are kept:

- a conversion that `opgen webhook install-local` pointed at this machine
  (a `url`) stays pointed there, so the loop edit types → `opgen generate` →
  `make install` → `make run` keeps converting through `make run`'s webhook
  server; `local_conversion=False` (what `make uninstall-local-webhooks`
  runs) puts the CRD's own Service back;
- a `caBundle` injected for the same Service (cert-manager's cainjector).
"""

from __future__ import annotations

import copy
import json
import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opgen.errors import EnvtestError
from opgen.runtime.errors import TransportError
from opgen.runtime.kubeconfig import ConfigError, SingleConfig, load_config
from opgen.runtime.transport import Transport
from opgen.testing.controlplane.crds import CRDS_PATH, CrdDocument, message_of, run

__all__ = [
    "FIELD_MANAGER",
    "Cluster",
    "Installed",
    "check_reachable",
    "connect",
    "install_project_crds",
]

FIELD_MANAGER = "opgen"
_ATTEMPTS = 5
_TIMEOUT = 10.0
"""Seconds to connect, and between bytes of an answer: a stale context fails soon."""


@dataclass(frozen=True)
class Installed:
    """One CRD: its name, `created` or `replaced`, and where its conversion calls
    (None: it converts by no webhook)."""

    name: str
    action: str
    conversion: str | None


@dataclass(frozen=True)
class Cluster:
    """The context to talk to and the server it names (for messages)."""

    config: SingleConfig
    server: str


def connect(kubeconfig: Path | None, context: str | None) -> Cluster:
    """The cluster of `kubeconfig` (default: $KUBECONFIG, else ~/.kube/config)
    and `context`; an `EnvtestError` when there is none."""
    try:
        config = load_config(kubeconfig, context=context)
        return Cluster(config, str(config.cluster.server))
    except (ConfigError, OSError, AssertionError) as error:
        where = kubeconfig or "$KUBECONFIG or ~/.kube/config"
        raise EnvtestError(
            f"no cluster to install into: {where}: {error}",
            hint="start a local one with `make cluster` (in another terminal), "
            "or point KUBECONFIG at a cluster",
        ) from None


def check_reachable(cluster: Cluster) -> None:
    """Return once the API server answers one request (any status: a refusal is
    an answer); an `EnvtestError` naming the server when it does not."""

    async def ask(transport: Transport) -> None:
        await transport.send("GET", "/api/v1/namespaces/default")

    _with_transport(cluster, ask)


def _unreachable(cluster: Cluster, error: Exception) -> EnvtestError:
    return EnvtestError(
        f"cannot reach the cluster at {cluster.server}: {error}",
        hint="is it running? start a local one with `make cluster` (in another "
        "terminal), or switch kubectl's context to a running cluster",
    )


def _with_transport(cluster: Cluster, work: Any) -> Any:
    """Run `work(transport)` on a transport of its own; no answer at all is an
    `EnvtestError` naming the server."""

    async def session() -> Any:
        transport = Transport(cluster.config, timeout=_TIMEOUT)
        try:
            return await work(transport)
        finally:
            await transport.aclose()

    try:
        return run(session())
    except TransportError as error:
        raise _unreachable(cluster, error) from None


def install_project_crds(
    cluster: Cluster, documents: Iterable[CrdDocument], *, local_conversion: bool = True
) -> list[Installed]:
    """Create or replace each CRD as above; the API server's refusal, or no
    answer, is an `EnvtestError` naming the CRD or the server."""
    crds = list(documents)

    async def install(transport: Transport) -> list[Installed]:
        return [await _install(transport, crd, local_conversion) for crd in crds]

    result: list[Installed] = _with_transport(cluster, install)
    return result


_MANAGED = "?" + urllib.parse.urlencode({"fieldManager": FIELD_MANAGER})


async def _install(
    transport: Transport, crd: CrdDocument, local_conversion: bool
) -> Installed:
    path = f"{CRDS_PATH}/{urllib.parse.quote(crd.name, safe='')}"
    for _ in range(_ATTEMPTS):
        found = await transport.send("GET", path)
        if found.status not in (200, 404):
            raise _rejected(crd, found.body)
        live = json.loads(found.body) if found.status == 200 else None
        body = _wanted(crd.body, live, local_conversion)
        if live is None:
            method, target, action = "POST", CRDS_PATH, "created"
        else:
            body["metadata"]["resourceVersion"] = live["metadata"]["resourceVersion"]
            method, target, action = "PUT", path, "replaced"
        answer = await transport.send(
            method, target + _MANAGED, body=json.dumps(body).encode()
        )
        if answer.status == 409:  # changed (or created) meanwhile: read again
            continue
        if answer.status >= 400:
            raise _rejected(crd, answer.body)
        return Installed(crd.name, action, _target(body))
    raise EnvtestError(
        f"CRD {crd.name} kept changing while it was being replaced",
        hint="run `make install` again",
    )


def _rejected(crd: CrdDocument, body: bytes) -> EnvtestError:
    return EnvtestError(
        f"the API server rejected CRD {crd.name} ({crd.origin}): {message_of(body)}",
        hint="fix the CRD (or the types it is generated from) as the message says",
    )


def _client_config(body: Mapping[str, Any]) -> dict[str, Any] | None:
    conversion = (body.get("spec") or {}).get("conversion") or {}
    if conversion.get("strategy") != "Webhook":
        return None
    config = (conversion.get("webhook") or {}).get("clientConfig")
    return dict(config) if isinstance(config, Mapping) else None


def _wanted(
    document: Mapping[str, Any], live: Mapping[str, Any] | None, local: bool
) -> dict[str, Any]:
    body = copy.deepcopy(dict(document))
    body.setdefault("metadata", {})
    wanted = _client_config(body)
    current = _client_config(live) if live is not None else None
    if wanted is None or current is None:
        return body
    if local and "url" in current:
        kept = current
    elif "caBundle" in current and _service(current) == _service(wanted):
        kept = {**wanted, "caBundle": current["caBundle"]}
    else:
        return body
    body["spec"]["conversion"]["webhook"]["clientConfig"] = kept
    return body


def _service(config: Mapping[str, Any]) -> tuple[Any, Any] | None:
    service = config.get("service")
    if not isinstance(service, Mapping):
        return None
    return service.get("namespace"), service.get("name")


def _target(body: Mapping[str, Any]) -> str | None:
    config = _client_config(body)
    if config is None:
        return None
    if "url" in config:
        return str(config["url"])
    service = config.get("service") or {}
    return f"Service {service.get('namespace')}/{service.get('name')}"
