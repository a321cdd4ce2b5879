"""Webhooks against a real API server without cert-manager: controller-runtime's
`WebhookInstallOptions`, for tests and for `make run`.

`prepare` picks the local address the API server will call (a free port on
127.0.0.1 by default) and writes a CA and a serving certificate for it. The
project's webhook configurations (`config/webhook/manifests.yaml`) are then
installed with each webhook's `clientConfig` turned from the in-cluster
Service into `url: https://<host>:<port><path>` with the CA as `caBundle`,
and every CRD whose `spec.conversion` names a webhook gets the same for
`/convert`. A webhook server started with `LocalWebhooks.server_options()`
(the certificate folder, host and port) is what the API server then calls.

`install_local` / `uninstall_local` do the same against any cluster for a
manager run on this machine (`opgen webhook install-local`, `make run`).

So that a test never races the API server, the installed configurations
carry one extra webhook each (`probe.webhook.opgen.dev`), matching only
ConfigMaps labelled `opgen.dev/webhook-probe`, which opgen's webhook server
refuses with a known message: `wait_until_served` dry-runs such a ConfigMap
until the refusal comes back, which proves both that the API server uses the
configuration and that the server answers it.
"""

from __future__ import annotations

import base64
import copy
import os
import secrets
import socket
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

import yaml

from opgen import runtime as rt
from opgen.api.k8s.admissionregistration_v1 import (
    MutatingWebhookConfiguration,
    ValidatingWebhookConfiguration,
)
from opgen.api.k8s.apiextensions_v1 import CustomResourceDefinition
from opgen.api.k8s.core_v1 import ConfigMap
from opgen.errors import EnvtestError
from opgen.model.webhooks import CONVERSION_PATH, PROBE_PATH
from opgen.runtime.webhook.certificates import write_local_certificates
from opgen.runtime.webhook.server import PROBE_MESSAGE
from opgen.testing.controlplane.adminapi import AdminApi
from opgen.testing.controlplane.crds import CrdDocument

__all__ = [
    "CONFIGURATION_KINDS",
    "PROBE_LABEL",
    "LocalInstall",
    "LocalWebhooks",
    "WebhookInstallOptions",
    "WebhookSource",
    "install_configurations",
    "install_local",
    "load_configurations",
    "patch_conversion",
    "prepare",
    "uninstall_configurations",
    "uninstall_local",
    "wait_until_served",
    "with_local_conversion",
]

WebhookSource = Union[str, "os.PathLike[str]", Mapping[str, Any]]
CONFIGURATION_KINDS = ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")
PROBE_LABEL = "opgen.dev/webhook-probe"
PROBE_WEBHOOK = "probe.webhook.opgen.dev"
POLL_SECONDS = 0.1
_RESOURCES: dict[str, type[Any]] = {
    "MutatingWebhookConfiguration": MutatingWebhookConfiguration,
    "ValidatingWebhookConfiguration": ValidatingWebhookConfiguration,
}


@dataclass(frozen=True)
class WebhookInstallOptions:
    """Where the webhook configurations are and where the API server should call."""

    paths: Sequence[WebhookSource] = ()
    """Files or folders of webhook configurations (a project's `config/webhook`), or
    the documents themselves; other kinds in them (the Service) are skipped."""
    local_host: str = "127.0.0.1"
    """The address the API server calls the webhook server on."""
    local_port: int | None = None
    """Its port; None: a free one."""
    cert_dir: str | os.PathLike[str] | None = None
    """Where the CA, certificate and key go; None: a new folder in the environment's
    work directory (or a temporary one)."""
    name_prefix: str = ""
    """Prefix of the installed configurations' names."""
    probe: bool = True
    """Add the probe webhook that `wait_until_served` uses."""


@dataclass(frozen=True)
class LocalWebhooks:
    """The local serving address and certificates the configurations point at."""

    host: str
    port: int
    cert_dir: Path
    ca_pem: bytes
    configurations: tuple[tuple[str, str], ...] = field(default=())
    """(kind, name) of every configuration installed."""

    def url(self, path: str) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"https://{host}:{self.port}{path}"

    def client_config(self, path: str) -> dict[str, Any]:
        """A webhook `clientConfig` calling `path` on the local server."""
        return {
            "url": self.url(path),
            "caBundle": base64.b64encode(self.ca_pem).decode(),
        }

    def server_options(self, **overrides: Any) -> rt.WebhookOptions:
        """The webhook server options serving what the API server calls."""
        values: dict[str, Any] = {
            "host": self.host,
            "port": self.port,
            "cert_path": str(self.cert_dir),
        }
        values.update(overrides)
        return rt.WebhookOptions(**values)


