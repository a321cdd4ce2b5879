"""A real 410: the API server restarts while the informer is away, so its watch cache
no longer reaches back to the informer's resourceVersion. The informer relists and
emits the delete it missed.

Uses its own control plane (restarting the session's would disturb other tests).
`opgen.testing.Environment` has no public restart, so the test restarts the
kube-apiserver process of its `LocalControlPlane` in place (same arguments, same port).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import httpx2
import pytest

from opgen.runtime.client import Client
from opgen.runtime.informer import Event, Informer
from opgen.runtime.resources import resource_type
from opgen.runtime.rest import RestClient
from opgen.testing import Environment
from tests.runtime.crds import generated_crds
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


def restart_apiserver(env: Environment) -> None:
    local = env._local
    assert local is not None
    process = next(p for p in local._processes if p.name == "kube-apiserver")
    process.stop(local.stop_timeout)
    process.start()


async def wait_ready(rest: RestClient, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            response = await rest._http.get("/readyz")
            if response.status_code == 200:
                return
        except httpx2.TransportError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError("kube-apiserver did not come back")
        await asyncio.sleep(0.2)


async def test_restarted_api_server_answers_410_and_no_delete_is_lost(
    own_envtest: Environment,
) -> None:
    lk = own_envtest.async_client()
    rest = RestClient(lk, qps=0)
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
    remembered = informer._scopes[0].resource_version
    assert sorted(events) == [("ADDED", "doomed"), ("ADDED", "kept")]
    events.clear()

    await client.delete_by_name(Widget, "doomed", namespace=namespace)
    await client.create(widget("born", namespace))
    await asyncio.to_thread(restart_apiserver, own_envtest)
    await wait_ready(rest)

    gone = rest.metrics.watch_restarts.labels(str(informer.rtype), "gone")
    assert informer._scopes[0].resource_version == remembered
    task = asyncio.create_task(informer.run())
    try:
        deadline = time.monotonic() + 30
        while len(events) < 2 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await lk.close()
    assert sorted(events) == [("ADDED", "born"), ("DELETED", "doomed")]
    assert (
        gone._value.get() == 1
    ), "the server answered 410 Gone and the informer relisted"
    assert sorted(e.name for e in informer.store) == ["born", "kept"]
