# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""Reconciler for RayCluster objects (ray.io/v1).

Level-triggered: every call reads the object's current state and moves the
world one step towards its spec; it never relies on what event woke it up.
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
class RayClusterReconciler:
    """Drives each RayCluster towards its spec and reports progress in its status."""

    def __init__(self, client: rt.Client) -> None:
        self.client = client

    def setup(self, manager: rt.Manager) -> None:
        """Register this reconciler with the manager."""
        manager.add_controller(
            rt.Controller(name="raycluster", for_=rt.For(RayCluster), reconciler=self)
        )

    async def reconcile(self, request: rt.Request) -> rt.Result:
        """Bring one RayCluster closer to its spec; safe to call any number of times."""
        try:
            obj = await self.client.get(
                RayCluster, request.name, namespace=request.namespace
            )
        except rt.NotFound:
            return rt.Result()  # Deleted already: nothing left to do.

        if obj.metadata.deletion_timestamp is not None:
            if rt.finalizers.has(obj, FINALIZER):
                await self.cleanup(obj)
                await rt.finalizers.remove(self.client, obj, FINALIZER)
            return rt.Result()

        await rt.finalizers.ensure(self.client, obj, FINALIZER)

        status = obj.status if obj.status is not None else RayClusterStatus()
        before = status.model_copy(deep=True)
        try:
            requeue_after = await self.reconcile_spec(obj)
        except Exception as error:
            self._report(
                status, obj.metadata.generation, error=error, requeue_after=None
            )
            await self._write_status(obj, status, before)
            raise
        self._report(
            status, obj.metadata.generation, error=None, requeue_after=requeue_after
        )
        await self._write_status(obj, status, before)
        return rt.Result(requeue_after=requeue_after)

    async def reconcile_spec(self, obj: RayCluster) -> float | None:
        """Make the cluster match `obj.spec`; return None when it does, else seconds to wait.

        Create or update the objects this RayCluster owns here (with
        `rt.owner.set_controller_reference(obj, child)`), one step at a time.
        Raise `rt.TerminalError` for errors a retry cannot fix.
        """
        log.info("reconciling %s/%s", obj.metadata.namespace, obj.metadata.name)
        return None

    async def cleanup(self, obj: RayCluster) -> None:
        """Release what `obj` holds outside the cluster, before Kubernetes deletes it.

        Objects it owns through owner references are garbage-collected anyway.
        """
        log.info("cleaning up %s/%s", obj.metadata.namespace, obj.metadata.name)

    def _report(
        self,
        status: RayClusterStatus,
        generation: int | None,
        *,
        error: Exception | None,
        requeue_after: float | None,
    ) -> None:
        """Set observedGeneration and the Ready, Progressing and Degraded conditions."""
        status.observed_generation = generation
        if error is not None:
            reason, message = "ReconcileFailed", f"{type(error).__name__}: {error}"
        elif requeue_after is not None:
            reason, message = "Progressing", "Working towards the spec."
        else:
            reason, message = "Reconciled", "The RayCluster matches its spec."
        done = error is None and requeue_after is None
        progressing = error is None and requeue_after is not None
        for condition, is_true in (
            ("Ready", done),
            ("Progressing", progressing),
            ("Degraded", error is not None),
        ):
            rt.conditions.set_condition(
                status.conditions,
                type=condition,
                status="True" if is_true else "False",
                reason=reason,
                message=message,
                observed_generation=generation,
            )

    async def _write_status(
        self, obj: RayCluster, status: RayClusterStatus, before: RayClusterStatus
    ) -> None:
        """Write the status through the /status subresource, only when it changed."""
        if status == before:
            return
        obj.status = status
        await self.client.patch_status(obj)
