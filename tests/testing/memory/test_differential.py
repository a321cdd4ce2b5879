"""Differential test: random operation sequences on envtest and on the memory server.

Sequences are drawn from a fixed seed (`differential.draw`), so a failure
replays; each runs in the test's namespace on both servers and every answer
is compared as the agreement tests compare them (`backends.summarize`).
The agreement rate is printed; the test requires all of them to agree.
"""

from __future__ import annotations

import random

import pytest

from opgen.runtime.transport import Transport
from opgen.testing import Environment
from opgen.testing.memory import MemoryApiServer
from tests.testing.memory.backends import (
    Api,
    assert_same_answers,
    create_namespace,
    ranked,
)
from tests.testing.memory.differential import draw, run

pytestmark = pytest.mark.envtest

SEQUENCES = 24
LENGTH = 25


@pytest.mark.parametrize("seed", range(SEQUENCES))
async def test_random_operations_get_the_same_answers(
    envtest: Environment,
    namespace: str,
    memory_server: MemoryApiServer,
    seed: int,
) -> None:
    plan = draw(random.Random(seed), LENGTH)
    transport = Transport.from_kubeconfig(envtest.kube_config())
    try:
        real = Api(transport, namespace)
        await run(real, plan)
    finally:
        await transport.aclose()
    await create_namespace(memory_server.transport(), namespace)
    memory = Api(memory_server.transport(), namespace)
    await run(memory, plan)
    expected, got = ranked(real.outcomes), ranked(memory.outcomes)
    assert_same_answers(seed, expected, got)
