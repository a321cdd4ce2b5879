"""What a manager offers around its run: the ports it bound, its client closed after,
and create_or_update reading from its cache."""

from __future__ import annotations

import asyncio
import gc

import aiohttp
import pytest

from opgen import runtime as rt
from opgen.api import ObjectMeta
from opgen.api.k8s import ConfigMap
from opgen.testing import Environment
from tests.runtime.helpers import closed, manager_for, running

pytestmark = pytest.mark.envtest


async def test_the_bound_ports_are_known_once_serving(
    envtest: Environment, namespace: str
) -> None:
    manager = manager_for(envtest, namespace)  # both servers on 127.0.0.1:0
    assert manager.metrics_address is None and manager.probe_address is None
    async with running(manager):
        assert manager.metrics_address is not None
        assert manager.probe_address is not None
        (metrics_host, metrics_port), (probe_host, probe_port) = (
            manager.metrics_address,
            manager.probe_address,
        )
        assert metrics_host == probe_host == "127.0.0.1"
        assert 0 not in (metrics_port, probe_port) and metrics_port != probe_port
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://{probe_host}:{probe_port}/readyz") as probe:
                assert probe.status == 200, await probe.text()
            async with http.get(
                f"http://{metrics_host}:{metrics_port}/metrics"
            ) as scrape:
                assert "rest_client_requests_total" in await scrape.text()
    assert manager.metrics_address is None and manager.probe_address is None

    disabled = manager_for(
        envtest, namespace, metrics=rt.MetricsOptions(bind_address="0")
    )
    async with running(disabled):
        assert disabled.metrics_address is None
        assert disabled.probe_address is not None


async def test_run_closes_the_client_however_it_ends(
    envtest: Environment, namespace: str
) -> None:
    manager = manager_for(envtest, namespace)
    async with running(manager):
        await manager.client.list(ConfigMap, namespace)
        assert not closed(manager)
    assert closed(manager)
    with pytest.raises(RuntimeError, match="closed"):
        await manager.client.uncached.get(ConfigMap, "any", namespace)

    async def fails() -> None:
        raise RuntimeError("the runnable broke")

    failing = manager_for(envtest, namespace)
    failing.add_runnable(fails)
    with pytest.raises(RuntimeError, match="the runnable broke"):
        await asyncio.wait_for(failing.run(install_signal_handlers=False), 30)
    assert closed(failing)


async def test_run_freezes_what_start_up_made_and_thaws_it_after(
    envtest: Environment, namespace: str
) -> None:
    manager = manager_for(envtest, namespace)
    assert gc.get_freeze_count() == 0
    async with running(manager):
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


async def test_create_or_update_of_a_converged_object_costs_no_request(
    envtest: Environment, namespace: str
) -> None:
    manager = manager_for(envtest, namespace)

    def desired(cm: ConfigMap) -> None:
        cm.data = {"k": "v"}

    def config() -> ConfigMap:
        return ConfigMap(metadata=ObjectMeta(name="cou", namespace=namespace))

    async with running(manager):
        client = manager.client
        created, operation = await rt.create_or_update(client, config(), desired)
        assert operation is rt.Operation.CREATED
        assert created.metadata is not None and created.metadata.uid
        # Read right after the create: the cache waits for its own write, so this
        # is UNCHANGED rather than a second create.
        requests = sum(manager.rest.counts.values())
        again, operation = await rt.create_or_update(client, config(), desired)
        assert operation is rt.Operation.UNCHANGED
        assert sum(manager.rest.counts.values()) == requests, "read from the cache"
        assert again.metadata is not None and again.metadata.uid == created.metadata.uid

        gets = manager.rest.counts["get"]
        _, operation = await rt.create_or_update(
            client, config(), desired, cached=False
        )
        assert operation is rt.Operation.UNCHANGED
        assert manager.rest.counts["get"] == gets + 1, "cached=False reads the server"
