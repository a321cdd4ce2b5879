# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""Reconciler for RayCluster objects (ray.io/v1).

Level-triggered: every call reads the object's current state and moves the
world one step towards its spec; it never relies on what event woke it up.
`rt.status.reconcile` runs the steps around your code (the finalizer,
`cleanup` on deletion, observedGeneration and the Ready, Progressing and
Degraded conditions, a status write only when something changed); this file
holds what is particular to RayCluster:

- `reconcile_spec` makes the head Deployment and Service and one Deployment
  per worker group match the spec (`children` builds them,
  `rt.apply_if_changed` skips the write when a child already matches, so a
  converged cluster costs no request but reads from the cache), deletes the Deployments of groups that
  are gone, and reports in the status what the Deployments report;
- `cleanup` writes the cluster's record in the operator's namespace before
  the finalizer lets it go (`archive`).

Changes to the Deployments and the Service (a pod becoming ready, a child
deleted or edited by hand) wake the reconciler through `rt.Owns`, so it never
polls.
"""

from __future__ import annotations

from typing import TypeVar

import opgen.api as op
from opgen import runtime as rt

from ray_operator.api.v1.raycluster_types import (
    RayCluster,
    RayClusterStatus,
    UpscalingMode,
    WorkerGroupStatus,
)
from ray_operator.api.v1.spread import spread
from ray_operator.controller import archive, children

FINALIZER = "ray.io/finalizer"
"""Holds deletion back until `cleanup` has run."""
FIELD_MANAGER = "ray-operator"
"""Who owns the fields of the children it applies (server-side apply)."""
APPLIED_HASH = "ray.io/applied-hash"
"""The annotation holding the hash of what was applied to a child (`rt.apply_if_changed`)."""
SUSPENDED = "Suspended"
"""The condition saying whether `spec.suspend` holds the cluster at zero pods."""
CONFLICT_RETRY = 60.0
"""Seconds before looking again at a child name someone else's object holds."""

C = TypeVar("C", op.k8s.Deployment, op.k8s.Service)


