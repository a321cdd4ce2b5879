"""A manager's runnables, on virtual time: a manager without controllers watches
nothing and sends no request, so it runs for an hour in no time."""

from __future__ import annotations

import asyncio

import pytest

from opgen import runtime as rt
from opgen.runtime.kubeconfig import KubeConfig
from tests.runtime.helpers import closed
from tests.runtime.virtual_time import VirtualTimeLoop, run_virtual

HOUR = 3600.0


def manager() -> rt.Manager:
    unreachable = KubeConfig.from_server("https://127.0.0.1:9")  # never contacted
    off = "0"
    return rt.Manager(
        unreachable,
        rt.ManagerOptions(
            metrics=rt.MetricsOptions(bind_address=off),
            probes=rt.ProbeOptions(bind_address=off),
        ),
    )


def test_a_runnable_that_returns_leaves_the_manager_running() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        subject = manager()
        returned: list[float] = []

        async def finishes() -> None:
            returned.append(loop.time())

        subject.add_runnable(finishes)
        running = asyncio.create_task(subject.run(install_signal_handlers=False))
        done, _ = await asyncio.wait({running}, timeout=HOUR)
        assert returned and not done, "a runnable that returned stopped the manager"
        subject.stop()
        await running
        assert closed(subject)

    run_virtual(main)


def test_a_runnable_that_fails_stops_the_manager_with_its_error() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        subject = manager()

        async def fails() -> None:
            await asyncio.sleep(0.2)
            raise RuntimeError("the runnable broke")

        subject.add_runnable(fails)
        with pytest.raises(RuntimeError, match="the runnable broke"):
            await asyncio.wait_for(subject.run(install_signal_handlers=False), HOUR)
        assert loop.time() == pytest.approx(0.2)
        assert closed(subject)

    run_virtual(main)
