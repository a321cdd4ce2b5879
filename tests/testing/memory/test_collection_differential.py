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

import json
import random

import pytest

from opgen.runtime.transport import Transport
from opgen.testing import Environment
from opgen.testing.memory import MemoryApiServer
from tests.testing.memory.backends import Api
from tests.testing.memory.collection_differential import draw, run

pytestmark = pytest.mark.envtest

SEQUENCES = 24
LENGTH = 20


async def _run(api: Api, plan: list) -> list[dict]:  # type: ignore[type-arg]
    await api.transport.send(
        "POST",
        "/api/v1/namespaces",
        body=json.dumps({"metadata": {"name": api.namespace}}).encode(),
    )
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
    agreeing = sum(e == g for e, g in zip(expected, got, strict=True))
    print(f"seed {seed}: {agreeing}/{len(expected)} answers agree")
    differences = [
        f"{e['request']}:\n  envtest: {e}\n  memory:  {g}"
        for e, g in zip(expected, got, strict=True)
        if e != g
    ]
    assert not differences, "\n".join(differences)
