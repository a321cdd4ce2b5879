"""Leader election on a coordination.k8s.io/v1 Lease, as client-go's LeaseLock.

A candidate polls every `retry_period` until the Lease is free (no holder,
or the holder has not renewed for `lease_duration` as observed locally —
never comparing clocks across machines), then takes it with an update that
carries the Lease's resourceVersion, so two candidates cannot both win. The
leader renews every `retry_period`; if no renewal succeeds for
`renew_deadline` it steps down. On a clean shutdown it releases the Lease
(empty holder), so a successor takes over at once instead of after
`lease_duration`.

The elector reads the Lease with a `seams.Reader` that asks the server (never a
cache) and writes it with a `seams.Writer`; it keeps the Lease as its wire
form, so it works with whichever model class the kind is decoded into.

Time comes from `clock` (default `time.monotonic`, the event loop's clock too),
so tests can run an election on virtual time.
"""

from __future__ import annotations

import asyncio
import datetime
import functools
import logging
import os
import random
import socket
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opgen.runtime import errors
from opgen.runtime.resources import ResourceType, resource_type
from opgen.runtime.seams import Reader, Writer
from opgen.runtime.timeouts import within

__all__ = ["LeaderElectionConfig", "LeaderElector", "default_identity"]

log = logging.getLogger("opgen.runtime.leaderelection")


@functools.cache
def _lease() -> ResourceType[Any]:
    # imported on first use: an operator without leader election never loads
    # coordination/v1's models
    from opgen.api.k8s.coordination_v1 import Lease

    return resource_type(Lease)


_IN_CLUSTER_NAMESPACE = Path("/var/run/secrets/kubernetes.io/serviceaccount/namespace")


def default_identity() -> str:
    """`<hostname>_<random>`: unique per process, readable in `kubectl get lease`."""
    return f"{os.environ.get('HOSTNAME') or socket.gethostname()}_{uuid.uuid4()}"


def _default_namespace(reader: Reader) -> str:
    if _IN_CLUSTER_NAMESPACE.exists():
        return _IN_CLUSTER_NAMESPACE.read_text().strip()
    return reader.default_namespace


def _micro_time() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ"
    )


@dataclass(frozen=True)
class LeaderElectionConfig:
    """The Lease to elect a leader on, and the timings (controller-runtime's defaults)."""

    name: str
    """The Lease's name (controller-runtime's LeaderElectionID); required."""
    namespace: str | None = None
    """The Lease's namespace; None: the pod's namespace in-cluster, else the kubeconfig's."""
    identity: str | None = None
    """This candidate's holder identity; None: `<hostname>_<uuid>`."""
    lease_duration: float = 15.0
    """Seconds a follower waits after the last renewal it saw before taking over. Default 15."""
    renew_deadline: float = 10.0
    """Seconds the leader keeps trying to renew before stepping down. Default 10."""
    retry_period: float = 2.0
    """Seconds between acquire/renew attempts. Default 2."""
    release_on_stop: bool = True
    """A manager releases the Lease on a clean shutdown, so a successor takes over at
    once instead of after `lease_duration`. Default True."""


