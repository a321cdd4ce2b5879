"""Read-your-writes: a cached read after this process's write sees that write."""

from __future__ import annotations

import pytest

from opgen import runtime as rt
from opgen.runtime.freshness import Expectations, is_at_least
from opgen.testing import Environment
from tests.runtime.helpers import manager_for, running
from tests.runtime.kinds import Widget, WidgetStatus, widget
from tests.runtime.virtual_time import VirtualTimeLoop, run_virtual


def test_resource_versions_compare_as_revisions() -> None:
    assert is_at_least("12", "12") and is_at_least("13", "12")
    assert not is_at_least("9", "12") and not is_at_least(None, "1")
    assert is_at_least("opaque", "opaque") and not is_at_least("b", "a")


def test_settle_waits_for_the_write_or_gives_up() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        expectations = Expectations(wait=0.3, clock=loop.time)
        stored: dict[tuple[str, str], str] = {("ns", "a"): "5"}
        expectations.expect(("ns", "a"), "7")
        loop.call_later(0.05, expectations.observed, ("ns", "a"), "7", False)
        await expectations.settle([("ns", "a")], stored.get)
        assert loop.time() == pytest.approx(
            0.05
        ), "woken by the informer, not the limit"
        assert len(expectations) == 0

        expectations.expect(("ns", "a"), "9")
        stored[("ns", "a")] = "10"  # already newer in the store: no wait
        started = loop.time()
        await expectations.settle([("ns", "a")], stored.get)
        assert loop.time() == started

        expectations.expect(("ns", "b"), "3")  # never observed: bounded by `wait`
        started = loop.time()
        await expectations.settle([("ns", "b")], stored.get)
        assert loop.time() - started == pytest.approx(0.3) and len(expectations) == 0

        expectations.expect(("ns", "c"), "4")
        expectations.observed(("ns", "c"), None, True)  # deleted: nothing to wait for
        assert len(expectations) == 0

    run_virtual(main)


@pytest.mark.envtest
async def test_cached_reads_see_the_clients_own_writes(
    envtest: Environment, namespace: str
) -> None:
    manager = _watching_widgets(envtest, namespace)
    async with running(manager):
        client = manager.client
        created = await client.create(widget("w", namespace))
        assert (await client.get(Widget, "w", namespace)).metadata.uid == (
            created.metadata.uid
        )
        for replicas in range(1, 21):
            current = await client.get(Widget, "w", namespace)
            current.status = WidgetStatus(replicas=replicas)
            await client.patch_status(current)
            cached = await client.get(Widget, "w", namespace)
            assert cached.status is not None and cached.status.replicas == replicas
        listed = await client.list(Widget, namespace)
        assert [w.status.replicas for w in listed if w.status] == [20]


@pytest.mark.envtest
async def test_a_write_without_refresh_leaves_the_object_and_still_reads_its_write(
    envtest: Environment, namespace: str
) -> None:
    manager = _watching_widgets(envtest, namespace)
    async with running(manager):
        client = manager.client
        created = await client.create(widget("w", namespace))
        version = created.metadata.resource_version
        created.status = WidgetStatus(replicas=3)

        returned = await client.patch_status(created, refresh=False)

        assert returned is created
        assert created.metadata.resource_version == version, "the answer is not decoded"
        cached = await client.get(Widget, "w", namespace)
        assert cached.status is not None and cached.status.replicas == 3
        assert cached.metadata.resource_version != version, "the cache waited for it"
        stored = await client.uncached.get(Widget, "w", namespace)
        assert stored.metadata.resource_version == cached.metadata.resource_version

        await client.patch_status(created)  # the default refreshes
        assert created.metadata.resource_version != version


def _watching_widgets(envtest: Environment, namespace: str) -> rt.Manager:
    """A manager whose cache holds Widgets (a controller that does nothing)."""
    manager = manager_for(envtest, namespace)
    manager.add_controller(
        rt.Controller(
            "noop",
            for_=rt.For(Widget),
            reconciler=rt.FuncReconciler(lambda request: _done()),
        )
    )
    return manager


async def _done() -> rt.Result:
    return rt.Result()
