"""opgen.testing: a real kube-apiserver + etcd for tests, like controller-runtime's envtest.

Two jobs, two packages, and the pytest plugin that joins them:

- `binaries`: obtaining kube-apiserver, etcd and kube-controller-manager for
  `KUBERNETES_VERSION`: `find_binaries` (environment variables, then the
  cache), `obtain_binaries` (the same, else a build; `opgen envtest use` is
  its command-line face);
- `controlplane`: running them: `Environment` starts etcd, kube-apiserver and
  optionally kube-controller-manager on loopback (or connects to an existing
  cluster) and installs CRDs and webhook configurations
  (`WebhookInstallOptions`, served by a `WebhookManager`). It reaches the
  binaries through `opgen.testing.binaries` alone and never builds
  (import-linter holds it);
- `plugin` (`opgen.testing.plugin`, loaded through a pytest entry point)
  provides the `envtest`, `envtest_controller_manager`, `client` (an
  `rt.Client`), `namespace` and `manager_account` fixtures;
- `managers`: `running_manager` runs an `opgen.runtime.Manager` for a block of
  a test, `eventually` waits for what it does; `Environment.deploy_rbac` (in
  `controlplane.rbac`) gives it the generated project's ServiceAccount;
- `conversion`: `assert_round_trips(converter)`, the property test that a
  conversion loses no field either way, on objects drawn (`drawing`) from
  the CRD's schemas;
- `workloads`: `mark_ready(client, deployment_or_statefulset)`, the status a
  kubelet and the workload controllers would report (envtest runs neither);
- `e2e` (`from opgen.testing import e2e`): the manager in a process of its
  own, as its ServiceAccount, against `config/default` applied
  (`deployed_config`, `manager_process`, ...);
- `names`: `object_name(base, namespace)`, a short name unique to a test;
- `writes`: `recording_writes(client)`, every write a block sends;
- `logs`: the log tail that errors of both jobs quote.
- `memory` (`opgen.testing.memory`): an API server in memory behind the
  runtime's transport seam, held to envtest by agreement tests
  (docs/testing.md, "Tests without a server").

The names below are the public surface; import them from `opgen.testing`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from opgen.testing.binaries import (
        ETCD_MIN_VERSION,
        KUBERNETES_VERSION,
        Binaries,
        BinariesNotFound,
        KubernetesVersion,
        cache_root,
        find_binaries,
        verify_binaries,
    )
    from opgen.testing.binaries.obtain import obtain_binaries
    from opgen.testing.controlplane.crds import CrdSource, load_crds
    from opgen.testing.controlplane.environment import Environment
    from opgen.testing.controlplane.rbac import ManagerAccount
    from opgen.testing.controlplane.webhookmanager import WebhookManager
    from opgen.testing.controlplane.webhooks import LocalWebhooks, WebhookInstallOptions
    from opgen.testing.conversion import assert_round_trips
    from opgen.testing.managers import eventually, running_manager
    from opgen.testing.names import object_name
    from opgen.testing.workloads import mark_ready
    from opgen.testing.writes import recording_writes

# Names resolve on first use (PEP 562), so `opgen envtest --help` and other light
# users of `opgen.testing.binaries` do not pay for the runtime client, yaml and cryptography.
_HOME = {
    "Binaries": "binaries",
    "BinariesNotFound": "binaries",
    "find_binaries": "binaries",
    "obtain_binaries": "binaries.obtain",
    "verify_binaries": "binaries",
    "cache_root": "binaries",
    "CrdSource": "controlplane.crds",
    "load_crds": "controlplane.crds",
    "Environment": "controlplane.environment",
    "LocalWebhooks": "controlplane.webhooks",
    "WebhookInstallOptions": "controlplane.webhooks",
    "WebhookManager": "controlplane.webhookmanager",
    "ManagerAccount": "controlplane.rbac",
    "assert_round_trips": "conversion",
    "eventually": "managers",
    "running_manager": "managers",
    "object_name": "names",
    "mark_ready": "workloads",
    "recording_writes": "writes",
    "ETCD_MIN_VERSION": "binaries",
    "KUBERNETES_VERSION": "binaries",
    "KubernetesVersion": "binaries",
}


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'opgen.testing' has no attribute {name!r}")
    return getattr(importlib.import_module(f"opgen.testing.{module}"), name)


__all__ = [
    "ETCD_MIN_VERSION",
    "KUBERNETES_VERSION",
    "Binaries",
    "BinariesNotFound",
    "CrdSource",
    "Environment",
    "KubernetesVersion",
    "LocalWebhooks",
    "ManagerAccount",
    "WebhookInstallOptions",
    "WebhookManager",
    "assert_round_trips",
    "cache_root",
    "eventually",
    "find_binaries",
    "load_crds",
    "mark_ready",
    "object_name",
    "obtain_binaries",
    "recording_writes",
    "running_manager",
    "verify_binaries",
]
