"""The event recorder's memory: what it keeps per object is forgotten once it no longer
matters (no API server: a fake client records the writes, a fake clock runs time)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

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


class Refusing(Writes):
    """The API server refusing every Event with `error`."""

    def __init__(self, error: rt.ApiError) -> None:
        super().__init__()
        self.error = error

    async def create(self, obj: Any, *, refresh: bool = True) -> Any:
        raise self.error


TERMINATING = rt.ApiError(
    403,
    'events.events.k8s.io "cm1.1" is forbidden: unable to create new content in '
    "namespace ns because it is being terminated",
    reason="Forbidden",
    status={
        "details": {
            "causes": [
                {
                    "reason": "NamespaceTerminating",
                    "message": "namespace ns is being terminated",
                }
            ]
        }
    },
)
NO_RBAC = rt.ApiError(
    403,
    'events.events.k8s.io is forbidden: User "system:serviceaccount:x:y" cannot '
    'create resource "events"',
    reason="Forbidden",
)


@pytest.mark.parametrize(
    ("error", "rbac_hint"), [(TERMINATING, False), (NO_RBAC, True)]
)
async def test_the_rbac_hint_is_given_only_when_rbac_is_missing(
    caplog: pytest.LogCaptureFixture, error: rt.ApiError, rbac_hint: bool
) -> None:
    recorder = rt.EventRecorder(
        Refusing(error), reporting_controller="test"  # type: ignore[arg-type]
    )
    with caplog.at_level(logging.INFO, logger="opgen.runtime"):
        await recorder.event(
            _object(1), type="Normal", reason="Synced", note="ok", action="Reconcile"
        )
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert ("@op.rbac" in logged) is rbac_hint, logged
    assert ("namespace is being deleted" in logged) is not rbac_hint, logged
    assert recorder.failed == 1
