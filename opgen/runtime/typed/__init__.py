"""Typed per-kind clients: the generic base that generated clients subclass.

A generated client is a few lines::

    class RayClusterClient(
        rt.typed.NamespacedClient[RayCluster],
        rt.typed.NamespacedStatus[RayCluster],
        rt.typed.NamespacedScale[RayCluster],
    ):
        model = RayCluster

They follow `rt.Client`'s convention: reads take the name, writes take the
object and refresh it in place, `list` returns an `rt.Page`. Reads of a
namespaced kind take a keyword-only `namespace=` and those of a cluster-scoped
kind have no such parameter, so a missing namespace or a wrong model type
fails `mypy --strict`.

Reads go through the `rt.Client` a typed client wraps: one wrapping the
manager's client (`RayClusterClient(manager.client)`) reads from the
manager's cache, as `manager.client.get` does, and one wrapping a client
without a cache (`rt.Client.from_kubeconfig`) reads from the API server. A
`list` with `limit=` or `continue_=` pages through the API server either way,
and `watch` always streams from it.

Modules: `_base` (what every typed client does: the writes, and one
implementation of each read), `_scoped` (the namespaced and cluster-scoped
read signatures), `_subresources` (`/status` and `/scale`).
"""

from opgen.runtime.reader import Page
from opgen.runtime.typed._base import WatchEvent
from opgen.runtime.typed._scoped import ClusterClient, NamespacedClient
from opgen.runtime.typed._subresources import (
    ClusterScale,
    ClusterStatus,
    NamespacedScale,
    NamespacedStatus,
    Scale,
)

__all__ = [
    "ClusterClient",
    "ClusterScale",
    "ClusterStatus",
    "NamespacedClient",
    "NamespacedScale",
    "NamespacedStatus",
    "Page",
    "Scale",
    "WatchEvent",
]
