"""Kubeconfig files: the admin one envtest writes, and an existing cluster's."""

from __future__ import annotations

import base64
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from opgen.errors import EnvtestError

__all__ = [
    "EXISTING_CLUSTER_ENV",
    "admin_kubeconfig",
    "existing_cluster_kubeconfig",
    "server_of",
    "use_existing_cluster",
    "write_kubeconfig",
]

EXISTING_CLUSTER_ENV = "USE_EXISTING_CLUSTER"
CONTEXT_NAME = "envtest"

# The spellings Go's strconv.ParseBool accepts, as controller-runtime's envtest reads them.
_TRUE = {"1", "t", "T", "TRUE", "true", "True"}
_FALSE = {"0", "f", "F", "FALSE", "false", "False"}


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def admin_kubeconfig(
    server: str, ca_pem: bytes, client_cert_pem: bytes, client_key_pem: bytes
) -> dict[str, Any]:
    """A self-contained kubeconfig (certificates inline) for the envtest admin user."""
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": CONTEXT_NAME,
                "cluster": {
                    "server": server,
                    "certificate-authority-data": _b64(ca_pem),
                },
            }
        ],
        "users": [
            {
                "name": CONTEXT_NAME,
                "user": {
                    "client-certificate-data": _b64(client_cert_pem),
                    "client-key-data": _b64(client_key_pem),
                },
            }
        ],
        "contexts": [
            {
                "name": CONTEXT_NAME,
                "context": {
                    "cluster": CONTEXT_NAME,
                    "user": CONTEXT_NAME,
                    "namespace": "default",
                },
            }
        ],
        "current-context": CONTEXT_NAME,
        "preferences": {},
    }


def write_kubeconfig(path: Path, config: Mapping[str, Any]) -> None:
    path.write_text(yaml.safe_dump(dict(config), sort_keys=False))
    path.chmod(0o600)


def use_existing_cluster(env: Mapping[str, str]) -> bool:
    """`USE_EXISTING_CLUSTER`, read like envtest reads it (an unknown spelling is an error)."""
    value = env.get(EXISTING_CLUSTER_ENV, "").strip()
    if value == "" or value in _FALSE:
        return False
    if value in _TRUE:
        return True
    raise EnvtestError(
        f"{EXISTING_CLUSTER_ENV}={value!r} is neither true nor false",
        hint=f"set {EXISTING_CLUSTER_ENV}=true (with KUBECONFIG) or unset it",
    )


def server_of(config: Mapping[str, Any]) -> str:
    """The API server URL of a kubeconfig's current context."""
    try:
        current = config["current-context"]
        context = next(c["context"] for c in config["contexts"] if c["name"] == current)
        cluster = next(
            c["cluster"] for c in config["clusters"] if c["name"] == context["cluster"]
        )
        server: str = cluster["server"]
    except (KeyError, StopIteration, TypeError) as error:
        raise EnvtestError(
            f"the kubeconfig has no usable current context ({error!r})",
            hint="check `kubectl config current-context` and its cluster entry",
        ) from error
    return server


def existing_cluster_kubeconfig(env: Mapping[str, str]) -> tuple[Path, dict[str, Any]]:
    """The kubeconfig of the cluster `USE_EXISTING_CLUSTER=true` points at.

    `KUBECONFIG` (its first entry) else `~/.kube/config`, like kubectl.
    """
    configured = env.get("KUBECONFIG", "")
    first = next((part for part in configured.split(os.pathsep) if part), None)
    home = env.get("HOME") or str(Path.home())
    path = Path(first).expanduser() if first else Path(home) / ".kube" / "config"
    try:
        loaded = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as error:
        raise EnvtestError(
            f"{EXISTING_CLUSTER_ENV}=true but the kubeconfig {path} cannot be read: {error}",
            hint="set KUBECONFIG to the cluster's kubeconfig file",
        ) from error
    if not isinstance(loaded, dict):
        raise EnvtestError(f"{path} is not a kubeconfig (no mapping at the top)")
    return path.absolute(), loaded
