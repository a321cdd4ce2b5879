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
fails `mypy --strict`. Every call goes to the API server (reconcilers read
through the cached `rt.Client` instead).

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
