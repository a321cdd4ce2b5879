"""The event recorder's memory: what it keeps per object is forgotten once it no longer
matters (no API server: a fake client records the writes, a fake clock runs time)."""

from __future__ import annotations

from typing import Any

from opgen import runtime as rt
from opgen.api import ObjectMeta
from opgen.api.k8s import ConfigMap


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Writes:
    """Stands in for `rt.Client`: counts Event creates and series patches."""

    def __init__(self) -> None:
        self.created = 0
        self.patched = 0

    async def create(self, obj: Any, *, refresh: bool = True) -> Any:
        self.created += 1
        return obj

    async def patch(self, *args: Any, **kwargs: Any) -> None:
        self.patched += 1


def _object(i: int) -> ConfigMap:
    return ConfigMap(metadata=ObjectMeta(name=f"cm{i}", namespace="ns", uid=f"uid-{i}"))


async def test_series_and_rate_limits_are_forgotten_once_idle() -> None:
    clock, writes = Clock(), Writes()
    recorder = rt.EventRecorder(
        writes,  # type: ignore[arg-type]
        reporting_controller="test",
        burst=2,
        refill_seconds=10.0,
        dedup_window=60.0,
        clock=clock,
    )

    async def event(i: int) -> None:
        await recorder.event(
            _object(i), type="Normal", reason="Synced", note="ok", action="Reconcile"
        )

    for i in range(3000):
        await event(i)
    assert writes.created == 3000
    assert recorder.remembered() == 2 * 3000  # a series and a bucket each

    await event(7)  # within the window: one series, patched
    assert (writes.created, writes.patched) == (3000, 1)

    clock.now = 61.0  # past the dedup window and the first sweep; buckets refilled
    await event(3000)
    assert recorder.remembered() == 2, "only the newest object's series and bucket"
    await event(7)  # a new Event: its old series had expired anyway
    assert (writes.created, writes.patched) == (3002, 1)
    await event(7)
    assert (writes.created, writes.patched) == (3002, 2), "dedup still works"
