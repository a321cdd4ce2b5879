"""The memory server collects garbage as kube-controller-manager does.

Each scenario of `collection_scenarios.py` runs on a control plane with
kube-controller-manager and on a memory server that collects, in a
namespace of the same name; after every delete both are left to settle, and
their summarized answers (`backends.summarize`, owner references included)
must be equal. The resourceVersions of what the collector wrote are not
compared: the real collector writes dependents concurrently, in no set order.
"""

from __future__ import annotations

import pytest

from opgen.runtime.transport import Transport
from opgen.testing import Environment
from opgen.testing.memory import MemoryApiServer
from tests.testing.memory.backends import (
    Api,
    assert_same_outcomes,
    create_namespace,
)
from tests.testing.memory.collection_scenarios import COLLECTION_SCENARIOS

pytestmark = pytest.mark.envtest


async def _run(transport: Transport | object, namespace: str, name: str) -> Api:
    api = Api(transport, namespace)  # type: ignore[arg-type]
    await create_namespace(api.transport, namespace)
    await COLLECTION_SCENARIOS[name](api)
    for outcome in api.outcomes:
        if str(outcome.get("request", "")).startswith("after:"):
            outcome.pop("resourceVersion", None)
    return api


@pytest.mark.parametrize("name", sorted(COLLECTION_SCENARIOS))
async def test_the_memory_server_collects_as_kube_controller_manager_does(
    collecting_envtest: Environment,
    collecting_memory_server: MemoryApiServer,
    namespace: str,
    name: str,
) -> None:
    transport = Transport.from_kubeconfig(collecting_envtest.kube_config())
    try:
        real = await _run(transport, namespace, name)
    finally:
        await transport.aclose()
    memory = await _run(collecting_memory_server.transport(), namespace, name)
    assert_same_outcomes(real, memory)
