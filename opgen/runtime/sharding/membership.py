"""Ring membership on coordination.k8s.io/v1 Leases: one Lease per replica.

`MemberLease` is a replica's own Lease, labelled `sharding.opgen.dev/ring`,
named `<ring>-<shard>` and held by the shard's name. Its annotations say which
process holds it (an incarnation token, new at each start: the assignment
names it, so a restarted replica never takes the slots its previous process
was given), the slots it claims and the assignment generation those claims
follow. The replica renews it every `retry_period`, and at once when its
claims change; when no renewal succeeds for `renew_deadline` it has lost its
membership and must stop reconciling (the manager stops), before the assigner
can take its Lease for expired (`lease_duration` > `renew_deadline`). A process
never takes over a Lease another incarnation still holds (renewed within its
duration). On a clean stop, after its reconciles have finished, it deletes
the Lease, so its slots are handed on at once.

`Members` is the assigner's view: each live member's incarnation, claims and
generation, live meaning its Lease is held and was renewed within its
`leaseDurationSeconds`. A Lease seen for the first time is judged by its own
renewTime (a newly elected assigner must not trust a dead member's Lease for a
whole duration); after that, when its spec last changed is measured on this
process's clock, so that clock skew between machines cannot make a renewed
Lease look expired.

Both read with a `seams.Reader` that asks the server and write with a
`seams.Writer`, keeping the Lease as its wire form. Time is the event loop's
clock unless a `clock` is given.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

from opgen.runtime import errors
from opgen.runtime.leaderelection import _lease, _micro_time
from opgen.runtime.seams import Reader, Writer
from opgen.runtime.sharding.assignment import Holder, MemberState
from opgen.runtime.sharding.protocol import (
    ANNOTATION_GENERATION,
    ANNOTATION_INCARNATION,
    ANNOTATION_SLOTS,
    RING_LABEL,
    ShardingOptions,
    format_slots,
    parse_slots,
)
from opgen.runtime.timeouts import within

__all__ = [
    "HeldElsewhere",
    "MemberLease",
    "Members",
    "MembershipEnded",
    "lease_name",
    "loop_time",
]

log = logging.getLogger("opgen.runtime.sharding")


def loop_time() -> float:
    """The running event loop's clock: `time.monotonic` on a real loop, the virtual
    time of a test's loop (the default `clock` of membership and the assigner)."""
    return asyncio.get_running_loop().time()


def lease_name(ring: str, shard: str) -> str:
    return f"{ring}-{shard}"


def _parse_time(text: object) -> float | None:
    if not isinstance(text, str):
        return None
    try:
        parsed = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ")
    except ValueError:
        try:
            parsed = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")
        except ValueError:
            return None
    return parsed.replace(tzinfo=datetime.timezone.utc).timestamp()


class HeldElsewhere(Exception):
    """This shard's Lease is held by another live process of the same name."""


class MembershipEnded(Exception):
    """The Lease was lost or left: this process renews it no more."""


