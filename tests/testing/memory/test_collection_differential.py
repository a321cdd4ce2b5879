"""Differential test of garbage collection and strategic merge patches: random
sequences (`collection_differential.draw`, fixed seeds) on envtest with
kube-controller-manager and on a memory server that collects.

Every answer is compared as the agreement tests compare them
(`backends.summarize`: codes, reasons, causes, finalizers, owners, labels,
data, managedFields), except resourceVersions: the real collector writes
dependents concurrently, so the order of its writes is not the memory
server's (`test_differential.py` compares the order of everything else).
The agreement rate is printed; the test requires all of them to agree.
"""

from __future__ import annotations

import random

import pytest

from opgen.runtime.transport import Transport
from opgen.testing import Environment
from opgen.testing.memory import MemoryApiServer
from tests.testing.memory.backends import Api, assert_same_answers, create_namespace
from tests.testing.memory.collection_differential import draw, run

pytestmark = pytest.mark.envtest

SEQUENCES = 24
LENGTH = 20


async def _run(api: Api, plan: list) -> list[dict]:  # type: ignore[type-arg]
    await create_namespace(api.transport, api.namespace)
    await run(api, plan)
    for outcome in api.outcomes:
        outcome.pop("resourceVersion", None)
    return api.outcomes


@pytest.mark.parametrize("seed", range(SEQUENCES))
async def test_random_owners_and_deletes_get_the_same_answers(
    collecting_envtest: Environment,
    collecting_memory_server: MemoryApiServer,
    namespace: str,
    seed: int,
) -> None:
    plan = draw(random.Random(seed), LENGTH)
    transport = Transport.from_kubeconfig(collecting_envtest.kube_config())
    try:
        expected = await _run(Api(transport, namespace), plan)
    finally:
        await transport.aclose()
    got = await _run(Api(collecting_memory_server.transport(), namespace), plan)
    assert_same_answers(seed, expected, got)
