"""A small, idiomatic operator used by the idempotency test and the benchmark.

Each Widget gets one owned ConfigMap holding its message, and a status with
`replicas`, `observedGeneration` and a `Ready` condition. Written as the
scaffolded reconciler would be: level-triggered, cache reads, writes only
when something differs.
"""

from __future__ import annotations

import contextlib

from opgen import runtime as rt
from opgen.api import ObjectMeta
from opgen.api.k8s import ConfigMap
from tests.runtime.kinds import Widget, WidgetStatus


class WidgetReconciler:
    def __init__(self, client: rt.Client) -> None:
        self.client = client
        self.reconciles = 0

    async def reconcile(self, request: rt.Request) -> rt.Result:
        self.reconciles += 1
        try:
            widget = await self.client.get(Widget, request.name, request.namespace)
        except rt.NotFound:
            return rt.Result()
        desired = {
            "message": widget.spec.message,
            "replicas": str(widget.spec.replicas),
        }
        name = f"{request.name}-config"
        try:
            config = await self.client.get(ConfigMap, name, request.namespace)
        except rt.NotFound:
            config = ConfigMap(
                metadata=ObjectMeta(name=name, namespace=request.namespace),
                data=desired,
            )
            rt.owner.set_controller_reference(widget, config)
            # AlreadyExists: the cache had not seen it yet; its watch event brings us back
            with contextlib.suppress(rt.AlreadyExists):
                await self.client.create(config, refresh=False)
        else:
            if config.data != desired:
                config.data = desired
                await self.client.update(config, refresh=False)

        status = widget.status or WidgetStatus()
        changed = widget.status is None
        if (
            status.replicas != widget.spec.replicas
            or status.observed_generation != widget.metadata.generation
        ):
            status.replicas = widget.spec.replicas
            status.observed_generation = widget.metadata.generation
            changed = True
        changed |= rt.conditions.set_condition(
            status.conditions,
            type="Ready",
            status="True",
            reason="ConfigMapReady",
            message="the ConfigMap is up to date",
            observed_generation=widget.metadata.generation,
        )
        if changed:
            widget.status = status
            await self.client.patch_status(widget, refresh=False)
        return rt.Result()

    def setup(self, manager: rt.Manager, *, max_concurrent_reconciles: int = 1) -> None:
        manager.add_controller(
            rt.Controller(
                "widget",
                for_=rt.For(Widget),
                owns=[rt.Owns(ConfigMap)],
                reconciler=self,
                options=rt.ControllerOptions(
                    max_concurrent_reconciles=max_concurrent_reconciles
                ),
            )
        )
