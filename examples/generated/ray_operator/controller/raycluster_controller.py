# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""Reconciler for RayCluster objects (ray.io/v1).

Level-triggered: every call reads the object's current state and moves the
world one step towards its spec; it never relies on what event woke it up.
`rt.status.reconcile` runs the steps around your code (the finalizer,
`cleanup` on deletion, observedGeneration and the Ready, Progressing and
Degraded conditions, a status write only when something changed); this file
holds what is particular to RayCluster: `reconcile_spec` and `cleanup`.
"""

from __future__ import annotations

import logging

import opgen.api as op
from opgen import runtime as rt

from ray_operator.api.v1.raycluster_types import RayCluster, RayClusterStatus

FINALIZER = "ray.io/finalizer"
"""Holds deletion back until `cleanup` has run."""

log = logging.getLogger(__name__)


@op.rbac(
    groups=["ray.io"],
    resources=["rayclusters"],
    verbs=["get", "list", "watch", "create", "update", "patch", "delete"],
)
@op.rbac(
    groups=["ray.io"],
    resources=["rayclusters/status"],
    verbs=["get", "update", "patch"],
)
@op.rbac(
    groups=["ray.io"],
    resources=["rayclusters/finalizers"],
    verbs=["update"],
)
# What `self.events` writes: Events about the objects it reconciles.
@op.rbac(
    groups=["events.k8s.io"],
    resources=["events"],
    verbs=["create", "patch"],
)
class RayClusterReconciler:
    """Drives each RayCluster towards its spec and reports progress in its status."""

    def __init__(self, client: rt.Client) -> None:
        self.client = client
        self.events = rt.EventRecorder(client, reporting_controller="io/raycluster")

    def setup(self, manager: rt.Manager) -> None:
        """Register this reconciler with the manager."""
        manager.add_controller(
            rt.Controller(name="raycluster", for_=rt.For(RayCluster), reconciler=self)
        )

    async def reconcile(self, request: rt.Request) -> rt.Result:
        """Bring one RayCluster closer to its spec; safe to call any number of times."""
        return await rt.status.reconcile(
            self.client,
            RayCluster,
            request,
            reconcile_spec=self.reconcile_spec,
            cleanup=self.cleanup,
            finalizer=FINALIZER,
        )

    async def reconcile_spec(
        self, obj: RayCluster, status: RayClusterStatus
    ) -> rt.status.Outcome:
        """Move the world one step towards `obj.spec`, and say where it stands.

        Create or update what this RayCluster owns (with
        `rt.owner.set_controller_reference(obj, child)`), set the fields of
        `status` you observed, and return `rt.status.ready()` once the world
        matches the spec, `rt.status.progressing("...")` while it is getting
        there, or `rt.status.degraded("...")` when it cannot for now. Any of
        them takes `requeue_after=` (seconds) to look again that much later,
        e.g. `rt.status.ready(requeue_after=30)` to poll. Raise
        `rt.TerminalError` for errors a retry cannot fix.
        """
        log.info("reconciling %s/%s", obj.metadata.namespace, obj.metadata.name)
        return rt.status.ready()

    async def cleanup(self, obj: RayCluster) -> None:
        """Release what `obj` holds outside the cluster, before Kubernetes deletes it.

        Objects it owns through owner references are garbage-collected anyway.
        """
        log.info("cleaning up %s/%s", obj.metadata.namespace, obj.metadata.name)