class ChildConflict(Exception):
    """A child's name is taken by an object this RayCluster does not control."""


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
@op.rbac(
    groups=["apps"],
    resources=["deployments"],
    verbs=["get", "list", "watch", "create", "update", "patch", "delete"],
)
@op.rbac(
    groups=["core"],
    resources=["services"],
    verbs=["get", "list", "watch", "create", "update", "patch"],
)
# What `self.events` writes: Events about the RayClusters it reconciles.
@op.rbac(
    groups=["events.k8s.io"],
    resources=["events"],
    verbs=["create", "patch"],
)
# The records `cleanup` writes, in the operator's own namespace.
@op.rbac(
    groups=["core"],
    resources=["configmaps"],
    verbs=["get", "create", "update"],
    namespace="ray-operator-system",
)
class RayClusterReconciler:
    """Drives each RayCluster towards its spec and reports progress in its status."""

    def __init__(
        self, client: rt.Client, *, archive_namespace: str | None = None
    ) -> None:
        self.client = client
        self.events = rt.EventRecorder(
            client, reporting_controller="ray.io/raycluster-controller"
        )
        self.archive_namespace = archive_namespace or archive.archive_namespace(client)

    def setup(
        self, manager: rt.Manager, *, options: rt.ControllerOptions | None = None
    ) -> None:
        """Register this reconciler with the manager (`options`: resync, workers)."""
        manager.add_controller(
            rt.Controller(
                name="raycluster",
                for_=rt.For(RayCluster),
                owns=[rt.Owns(op.k8s.Deployment), rt.Owns(op.k8s.Service)],
                reconciler=self,
                options=options,
            )
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
        """Apply the children the spec asks for, and report what they report."""
        try:
            head, workers = await self.converge(obj)
        except ChildConflict as conflict:
            return rt.status.degraded(
                str(conflict), reason="ChildConflict", requeue_after=CONFLICT_RETRY
            )
        except rt.Invalid as refused:
            # The API server refused a child built from this spec: only a new
            # spec helps, and that wakes the reconciler anyway.
            return rt.status.degraded(
                f"the API server refused a child: {refused}", reason="ChildInvalid"
            )
        report(obj, status, head, workers)
        return outcome(obj, head, workers)

    async def converge(
        self, obj: RayCluster
    ) -> tuple[op.k8s.Deployment, dict[str, op.k8s.Deployment]]:
        """Make every child match the spec; the head and worker Deployments as stored."""
        spec = obj.spec
        name = children.head_name(obj)
        head_replicas = 0 if spec.suspend else spec.head_replicas
        head = await self.ensure(
            obj,
            children.head_deployment(obj, head_replicas),
            await self.live(op.k8s.Deployment, name, obj),
        )
        await self.ensure(
            obj, children.head_service(obj), await self.live(op.k8s.Service, name, obj)
        )
        workers: dict[str, op.k8s.Deployment] = {}
        for group, share in spread(spec).items():
            live = await self.live(
                op.k8s.Deployment, children.worker_name(obj, group), obj
            )
            replicas = 0 if spec.suspend else share
            if spec.upscaling_mode is UpscalingMode.CONSERVATIVE:
                replicas = conservative_step(replicas, live)
            desired = children.worker_deployment(obj, group, replicas)
            workers[group] = await self.ensure(obj, desired, live)
        await self.remove_stale_groups(obj, set(workers))
        return head, workers

    async def live(self, kind: type[C], name: str, obj: RayCluster) -> C | None:
        """The child `name` as the cache has it; None when there is none."""
        try:
            return await self.client.get(kind, name, namespace=obj.metadata.namespace)
        except rt.NotFound:
            return None

    async def ensure(self, obj: RayCluster, desired: C, live: C | None) -> C:
        """Server-side apply `desired` unless `live`, the child as it is, matches it."""
        if live is not None:
            controller = rt.owner.controller_of(live)
            if controller is None or controller.get("uid") != obj.metadata.uid:
                raise ChildConflict(
                    f"{type(desired).__name__} {desired.metadata.name} exists and is not this"
                    " RayCluster's: delete or rename it"
                )
        child, _ = await rt.apply_if_changed(
            self.client,
            desired,
            live=live,
            annotation=APPLIED_HASH,
            field_manager=FIELD_MANAGER,
            force=True,
        )
        return child

    async def remove_stale_groups(self, obj: RayCluster, groups: set[str]) -> None:
        """Delete the worker Deployments of groups the spec no longer has."""
        found = await self.client.list(
            op.k8s.Deployment,
            namespace=obj.metadata.namespace,
            labels={
                children.CLUSTER_LABEL: str(obj.metadata.name),
                children.NODE_TYPE_LABEL: "worker",
            },
        )
        for deployment in found:
            meta = deployment.metadata
            controller = rt.owner.controller_of(deployment)
            group = (meta.labels or {}).get(children.GROUP_LABEL)
            if controller is None or controller.get("uid") != obj.metadata.uid:
                continue
            if group not in groups:
                await self.client.delete(deployment)
                await self.events.event(
                    obj,
                    type="Normal",
                    reason="GroupRemoved",
                    action="Delete",
                    note=f"deleted Deployment {meta.name}: its group"
                    f" {group} is gone from the spec",
                )

    async def cleanup(self, obj: RayCluster) -> None:
        """Write the cluster's record in the archive namespace (raises to be retried)."""
        record = await archive.record(self.client, obj, self.archive_namespace)
        name = record.metadata.name
        await self.events.event(
            obj,
            type="Normal",
            reason="Archived",
            action="Delete",
            note=f"recorded as ConfigMap {self.archive_namespace}/{name}",
        )


def conservative_step(target: int, live: op.k8s.Deployment | None) -> int:
    """Conservative upscaling: at most as many workers starting as are ready (at least one).

    Shrinking, and what the Deployment asks for already, are never held back."""
    current = replicas_of(live) if live else 0
    ready = ready_of(live) if live else 0
    if target <= current:
        return target
    return min(target, max(current, ready + max(ready, 1)))


def replicas_of(deployment: op.k8s.Deployment) -> int:
    """What the Deployment asks for."""
    return (deployment.spec.replicas if deployment.spec else None) or 0


def ready_of(deployment: op.k8s.Deployment) -> int:
    """Its ready pods, as its status says."""
    return (deployment.status.ready_replicas if deployment.status else None) or 0


def rolled_out(deployment: op.k8s.Deployment) -> bool:
    """Whether the Deployment runs what it asks for: its latest spec observed,
    and all its pods updated and ready, none of an older template left."""
    status = deployment.status
    if status is None:
        return False
    want = replicas_of(deployment)
    return (
        (status.observed_generation or 0) >= (deployment.metadata.generation or 0)
        and (status.updated_replicas or 0) == want
        and (status.ready_replicas or 0) == want
        and (status.replicas or 0) == want
    )


def report(
    obj: RayCluster,
    status: RayClusterStatus,
    head: op.k8s.Deployment,
    workers: dict[str, op.k8s.Deployment],
) -> None:
    """Set the status fields the children tell, and the Suspended condition."""
    status.selector = children.worker_selector(obj)
    status.worker_groups = [
        WorkerGroupStatus(
            group_name=group,
            replicas=replicas_of(deployment),
            ready_replicas=ready_of(deployment),
        )
        for group, deployment in workers.items()
    ]
    status.worker_ready = sum(ready_of(d) for d in workers.values())
    status.head_ready = not obj.spec.suspend and rolled_out(head)
    status.ready = status.head_ready and all(rolled_out(d) for d in workers.values())
    rt.conditions.set_condition(
        status.conditions,
        type=SUSPENDED,
        status="True" if obj.spec.suspend else "False",
        reason="Suspended" if obj.spec.suspend else "Running",
        message=(
            "spec.suspend holds every group and the head at zero pods"
            if obj.spec.suspend
            else "spec.suspend is false"
        ),
        observed_generation=obj.metadata.generation,
    )


def outcome(
    obj: RayCluster, head: op.k8s.Deployment, workers: dict[str, op.k8s.Deployment]
) -> rt.status.Outcome:
    """Where the cluster stands: Ready, or Progressing and why."""
    deployments = [head, *workers.values()]
    waiting = [d for d in deployments if not rolled_out(d)]
    if obj.spec.suspend:
        if waiting:
            running = sum(
                (d.status.replicas if d.status else None) or 0 for d in deployments
            )
            return rt.status.progressing(
                f"suspending: {running} pods still run", reason="Suspending"
            )
        return rt.status.suspended("suspended: no pods run", reason="Suspended")
    total = sum(replicas_of(d) for d in workers.values())
    ready = sum(ready_of(d) for d in workers.values())
    if not waiting:
        return rt.status.ready(
            f"the head and {ready} workers are ready", reason="AllPodsReady"
        )
    names = ", ".join(str(d.metadata.name) for d in waiting)
    stale = [
        d
        for d in waiting
        if d.status is None
        or (d.status.observed_generation or 0) < (d.metadata.generation or 0)
        or (d.status.updated_replicas or 0) < replicas_of(d)
    ]
    if stale:
        return rt.status.progressing(f"rolling out {names}", reason="RollingOut")
    return rt.status.progressing(
        f"{ready} of {total} workers ready; waiting for {names}", reason="PodsStarting"
    )