def _free_port(host: str) -> int:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


def prepare(options: WebhookInstallOptions, work_dir: Path | None) -> LocalWebhooks:
    """Pick the port and write the certificates for `options.local_host`."""
    host = options.local_host
    if options.cert_dir is not None:
        cert_dir = Path(options.cert_dir)
    else:
        cert_dir = Path(tempfile.mkdtemp(prefix="webhook-certs-", dir=work_dir))
    hosts = [host] + (["localhost"] if host in ("127.0.0.1", "::1") else [])
    certificates = write_local_certificates(cert_dir, hosts)
    return LocalWebhooks(
        host=host,
        port=options.local_port or _free_port(host),
        cert_dir=cert_dir,
        ca_pem=certificates.ca_pem,
    )


def _sources(source: WebhookSource) -> list[Mapping[str, Any]]:
    if isinstance(source, Mapping):
        return [source]
    path = Path(source)
    files = (
        sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml", ".json"))
        if path.is_dir()
        else [path]
    )
    documents: list[Mapping[str, Any]] = []
    for file in files:
        try:
            loaded = list(yaml.safe_load_all(file.read_text(encoding="utf-8")))
        except (OSError, yaml.YAMLError) as error:
            raise EnvtestError(
                f"cannot read webhook configurations from {file}: {error}"
            ) from error
        documents += [d for d in loaded if isinstance(d, Mapping)]
    return documents


def load_configurations(sources: Iterable[WebhookSource]) -> list[dict[str, Any]]:
    """The Mutating/ValidatingWebhookConfigurations in files, folders or dicts."""
    found = []
    for source in sources:
        if not isinstance(source, Mapping) and not Path(source).exists():
            raise EnvtestError(f"webhook path {source} does not exist")
        for document in _sources(source):
            if document.get("kind") in CONFIGURATION_KINDS:
                found.append(copy.deepcopy(dict(document)))
    return found


def _local(webhook: Mapping[str, Any], local: LocalWebhooks) -> dict[str, Any]:
    rewritten = dict(webhook)
    config = webhook.get("clientConfig") or {}
    service = config.get("service") if isinstance(config, Mapping) else None
    path = service.get("path", "/") if isinstance(service, Mapping) else None
    if path is None:
        raise EnvtestError(
            f"webhook {webhook.get('name')!r} has no clientConfig.service.path to serve locally"
        )
    rewritten["clientConfig"] = local.client_config(path)
    return rewritten


def _probe(kind: str, local: LocalWebhooks) -> dict[str, Any]:
    which = "mutating" if kind.startswith("Mutating") else "validating"
    return {
        "name": PROBE_WEBHOOK,
        "admissionReviewVersions": ["v1"],
        "clientConfig": local.client_config(PROBE_PATH),
        "failurePolicy": "Fail",
        "sideEffects": "None",
        "timeoutSeconds": 5,
        "objectSelector": {"matchLabels": {PROBE_LABEL: which}},
        "rules": [
            {
                "apiGroups": [""],
                "apiVersions": ["v1"],
                "operations": ["CREATE"],
                "resources": ["configmaps"],
            }
        ],
    }


def install_configurations(
    client: AdminApi,
    local: LocalWebhooks,
    documents: Sequence[Mapping[str, Any]],
    options: WebhookInstallOptions,
) -> LocalWebhooks:
    """Apply the configurations, calling the local server; returns `local` with them."""
    installed: list[tuple[str, str]] = []
    for document in documents:
        kind = str(document["kind"])
        body = copy.deepcopy(dict(document))
        metadata = dict(body.get("metadata") or {})
        name = f"{options.name_prefix}{metadata.get('name', '')}"
        metadata["name"] = name
        body["metadata"] = metadata
        webhooks = [_local(w, local) for w in body.get("webhooks") or []]
        if options.probe:
            webhooks.append(_probe(kind, local))
        body["webhooks"] = webhooks
        try:
            client.apply(_RESOURCES[kind], body, force=True)
        except rt.ApiError as error:
            raise EnvtestError(
                f"the API server rejected {kind} {name}: {error.message}"
            ) from error
        installed.append((kind, name))
    return LocalWebhooks(
        host=local.host,
        port=local.port,
        cert_dir=local.cert_dir,
        ca_pem=local.ca_pem,
        configurations=(*local.configurations, *installed),
    )


