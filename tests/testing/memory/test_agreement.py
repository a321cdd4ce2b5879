"""The memory server and envtest answer the same scenarios alike.

Each scenario of `scenarios.py` runs against the session's kube-apiserver and
against a fresh memory server, in a namespace of the same name; their
summarized answers and watch events (`backends.summarize`: status codes,
reasons, causes, managedFields, generation, finalizers, spec and status as stored,
resourceVersion order) must be equal.
"""

from __future__ import annotations

import pytest

from opgen.runtime.transport import Transport
from opgen.testing import Environment
from opgen.testing.memory import MemoryApiServer
from tests.testing.memory.apply_scenarios import APPLY_SCENARIOS
from tests.testing.memory.backends import (
    Api,
    assert_same_outcomes,
    create_namespace,
)
from tests.testing.memory.scenarios import SCENARIOS as PLAIN_SCENARIOS
from tests.testing.memory.strategic_scenarios import STRATEGIC_SCENARIOS

pytestmark = pytest.mark.envtest

SCENARIOS = {**PLAIN_SCENARIOS, **APPLY_SCENARIOS, **STRATEGIC_SCENARIOS}


async def _run_on_envtest(envtest: Environment, namespace: str, name: str) -> Api:
    transport = Transport.from_kubeconfig(envtest.kube_config())
    try:
        api = Api(transport, namespace)
        await SCENARIOS[name](api)
    finally:
        await transport.aclose()
    return api


async def _run_in_memory(server: MemoryApiServer, namespace: str, name: str) -> Api:
    await create_namespace(server.transport(), namespace)
    api = Api(server.transport(), namespace)
    await SCENARIOS[name](api)
    return api


@pytest.mark.parametrize("name", sorted(SCENARIOS))
async def test_the_memory_server_answers_as_envtest_does(
    envtest: Environment, namespace: str, memory_server: MemoryApiServer, name: str
) -> None:
    real = await _run_on_envtest(envtest, namespace, name)
    memory = await _run_in_memory(memory_server, namespace, name)
    assert_same_outcomes(real, memory)
