"""Typed per-kind clients: the generic base that generated clients subclass.

A generated client is a few lines::

    class RayClusterClient(
        rt.typed.NamespacedClient[RayCluster],
        rt.typed.NamespacedStatus[RayCluster],
        rt.typed.NamespacedScale[RayCluster],
    ):
        model = RayCluster

Namespaced kinds take a keyword-only `namespace=` everywhere it is needed and
cluster-scoped kinds have no such parameter, so a missing namespace or a
wrong model type fails `mypy --strict`. Every call goes to the API server
(reconcilers read through the cached `rt.Client` instead).

Modules: `_base` (what every typed client does: reads, writes, watch, the
shared implementations), `_scoped` (the namespaced and cluster-scoped
signatures), `_subresources` (`/status` and `/scale`).
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