def uninstall_configurations(client: AdminApi, local: LocalWebhooks) -> None:
    """Delete the configurations `install_configurations` applied."""
    for kind, name in local.configurations:
        try:
            client.delete(_RESOURCES[kind], name)
        except rt.NotFound:
            pass
        except rt.ApiError as error:
            raise EnvtestError(
                f"cannot delete {kind} {name}: {error.message}"
            ) from error


def with_local_conversion(crd: CrdDocument, local: LocalWebhooks) -> CrdDocument:
    """`crd` with a conversion webhook calling the local server instead of a Service."""
    conversion = (crd.body.get("spec") or {}).get("conversion") or {}
    if conversion.get("strategy") != "Webhook":
        return crd
    body = copy.deepcopy(dict(crd.body))
    webhook = dict(body["spec"]["conversion"].get("webhook") or {})
    webhook["clientConfig"] = local.client_config(CONVERSION_PATH)
    webhook.setdefault("conversionReviewVersions", ["v1"])
    body["spec"]["conversion"]["webhook"] = webhook
    return CrdDocument(body=body, origin=crd.origin)


def patch_conversion(
    client: AdminApi, crd_names: Iterable[str], local: LocalWebhooks
) -> list[str]:
    """Point the live CRDs among `crd_names` that convert by webhook at the local server."""
    patched = []
    for name in crd_names:
        try:
            live = client.get(CustomResourceDefinition, name)
        except rt.NotFound:
            continue
        conversion = (live.get("spec") or {}).get("conversion") or {}
        if conversion.get("strategy") != "Webhook":
            continue
        patch = {
            "spec": {
                "conversion": {
                    "webhook": {
                        "clientConfig": {
                            "service": None,
                            **local.client_config(CONVERSION_PATH),
                        }
                    }
                }
            }
        }
        client.merge_patch(CustomResourceDefinition, name, patch)
        patched.append(name)
    return patched


def wait_until_served(
    client: AdminApi, local: LocalWebhooks, *, timeout: float = 60.0
) -> None:
    """Return once the API server calls the local server through every configuration.

    Needs the probe webhooks (`WebhookInstallOptions.probe`) and a running
    opgen webhook server on `local`'s address.
    """
    kinds = sorted({kind for kind, _ in local.configurations})
    deadline = time.monotonic() + timeout
    for kind in kinds:
        which = "mutating" if kind.startswith("Mutating") else "validating"
        last = "no answer yet"
        while True:
            probe = {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {
                    "name": f"opgen-webhook-probe-{secrets.token_hex(4)}",
                    "labels": {PROBE_LABEL: which},
                },
            }
            try:
                client.create(ConfigMap, probe, namespace="default", dry_run=True)
                last = "the API server does not call the webhook yet"
            except rt.ApiError as error:
                message = error.message
                if PROBE_MESSAGE in message:
                    break
                last = message
            if time.monotonic() >= deadline:
                raise EnvtestError(
                    f"the API server does not reach the webhook server at "
                    f"{local.url('')} through the {kind}s within {timeout:.0f}s: {last}",
                    hint="is a webhook server running with LocalWebhooks.server_options()?",
                )
            time.sleep(POLL_SECONDS)


@dataclass(frozen=True)
class LocalInstall:
    """What `install_local` put into a cluster, for `make run` to serve."""

    webhooks: LocalWebhooks
    conversion_crds: tuple[str, ...]


def install_local(
    client: AdminApi,
    *,
    webhook_paths: Sequence[WebhookSource],
    crd_paths: Sequence[CrdDocument],
    options: WebhookInstallOptions,
) -> LocalInstall:
    """For a manager running on this machine (`make run`): certificates in
    `options.cert_dir`, the configurations installed calling
    `options.local_host`, and the converting CRDs among `crd_paths` (already
    installed) calling it too."""
    local = prepare(options, None)
    documents = load_configurations(webhook_paths)
    installed = install_configurations(client, local, documents, options)
    patched = patch_conversion(client, [crd.name for crd in crd_paths], local)
    return LocalInstall(installed, tuple(patched))


def uninstall_local(
    client: AdminApi,
    *,
    webhook_paths: Sequence[WebhookSource],
    name_prefix: str,
) -> list[tuple[str, str]]:
    """Delete the configurations `install_local` installed; returns (kind, name)s."""
    configurations = tuple(
        (str(d["kind"]), f"{name_prefix}{(d.get('metadata') or {}).get('name', '')}")
        for d in load_configurations(webhook_paths)
    )
    local = LocalWebhooks(
        host="", port=0, cert_dir=Path(), ca_pem=b"", configurations=configurations
    )
    uninstall_configurations(client, local)
    return list(configurations)
