"""What the API server does when a webhook cannot answer, or its handler raises.

With the webhook server stopped (after the API server was seen calling it,
so the configurations are in effect), a webhook with failurePolicy Fail
refuses the create and one with Ignore lets it pass. A handler that raises
refuses the request with its message and is counted as controller-runtime
counts panics.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

import opgen.api as op
from opgen import runtime as rt
from opgen.testing import Environment
from tests.webhook.conftest import Served
from tests.webhook.kinds_v1 import Crash, Latch, Lock, NoteSpec

pytestmark = pytest.mark.envtest


@pytest.fixture
async def client(envtest: Environment, webhooks: Served) -> AsyncIterator[rt.Client]:
    async with rt.Client.from_kubeconfig(envtest.kubeconfig_path) as client:
        yield client


@pytest.fixture
def webhook_down(webhooks: Served) -> Iterator[None]:
    """The webhook server stopped for the test, and started again after it."""
    webhooks.stop()
    try:
        yield
    finally:
        webhooks.start()


async def test_with_the_webhook_down_fail_refuses_and_ignore_lets_it_pass(
    client: rt.Client, namespace: str, webhook_down: None
) -> None:
    with pytest.raises(rt.ApiError) as refused:
        await client.create(
            Lock(metadata=op.ObjectMeta(name="l", namespace=namespace), spec=NoteSpec())
        )
    assert refused.value.code == 500
    assert "failed calling webhook" in refused.value.message
    latch = await client.create(
        Latch(metadata=op.ObjectMeta(name="l", namespace=namespace), spec=NoteSpec())
    )
    assert latch.metadata.uid
    with pytest.raises(rt.NotFound):
        await client.uncached.get(Lock, "l", namespace=namespace)


async def test_with_the_webhook_up_both_are_admitted(
    client: rt.Client, namespace: str
) -> None:
    for kind in (Lock, Latch):
        created = await client.create(
            kind(metadata=op.ObjectMeta(name="u", namespace=namespace), spec=NoteSpec())
        )
        assert created.metadata.uid


async def test_a_handler_that_raises_refuses_with_its_message(
    client: rt.Client, namespace: str, webhooks: Served
) -> None:
    assert webhooks.manager is not None and webhooks.manager.manager is not None
    metrics = webhooks.manager.manager.metrics

    def panics() -> float | None:
        return metrics.registry.get_sample_value(
            "controller_runtime_webhook_panics_total"
        )

    before = panics()
    with pytest.raises(rt.ApiError) as refused:
        await client.create(
            Crash(
                metadata=op.ObjectMeta(name="c", namespace=namespace), spec=NoteSpec()
            )
        )
    assert refused.value.code == 500
    assert "the crash handler always raises" in refused.value.message
    assert before is not None and panics() == before + 1
    exposition = metrics.exposition().decode()
    assert "controller_runtime_webhook_panics_total" in exposition
    assert (
        'controller_runtime_webhook_requests_total{code="200",webhook="/validate-'
        in (exposition)
    )
