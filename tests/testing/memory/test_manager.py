"""A real manager, its cache and a controller: the same test on the memory server and on envtest.

The runtime's own sample reconciler (tests/runtime/sample.py: an owned
ConfigMap, status with observedGeneration and a Ready condition) and a
finalizer that cleans up on deletion, through `Manager(transport=...)`: the
manager lists and watches through the server's streams, its writes come back
to its cache as watch events. The same steps run on the memory server (no
envtest needed) and on envtest (marked envtest), the manager's cache held to
the test's namespace.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from opgen import runtime as rt
from opgen.api.k8s import ConfigMap
from opgen.runtime.seams import Transport
from opgen.runtime.transport import Transport as HttpTransport
from opgen.testing import Environment, eventually, running_manager
from opgen.testing.memory import MemoryApiServer
from tests.runtime.kinds import Widget
from tests.runtime.sample import WidgetReconciler

CLEANUP = "test.opgen.dev/cleanup"


class CleaningReconciler(WidgetReconciler):
    """The sample reconciler, with a finalizer that deletes the ConfigMap first."""

    async def reconcile(self, request: rt.Request) -> rt.Result:
        try:
            widget = await self.client.get(Widget, request.name, request.namespace)
        except rt.NotFound:
            return rt.Result()
        if rt.finalizers.is_deleting(widget):
            try:
                config = await self.client.get(
                    ConfigMap, f"{request.name}-config", request.namespace
                )
            except rt.NotFound:
                pass
            else:
                await self.client.delete(config)
            await rt.finalizers.remove(self.client, widget, CLEANUP)
            return rt.Result()
        if await rt.finalizers.ensure(self.client, widget, CLEANUP):
            return rt.Result()  # the finalizer's own watch event brings us back
        return await super().reconcile(request)


@dataclass
class Backend:
    """A server to run the test on: a transport to it, and the test's namespace."""

    transport: Transport
    namespace: str


def _manager(backend: Backend) -> rt.Manager:
    off = "0"
    return rt.Manager(
        options=rt.ManagerOptions(
            metrics=rt.MetricsOptions(bind_address=off),
            probes=rt.ProbeOptions(bind_address=off),
            cache=rt.CacheOptions(namespaces=[backend.namespace]),
        ),
        transport=backend.transport,
    )


async def test_a_controller_reconciles_a_widget_on_the_memory_server(
    memory_server: MemoryApiServer,
) -> None:
    await _reconciles_a_widget(Backend(memory_server.transport(), "default"))


@pytest.mark.envtest
async def test_a_controller_reconciles_a_widget_on_envtest(
    envtest: Environment, namespace: str
) -> None:
    transport = HttpTransport.from_kubeconfig(envtest.kube_config())
    await _reconciles_a_widget(Backend(transport, namespace))


async def _reconciles_a_widget(backend: Backend) -> None:
    manager = _manager(backend)
    reconciler = CleaningReconciler(manager.client)
    reconciler.setup(manager)
    client = manager.client.uncached
    ns = backend.namespace
    async with running_manager(manager):
        made = Widget.model_validate(
            {
                "metadata": {"name": "a", "namespace": ns},
                "spec": {"replicas": 2, "message": "hello"},
            }
        )
        await manager.client.create(made)

        async def observed(generation: int) -> Widget | None:
            found = await client.get(Widget, "a", ns)
            status = found.status
            done = status is not None and status.observed_generation == generation
            return found if done else None

        widget = await eventually(lambda: observed(1), message="status of generation 1")
        assert widget.status is not None and widget.status.replicas == 2
        assert widget.metadata.finalizers == [CLEANUP]
        config = await client.get(ConfigMap, "a-config", ns)
        assert config.data == {"message": "hello", "replicas": "2"}
        owners = config.metadata.owner_references or []
        assert [(o.kind, o.uid) for o in owners] == [("Widget", widget.metadata.uid)]

        await manager.client.patch(widget, {"spec": {"replicas": 3}})
        widget = await eventually(lambda: observed(2), message="status of generation 2")
        assert widget.metadata.generation == 2
        config = await client.get(ConfigMap, "a-config", ns)
        assert config.data == {"message": "hello", "replicas": "3"}

        await manager.client.delete(widget)

        async def gone() -> bool:
            try:
                await client.get(Widget, "a", ns)
            except rt.NotFound:
                return True
            return False

        await eventually(gone, message="the Widget's deletion")
        listed = await client.list(ConfigMap, ns)
        assert [
            c.metadata.name for c in listed.items if c.metadata.name == "a-config"
        ] == []


async def test_the_manager_closes_its_watches_on_the_memory_server(
    memory_server: MemoryApiServer,
) -> None:
    manager = _manager(Backend(memory_server.transport(), "default"))
    CleaningReconciler(manager.client).setup(manager)
    async with running_manager(manager):
        assert memory_server.store.subscriptions > 0
    assert memory_server.store.subscriptions == 0
    watched = [
        path.partition("?")[0]
        for method, path in memory_server.requests
        if method == "WATCH"
    ]
    assert "/apis/test.opgen.dev/v1/namespaces/default/widgets" in watched
