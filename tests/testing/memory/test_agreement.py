"""The memory server and envtest answer the same scenarios alike.

Each scenario of `scenarios.py` runs against the session's kube-apiserver and
against a fresh memory server, in a namespace of the same name; their
summarized answers and watch events (`backends.summarize`: status codes,
reasons, causes, generation, finalizers, spec and status as stored,
resourceVersion order) must be equal.
"""

from __future__ import annotations

import json

import pytest

from opgen.runtime.transport import Transport
from opgen.testing import Environment
from opgen.testing.memory import MemoryApiServer
from tests.testing.memory.backends import Api, ranked
from tests.testing.memory.scenarios import SCENARIOS

pytestmark = pytest.mark.envtest


async def _run_on_envtest(envtest: Environment, namespace: str, name: str) -> Api:
    transport = Transport.from_kubeconfig(envtest.lightkube_config())
    try:
        api = Api(transport, namespace)
        await SCENARIOS[name](api)
    finally:
        await transport.aclose()
    return api


async def _run_in_memory(server: MemoryApiServer, namespace: str, name: str) -> Api:
    await server.transport().send(
        "POST",
        "/api/v1/namespaces",
        body=json.dumps({"metadata": {"name": namespace}}).encode(),
    )
    api = Api(server.transport(), namespace)
    await SCENARIOS[name](api)
    return api


@pytest.mark.parametrize("name", sorted(SCENARIOS))
async def test_the_memory_server_answers_as_envtest_does(
    envtest: Environment, namespace: str, memory_server: MemoryApiServer, name: str
) -> None:
    real = await _run_on_envtest(envtest, namespace, name)
    memory = await _run_in_memory(memory_server, namespace, name)
    expected, got = ranked(real.outcomes), ranked(memory.outcomes)
    differences = [
        f"{e.get('request') or e.get('event')}:\n  envtest: {e}\n  memory:  {g}"
        for e, g in zip(expected, got, strict=False)
        if e != g
    ]
    assert not differences, "\n".join(differences)
    assert len(got) == len(expected)
