"""A real 410: the API server restarts while the informer is away, so its watch cache
no longer reaches back to the informer's resourceVersion. The informer relists and
emits the delete it missed.

Uses its own control plane (restarting the session's would disturb other tests),
restarted in place with `Environment.restart_apiserver()`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from opgen import runtime as rt
from opgen.runtime.client import Client
from opgen.runtime.informer import Event, Informer
from opgen.runtime.resources import resource_type
from opgen.runtime.rest import RestClient
from opgen.testing import Environment
from tests.runtime.crds import generated_crds
from tests.runtime.helpers import eventually, sample
from tests.runtime.kinds import Widget, widget

pytestmark = [pytest.mark.envtest, pytest.mark.slow]


@pytest.fixture
async def own_envtest(envtest: Environment) -> AsyncIterator[Environment]:
    """A second, private control plane (the session's `envtest` proves binaries exist)."""
    if envtest.is_existing_cluster:
        pytest.skip("restarting the API server needs a local control plane")
    env = await Environment(crd_paths=generated_crds()).astart()
    try:
        yield env
    finally:
        await env.astop()


async def test_restarted_api_server_answers_410_and_no_delete_is_lost(
    own_envtest: Environment,
) -> None:
    rest = RestClient.from_kubeconfig(
        own_envtest.kube_config(), rt.ClientOptions(qps=0)
    )
    client = Client(rest)
    namespace = "default"
    for name in ("doomed", "kept"):
        await client.create(widget(name, namespace))
    informer = Informer(rest, resource_type(Widget), namespaces=(namespace,))
    events: list[tuple[str, str]] = []

    def record(event: Event) -> None:
        events.append((event.type, event.new.name))

    informer.add_handler(record)
    task = asyncio.create_task(informer.run())
    await asyncio.wait_for(informer.wait_for_sync(), 30)
    task.cancel()  # the informer goes away, keeping its resourceVersion
    await asyncio.gather(task, return_exceptions=True)
    assert sorted(events) == [("ADDED", "doomed"), ("ADDED", "kept")]
    events.clear()

    await client.delete(widget("doomed", namespace))
    await client.create(widget("born", namespace))
    await own_envtest.arestart_apiserver()

    task = asyncio.create_task(informer.run())
    try:
        await eventually(lambda: len(events) >= 2, timeout=30)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await rest.aclose()
    assert sorted(events) == [("ADDED", "born"), ("DELETED", "doomed")]
    assert (
        sample(
            rest.metrics,
            "opgen_watch_restarts_total",
            kind=str(informer.rtype),
            reason="gone",
        )
        == 1
    ), "the informer resumed from its old resourceVersion, got 410 Gone and relisted"
    assert sorted(e.name for e in informer.store) == ["born", "kept"]
