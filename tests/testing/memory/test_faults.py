"""Faults on demand: the runtime's retry paths, covered without an outage."""

from __future__ import annotations

import json

import pytest

from opgen import runtime as rt
from opgen.api.k8s import ConfigMap
from opgen.runtime.rest import RestClient
from opgen.testing.memory import Fault, MemoryApiServer

CONFIGMAP = "/api/v1/namespaces/default/configmaps/c"


async def _client(server: MemoryApiServer) -> rt.Client:
    client = rt.Client(RestClient(server.transport(), rt.ClientOptions(qps=0)))
    await client.create(
        ConfigMap.model_validate({"metadata": {"name": "c", "namespace": "default"}})
    )
    return client


async def test_a_429_with_retry_after_is_retried_by_the_rest_client(
    memory_server: MemoryApiServer,
) -> None:
    client = await _client(memory_server)
    fault = memory_server.faults.add(Fault(429, method="GET", retry_after=0))
    found = await client.get(ConfigMap, "c", "default")
    assert found.metadata.name == "c"
    assert fault.answered == 1
    assert [r for r in memory_server.requests if r[0] == "GET"] == [
        ("GET", CONFIGMAP),
        ("GET", CONFIGMAP),
    ]


async def test_a_500_without_retry_after_reaches_the_caller(
    memory_server: MemoryApiServer,
) -> None:
    client = await _client(memory_server)
    memory_server.faults.add(Fault(500, path="/configmaps/c$"))
    with pytest.raises(rt.ApiError) as caught:
        await client.get(ConfigMap, "c", "default")
    assert caught.value.code == 500
    assert (await client.get(ConfigMap, "c", "default")).metadata.name == "c"


async def test_an_injected_conflict_fails_one_update_only(
    memory_server: MemoryApiServer,
) -> None:
    client = await _client(memory_server)
    config = await client.get(ConfigMap, "c", "default")
    memory_server.faults.add(Fault(409, method="PUT"))
    config.data = {"k": "v"}
    with pytest.raises(rt.Conflict):
        await client.update(config)
    updated = await client.update(config)
    assert updated.data == {"k": "v"}


async def test_a_watch_can_be_refused(memory_server: MemoryApiServer) -> None:
    memory_server.faults.add(Fault(503, method="WATCH", retry_after=1))
    transport = memory_server.transport()
    path = "/api/v1/namespaces/default/configmaps?watch=true"
    async with transport.stream("GET", path, read_timeout=None) as stream:
        assert stream.status == 503
        assert stream.headers["retry-after"] == "1"
        assert json.loads(await stream.read())["reason"] == "ServiceUnavailable"
    async with transport.stream("GET", path, read_timeout=None) as stream:
        assert stream.status == 200
