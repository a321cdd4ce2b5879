"""Ring membership on coordination.k8s.io/v1 Leases: one Lease per replica.

`MemberLease` is a replica's own Lease, labelled `sharding.opgen.dev/ring`,
named `<ring>-<shard>` and held by the shard's name. The replica renews it
every `retry_period`; when no renewal succeeds for `renew_deadline` it has
lost its membership and must stop reconciling (the manager stops), before the
assigner can take its Lease for expired (`lease_duration` > `renew_deadline`).
On a clean stop, after its reconciles have finished, it deletes the Lease, so
its objects are reassigned at once.

`Members` is the assigner's view: the shard names whose Lease is held and was
renewed within its `leaseDurationSeconds`, as observed locally — when a
Lease's spec last changed is measured on this process's clock, never compared
with the renew time another machine wrote (as the leader elector does).

Both read with a `seams.Reader` that asks the server and write with a
`seams.Writer`, keeping the Lease as its wire form. Time is the event loop's
clock unless a `clock` is given.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from opgen.runtime import errors
from opgen.runtime.leaderelection import _lease, _micro_time
from opgen.runtime.seams import Reader, Writer
from opgen.runtime.sharding.protocol import RING_LABEL, ShardingOptions
from opgen.runtime.timeouts import within

__all__ = ["MemberLease", "Members", "lease_name", "loop_time"]

log = logging.getLogger("opgen.runtime.sharding")


def loop_time() -> float:
    """The running event loop's clock: `time.monotonic` on a real loop, the virtual
    time of a test's loop (the default `clock` of membership and the assigner)."""
    return asyncio.get_running_loop().time()


def lease_name(ring: str, shard: str) -> str:
    return f"{ring}-{shard}"


class MemberLease:
    """This replica's Lease in the ring: join, renew, leave."""

    def __init__(
        self,
        reader: Reader,
        writer: Writer,
        options: ShardingOptions,
        *,
        shard: str,
        namespace: str,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.options = options
        self.shard = shard
        self.namespace = namespace
        self.name = lease_name(options.ring, shard)
        self._clock = clock or loop_time
        self.is_member = False

    def _body(self, previous: dict[str, Any] | None) -> dict[str, Any]:
        now = _micro_time()
        spec = (previous or {}).get("spec") or {}
        metadata = dict((previous or {}).get("metadata") or {})
        metadata.update(name=self.name, namespace=self.namespace)
        metadata["labels"] = {
            **(metadata.get("labels") or {}),
            RING_LABEL: self.options.ring,
        }
        return {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": metadata,
            "spec": {
                "holderIdentity": self.shard,
                "leaseDurationSeconds": max(1, round(self.options.lease_duration)),
                "acquireTime": spec.get("acquireTime") or now,
                "renewTime": now,
            },
        }

    async def renew(self) -> None:
        """Create or renew the Lease (raises on failure)."""
        try:
            lease = await self.reader.get(_lease().cls, self.name, self.namespace)
        except errors.NotFound:
            await self.writer.create(
                _lease().decode_dict(self._body(None)), refresh=False
            )
        else:
            body = self._body(_lease().encode_obj(lease))
            await self.writer.update(_lease().decode_dict(body), refresh=False)
        self.is_member = True

    async def join(self) -> None:
        """Renew until it succeeds once."""
        while True:
            try:
                await self.renew()
                log.info("joined ring %s as shard %s", self.options.ring, self.shard)
                return
            except Exception as exc:
                log.warning("could not join ring %s: %s", self.options.ring, exc)
            await asyncio.sleep(self.options.retry_period)

    async def keep_renewing(self) -> None:
        """Renew every `retry_period`; returns once no renewal succeeded for
        `renew_deadline` (the membership is lost) — at that deadline, not after
        it: neither the wait between renewals nor a hung renewal outlasts it, so
        a replica has stopped before its Lease can expire (`lease_duration`)."""
        last = self._clock()
        while True:
            deadline = last + self.options.renew_deadline
            await asyncio.sleep(
                max(0.0, min(self.options.retry_period, deadline - self._clock()))
            )
            try:
                await within(self.renew(), deadline - self._clock())
                last = self._clock()
            except Exception as exc:
                log.warning("could not renew shard lease %s: %r", self.name, exc)
                if self._clock() >= deadline:
                    self.is_member = False
                    log.error("shard lease %s not renewed within %.1fs; leaving the ring",
                              self.name, self.options.renew_deadline)  # fmt: skip
                    return

    async def leave(self) -> None:
        """Delete the Lease: the assigner hands this shard's objects on at once."""
        self.is_member = False
        try:
            lease = await self.reader.get(_lease().cls, self.name, self.namespace)
            await self.writer.delete(lease)
            log.info("left ring %s", self.options.ring)
        except errors.NotFound:
            return
        except Exception as exc:
            log.warning("could not delete shard lease %s: %s", self.name, exc)


class Members:
    """The live members of a ring, as the assigner sees them."""

    def __init__(
        self,
        reader: Reader,
        options: ShardingOptions,
        namespace: str,
        *,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.reader = reader
        self.options = options
        self.namespace = namespace
        self._clock = clock or loop_time
        self._seen: dict[str, tuple[dict[str, Any], float]] = {}
        """Lease name → its spec and when this process saw that spec first."""
        self._expiries: list[float] = []
        """When each live member's Lease expires unless renewed (this clock)."""

    def observe(self, leases: list[dict[str, Any]]) -> frozenset[str]:
        """The live shard names among `leases` (their wire form), noting what changed."""
        now = self._clock()
        seen: dict[str, tuple[dict[str, Any], float]] = {}
        live = set()
        expiries = []
        for lease in leases:
            name = (lease.get("metadata") or {}).get("name") or ""
            spec = lease.get("spec") or {}
            previous = self._seen.get(name)
            since = previous[1] if previous is not None and previous[0] == spec else now
            seen[name] = (spec, since)
            holder = spec.get("holderIdentity")
            duration = float(
                spec.get("leaseDurationSeconds") or self.options.lease_duration
            )
            if holder and now - since < duration:
                live.add(str(holder))
                expiries.append(since + duration)
        self._seen = seen
        self._expiries = expiries
        return frozenset(live)

    def until_next_expiry(self) -> float | None:
        """Seconds until the first live member's Lease expires if not renewed by
        then (None: no live member), as of the last `observe`."""
        if not self._expiries:
            return None
        return max(0.0, min(self._expiries) - self._clock())

    async def read(self) -> frozenset[str]:
        """List the ring's Leases and return the live members."""
        page = await self.reader.list(
            _lease().cls, self.namespace, labels={RING_LABEL: self.options.ring}
        )
        return self.observe([_lease().encode_obj(lease) for lease in page])
