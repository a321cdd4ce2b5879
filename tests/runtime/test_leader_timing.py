"""Leader election's timing, on virtual time: exact, however loaded the machine is.

The Lease lives in `LeaseServer`, a `seams.Reader` and `seams.Writer` for one
Lease (get, create, update with resourceVersion checks); the electors read the loop's
virtual clock. tests/runtime/test_leader.py runs the same election against a
real API server.
"""

from __future__ import annotations

import asyncio
from typing import Any, TypeVar

import pytest

from opgen import runtime as rt
from opgen.runtime import errors
from opgen.runtime.resources import resource_type
from tests.runtime.helpers import LeaseTimings
from tests.runtime.virtual_time import VirtualTimeLoop, run_virtual

TIMINGS: LeaseTimings = {
    "lease_duration": 15.0,
    "renew_deadline": 10.0,
    "retry_period": 2.0,
}
T = TypeVar("T")
JITTER = 1.2
"""Candidates poll every retry_period times a random 1 to 1.2."""


class LeaseServer:
    """One Lease, stored as the API server would: a resourceVersion per write."""

    default_namespace = "ns"

    def __init__(self, loop: VirtualTimeLoop) -> None:
        self.loop = loop
        self.lease: dict[str, Any] | None = None
        self.version = 0
        self.writes: list[tuple[float, str | None]] = []
        """(time, holder) of every write."""

    async def get(self, kind: type[T], name: str, namespace: str | None = None) -> T:
        if self.lease is None:
            raise errors.NotFound(404, "leases not found", reason="NotFound")
        return resource_type(kind).decode_dict(self.lease)

    async def list(self, kind: type[T], *args: Any, **kwargs: Any) -> rt.Page[T]:
        raise AssertionError("an elector never lists")

    async def create(self, obj: T, *, refresh: bool = True) -> T:
        return self._write("create", obj)

    async def update(self, obj: T, *, refresh: bool = True) -> T:
        return self._write("update", obj)

    async def update_status(self, obj: T, *, refresh: bool = True) -> T:
        raise AssertionError("a Lease has no status")

    async def patch(self, obj: T, patch: Any, *, refresh: bool = True) -> T:
        raise AssertionError("an elector never patches")

    async def delete(self, obj: object) -> None:
        raise AssertionError("an elector never deletes")

    def _write(self, verb: str, obj: T) -> T:
        rtype = resource_type(type(obj))
        data = rtype.encode_obj(obj)
        if verb == "create" and self.lease is not None:
            raise errors.AlreadyExists(409, "exists", reason="AlreadyExists")
        if verb == "update" and data["metadata"].get("resourceVersion") != str(
            self.version
        ):
            raise errors.Conflict(
                409, "the object has been modified", reason="Conflict"
            )
        self.version += 1
        data["metadata"]["resourceVersion"] = str(self.version)
        self.lease = data
        self.writes.append((self.loop.time(), data["spec"].get("holderIdentity")))
        return rtype.decode_dict(data)


def elector(server: LeaseServer, identity: str) -> rt.LeaderElector:
    config = rt.LeaderElectionConfig(name="lock", identity=identity, **TIMINGS)
    return rt.LeaderElector(server, server, config, clock=server.loop.time)


@pytest.mark.parametrize("release", [False, True], ids=["crashed", "released"])
def test_a_follower_takes_over_one_lease_duration_after_a_crash_at_once_after_a_release(
    release: bool,
) -> None:
    async def main(loop: VirtualTimeLoop) -> float:
        server = LeaseServer(loop)
        leader, follower = elector(server, "a"), elector(server, "b")
        await leader.acquire()
        renewing = asyncio.create_task(leader.keep_renewing())
        following = asyncio.create_task(follower.acquire())
        await asyncio.sleep(60)
        assert not following.done(), "the follower waits while the leader renews"
        assert [holder for _, holder in server.writes] == ["a"] * len(server.writes)
        renewing.cancel()  # the leader process dies...
        await asyncio.gather(renewing, return_exceptions=True)
        if release:
            await leader.release()  # ...or shuts down cleanly, as the Manager does
        last_write = server.writes[-1][0]
        await following
        assert follower.is_leader and server.writes[-1][1] == "b"
        return server.writes[-1][0] - last_write

    took = run_virtual(main)
    retry = TIMINGS["retry_period"]
    if release:
        # the follower's next poll finds the Lease free
        assert 0 < took <= retry * JITTER
    else:
        # never before the Lease expired, as the follower saw it; and within about one
        # lease duration (it saw the last renewal at its next poll): not two
        assert (
            TIMINGS["lease_duration"]
            <= took
            <= TIMINGS["lease_duration"] + 2 * retry * JITTER
        )


def test_a_leader_that_cannot_renew_steps_down_at_the_renew_deadline() -> None:
    async def main(loop: VirtualTimeLoop) -> float:
        server = LeaseServer(loop)
        leader = elector(server, "a")
        await leader.acquire()
        last_renewal = loop.time()
        # someone else takes the Lease: every renewal from now on is refused
        assert server.lease is not None
        server.lease["spec"]["holderIdentity"] = "thief"
        server.lease["spec"]["leaseDurationSeconds"] = 3600
        await leader.keep_renewing()
        assert not leader.is_leader
        return loop.time() - last_renewal

    took = run_virtual(main)
    retry = TIMINGS["retry_period"]
    assert TIMINGS["renew_deadline"] <= took <= TIMINGS["renew_deadline"] + retry


def test_a_leader_whose_renewal_hangs_steps_down_at_its_renew_deadline() -> None:
    """Not a whole renew deadline after its last attempt began: by then a
    follower may have seen the Lease expire (lease duration after the last
    renewal it saw) and taken it."""

    async def main(loop: VirtualTimeLoop) -> None:
        server = LeaseServer(loop)
        leader = elector(server, "a")
        await leader.acquire()
        renewing = asyncio.create_task(leader.keep_renewing())
        await asyncio.sleep(5.0)  # renewed at 2 and 4
        assert [at for at, _ in server.writes] == [0.0, 2.0, 4.0]
        hung = asyncio.Event()

        async def never(kind: type[T], name: str, namespace: str | None = None) -> T:
            await hung.wait()
            raise AssertionError("a hung read never answers")

        server.get = never  # type: ignore[method-assign]
        await renewing
        # the renewal begun at 6 never answers; the deadline is 4 + 10
        assert loop.time() == pytest.approx(4.0 + TIMINGS["renew_deadline"])
        assert not leader.is_leader

    run_virtual(main)
