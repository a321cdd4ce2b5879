"""Times at the server's precision: a status holding a time is not patched again
because memory held microseconds the server does not store (no API server: a fake
client counts the status writes)."""

from __future__ import annotations

import datetime
from typing import Any

import opgen.api as op
from opgen.runtime import status as rt_status

MOMENT = datetime.datetime(2026, 5, 1, 12, 0, 0, 123456, tzinfo=datetime.timezone.utc)


class Stamps(op.Model):
    started: op.Time | None = None
    heartbeat: op.MicroTime | None = None


class StatusWrites:
    def __init__(self) -> None:
        self.patched = 0

    async def patch_status(self, obj: Any, *, refresh: bool = True) -> None:
        self.patched += 1


class Holder:
    status: Any = None


def test_time_holds_seconds_and_micro_time_microseconds() -> None:
    stamps = Stamps(started=MOMENT, heartbeat=MOMENT)
    assert stamps.started == MOMENT.replace(microsecond=0)
    assert stamps.heartbeat == MOMENT
    assert stamps.model_dump(mode="json", by_alias=True) == {
        "started": "2026-05-01T12:00:00Z",
        "heartbeat": "2026-05-01T12:00:00.123456Z",
    }
    read_back = Stamps.model_validate(stamps.model_dump(mode="json", by_alias=True))
    assert read_back == stamps


async def test_a_time_set_in_memory_is_compared_at_seconds() -> None:
    stored = Stamps.model_validate({"started": "2026-05-01T12:00:00Z"})
    wanted = stored.model_copy()
    wanted.started = MOMENT  # an assignment: not validated, microseconds kept
    writes = StatusWrites()
    wrote = await rt_status.write_if_changed(
        writes, Holder(), wanted, stored  # type: ignore[arg-type]
    )
    assert (wrote, writes.patched) == (False, 0)
    wanted.started = MOMENT + datetime.timedelta(seconds=1)
    assert await rt_status.write_if_changed(
        writes, Holder(), wanted, stored  # type: ignore[arg-type]
    )
    assert writes.patched == 1