class LeaderElector:
    """Acquires, renews and releases one Lease."""

    def __init__(
        self,
        reader: Reader,
        writer: Writer,
        config: LeaderElectionConfig,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not config.name:
            raise ValueError("leader election needs the Lease's name")
        if not config.lease_duration > config.renew_deadline > config.retry_period > 0:
            raise ValueError(
                "leader election needs lease_duration > renew_deadline > retry_period > 0"
            )
        self.reader = reader
        """Reads the Lease from the API server (uncached)."""
        self.writer = writer
        self.config = config
        self._clock = clock
        self.namespace = config.namespace or _default_namespace(reader)
        """The Lease's namespace."""
        self.identity = config.identity or default_identity()
        """This candidate's holder identity."""
        self.is_leader = False
        self._observed_record: dict[str, Any] | None = None
        self._observed_at = 0.0

    async def _get(self) -> dict[str, Any] | None:
        try:
            lease = await self.reader.get(
                _lease().cls, self.config.name, self.namespace
            )
        except errors.NotFound:
            return None
        return _lease().encode_obj(lease)

    async def _update(self, lease: dict[str, Any]) -> None:
        """Write the Lease back; its resourceVersion makes a concurrent change a `Conflict`."""
        await self.writer.update(_lease().decode_dict(lease), refresh=False)

    def _spec(self, previous: dict[str, Any] | None) -> dict[str, Any]:
        now = _micro_time()
        old = previous or {}
        holder_changed = old.get("holderIdentity") != self.identity
        return {
            "holderIdentity": self.identity,
            "leaseDurationSeconds": max(1, round(self.config.lease_duration)),
            "acquireTime": now if holder_changed else old.get("acquireTime", now),
            "renewTime": now,
            "leaseTransitions": int(old.get("leaseTransitions") or 0)
            + (1 if holder_changed and old else 0),
        }

    async def try_acquire_or_renew(self) -> bool:
        """One attempt; True when this candidate holds the Lease afterwards."""
        lease = await self._get()
        if lease is None:
            spec = self._spec(None)
            body = {
                "apiVersion": "coordination.k8s.io/v1",
                "kind": "Lease",
                "metadata": {
                    "name": self.config.name,
                    "namespace": self.namespace,
                },
                "spec": spec,
            }
            try:
                await self.writer.create(_lease().decode_dict(body), refresh=False)
            except errors.Conflict:
                return False
            self._observe(spec)
            return True
        spec = lease.get("spec") or {}
        if spec != self._observed_record:
            self._observe(spec)
        holder = spec.get("holderIdentity")
        duration = float(spec.get("leaseDurationSeconds") or self.config.lease_duration)
        if (
            holder
            and holder != self.identity
            and self._clock() - self._observed_at < duration
        ):
            return False
        lease["spec"] = self._spec(spec)
        try:
            await self._update(lease)
        except errors.Conflict:
            return False
        self._observe(lease["spec"])
        return True

    def _observe(self, spec: dict[str, Any]) -> None:
        self._observed_record = dict(spec)
        self._observed_at = self._clock()

    async def acquire(self) -> None:
        """Wait until this candidate is the leader."""
        log.info("trying to acquire lease %s/%s", self.namespace, self.config.name)
        while True:
            try:
                if await self.try_acquire_or_renew():
                    self.is_leader = True
                    log.info("acquired lease %s/%s as %s", self.namespace, self.config.name,
                             self.identity)  # fmt: skip
                    return
            except Exception as exc:
                log.warning("error acquiring lease: %s", exc)
            await asyncio.sleep(self.config.retry_period * random.uniform(1.0, 1.2))

    async def keep_renewing(self) -> None:
        """Renew until a renewal deadline passes; then returns (leadership lost)."""
        last_renewal = self._clock()
        while True:
            # Neither the wait nor an attempt outlasts the renew deadline: a
            # renewal that hangs must not keep a leader past it, since a follower
            # takes the Lease one lease duration after the last renewal it saw.
            deadline = last_renewal + self.config.renew_deadline
            await asyncio.sleep(
                max(0.0, min(self.config.retry_period, deadline - self._clock()))
            )
            try:
                renewed = await within(
                    self.try_acquire_or_renew(), deadline - self._clock()
                )
            except asyncio.TimeoutError:
                log.warning("renewing lease: no answer within the renew deadline")
                renewed = False
            except Exception as exc:
                log.warning("error renewing lease: %s", exc)
                renewed = False
            now = self._clock()
            if renewed:
                last_renewal = now
            elif now >= deadline:
                self.is_leader = False
                log.error("failed to renew lease %s/%s within %.1fs; stepping down",
                          self.namespace, self.config.name, self.config.renew_deadline)  # fmt: skip
                return

    async def release(self) -> None:
        """Give the Lease up so a successor need not wait for it to expire."""
        if not self.is_leader:
            return
        self.is_leader = False
        try:
            lease = await self._get()
            if (
                lease is None
                or (lease.get("spec") or {}).get("holderIdentity") != self.identity
            ):
                return
            spec = lease.setdefault("spec", {})
            spec["holderIdentity"] = None
            spec["leaseDurationSeconds"] = 1
            spec["renewTime"] = _micro_time()
            spec["acquireTime"] = _micro_time()
            await self._update(lease)
            log.info("released lease %s/%s", self.namespace, self.config.name)
        except Exception as exc:
            log.warning("could not release lease: %s", exc)