class MemberLease:
    """This replica's Lease in the ring: join, renew with its claims, leave."""

    def __init__(
        self,
        reader: Reader,
        writer: Writer,
        options: ShardingOptions,
        *,
        shard: str,
        namespace: str,
        clock: Callable[[], float] | None = None,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.options = options
        self.shard = shard
        self.namespace = namespace
        self.name = lease_name(options.ring, shard)
        self.incarnation = secrets.token_hex(8)
        self.holder = Holder(shard, self.incarnation)
        self._clock = clock or loop_time
        self._wall = wall
        self._lock = asyncio.Lock()
        self.is_member = False
        self._ended = False
        """The membership was lost or left: nothing renews the Lease again."""
        self.claims: frozenset[int] = frozenset()
        """The slots this replica claims (published with each renewal)."""
        self.generation = 0
        """The assignment generation its claims follow."""
        self._renewed = float("-inf")
        """When (this clock) a renewal last succeeded, by `keep_renewing` or `publish`."""

    def _body(self, previous: dict[str, Any] | None) -> dict[str, Any]:
        now = _micro_time()
        spec = (previous or {}).get("spec") or {}
        metadata = dict((previous or {}).get("metadata") or {})
        metadata.update(name=self.name, namespace=self.namespace)
        metadata["labels"] = {
            **(metadata.get("labels") or {}),
            RING_LABEL: self.options.ring,
        }
        metadata["annotations"] = {
            **(metadata.get("annotations") or {}),
            ANNOTATION_INCARNATION: self.incarnation,
            ANNOTATION_SLOTS: format_slots(self.claims),
            ANNOTATION_GENERATION: str(self.generation),
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

    def _held_elsewhere(self, wire: dict[str, Any]) -> bool:
        annotations = (wire.get("metadata") or {}).get("annotations") or {}
        other = annotations.get(ANNOTATION_INCARNATION)
        if self.is_member or not other or other == self.incarnation:
            return False
        spec = wire.get("spec") or {}
        renewed = _parse_time(spec.get("renewTime"))
        duration = float(spec.get("leaseDurationSeconds") or 0)
        return (
            bool(spec.get("holderIdentity"))
            and renewed is not None
            and self._wall() < renewed + duration
        )

    async def renew(self) -> None:
        """Create or renew the Lease with the current claims (raises on failure)."""
        async with self._lock:
            if self._ended:
                raise MembershipEnded(f"shard lease {self.name}: membership ended")
            try:
                lease = await self.reader.get(_lease().cls, self.name, self.namespace)
            except errors.NotFound:
                await self.writer.create(
                    _lease().decode_dict(self._body(None)), refresh=False
                )
            else:
                wire = _lease().encode_obj(lease)
                if self._held_elsewhere(wire):
                    raise HeldElsewhere(
                        f"shard lease {self.name} is held by another live process"
                    )
                body = self._body(wire)
                await self.writer.update(_lease().decode_dict(body), refresh=False)
            self.is_member = True
            self._renewed = self._clock()

    async def publish(self, claims: frozenset[int], generation: int) -> None:
        """Claim `claims` (following assignment `generation`) in the Lease now."""
        previous = self.claims, self.generation
        self.claims, self.generation = claims, generation
        try:
            await self.renew()
        except BaseException:
            # a claim counts once written; what is released stays released
            if not claims <= previous[0]:
                self.claims, self.generation = previous[0] & claims, previous[1]
            raise

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
            # a claim's write renews the Lease too: a renewal that waited behind it
            # and timed out does not count against the member
            last = max(last, self._renewed)
            deadline = last + self.options.renew_deadline
            await asyncio.sleep(
                max(0.0, min(self.options.retry_period, deadline - self._clock()))
            )
            try:
                await within(self.renew(), deadline - self._clock())
                last = self._clock()
            except Exception as exc:
                log.warning("could not renew shard lease %s: %r", self.name, exc)
                if (
                    self._clock()
                    >= max(last, self._renewed) + self.options.renew_deadline
                ):
                    self.is_member, self._ended = False, True
                    log.error("shard lease %s not renewed within %.1fs; leaving the ring",
                              self.name, self.options.renew_deadline)  # fmt: skip
                    return

    async def leave(self) -> None:
        """Delete the Lease: the assigner hands this shard's slots on at once."""
        self.is_member, self._ended = False, True
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
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.reader = reader
        self.options = options
        self.namespace = namespace
        self._clock = clock or loop_time
        self._wall = wall
        self._seen: dict[str, tuple[dict[str, Any], float]] = {}
        """Lease name → its spec and since when (this clock) it has been that spec."""
        self._expiries: list[float] = []
        """When each live member's Lease expires unless renewed (this clock)."""

    def _first_seen(self, spec: dict[str, Any], now: float) -> float:
        """When (this clock) a Lease seen for the first time was renewed: its
        renewTime's age on the wall clock, never in the future."""
        renewed = _parse_time(spec.get("renewTime"))
        if renewed is None:
            return now
        return now - max(0.0, self._wall() - renewed)

    def observe(self, leases: list[dict[str, Any]]) -> dict[str, MemberState]:
        """The live members among `leases` (their wire form), by shard name."""
        now = self._clock()
        seen: dict[str, tuple[dict[str, Any], float]] = {}
        live: dict[str, MemberState] = {}
        expiries = []
        for lease in leases:
            metadata = lease.get("metadata") or {}
            name = metadata.get("name") or ""
            spec = lease.get("spec") or {}
            previous = self._seen.get(name)
            if previous is None:
                since = self._first_seen(spec, now)
            else:
                since = previous[1] if previous[0] == spec else now
            seen[name] = (spec, since)
            holder = spec.get("holderIdentity")
            duration = float(
                spec.get("leaseDurationSeconds") or self.options.lease_duration
            )
            if holder and now - since < duration:
                annotations = metadata.get("annotations") or {}
                try:
                    generation = int(annotations.get(ANNOTATION_GENERATION) or 0)
                    claims = parse_slots(annotations.get(ANNOTATION_SLOTS))
                except ValueError:
                    log.warning("shard lease %s: unreadable claims", name)
                    continue
                incarnation = str(annotations.get(ANNOTATION_INCARNATION) or "")
                live[str(holder)] = MemberState(
                    Holder(str(holder), incarnation), claims, generation
                )
                expiries.append(since + duration)
        self._seen = seen
        self._expiries = expiries
        return live

    def until_next_expiry(self) -> float | None:
        """Seconds until the first live member's Lease expires if not renewed by
        then (None: no live member), as of the last `observe`."""
        if not self._expiries:
            return None
        return max(0.0, min(self._expiries) - self._clock())

    async def read(self) -> dict[str, MemberState]:
        """List the ring's Leases and return the live members."""
        page = await self.reader.list(
            _lease().cls, self.namespace, labels={RING_LABEL: self.options.ring}
        )
        return self.observe([_lease().encode_obj(lease) for lease in page])
