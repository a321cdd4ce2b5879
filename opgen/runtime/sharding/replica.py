"""What sharding adds to one manager: its member Lease, its follower of the
assignment, the slot gate on each controller, and (on the leader) the assigner.

The manager shards every controller's primary kind (`For`) and the kinds it
owns (`Owns`): their informers watch only `slot.sharding.opgen.dev/<ring> in
(<the slots this replica holds>)`, added to what `CacheOptions` selects for the
kind (until it holds a slot, a selector that matches nothing). Kinds a
controller only `Watches` are not sharded: every replica sees all of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from opgen.runtime.cache import Cache
from opgen.runtime.controller import Controller
from opgen.runtime.leaderelection import LeaderElectionConfig, _default_namespace
from opgen.runtime.metrics import Metrics
from opgen.runtime.resources import ResourceType, resource_type
from opgen.runtime.rest import RestClient
from opgen.runtime.seams import Reader, Writer
from opgen.runtime.sharding.assigner import Assigner
from opgen.runtime.sharding.follower import SlotFollower, selector
from opgen.runtime.sharding.holder import HeldSlots, ShardHolder
from opgen.runtime.sharding.membership import MemberLease, Members
from opgen.runtime.sharding.protocol import ShardingOptions, default_shard_name

__all__ = ["ASSIGNER_BURST", "ASSIGNER_QPS", "ShardedReplica"]

ASSIGNER_QPS = 100.0
"""The assigner's client-side rate (requests per second) when the manager's client
has a lower one (`ClientOptions.qps`; 0, no limit, stays 0)."""
ASSIGNER_BURST = 200


class ShardedReplica:
    """One replica of a ring: its Lease, its slots, its gates, its assigner."""

    def __init__(
        self,
        rest: RestClient,
        reader: Reader,
        writer: Writer,
        options: ShardingOptions,
        metrics: Metrics,
        *,
        namespaces: Sequence[str] | None = None,
    ) -> None:
        self.rest = rest
        self.reader = reader
        self.writer = writer
        self.options = options
        self.metrics = metrics
        self.namespaces = namespaces
        self.shard = options.shard or default_shard_name()
        """This replica's shard name: it names its Lease and its part of the assignment."""
        self.namespace = options.namespace or _default_namespace(reader)
        self.member = MemberLease(
            reader, writer, options, shard=self.shard, namespace=self.namespace
        )
        self.held = HeldSlots()
        self.primaries: list[ResourceType[Any]] = []
        self.children: list[ResourceType[Any]] = []
        self.kinds: list[type] = []
        """Every sharded kind (the primaries and their owned kinds)."""

    def election(self) -> LeaderElectionConfig:
        """The Lease the replicas elect the assigner on, when the manager has none."""
        o = self.options
        return LeaderElectionConfig(
            name=f"{o.ring}-assigner",
            namespace=self.namespace,
            identity=self.shard,
            lease_duration=o.lease_duration,
            renew_deadline=o.renew_deadline,
            retry_period=o.retry_period,
        )

    def configure(self, controllers: Sequence[Controller], cache: Cache) -> None:
        """Restrict the sharded kinds' informers to this replica's slots (none yet)
        and gate the controllers (before the informers are created)."""
        for controller in controllers:
            controller.gate = ShardHolder(
                self.held, self.options, is_member=lambda: self.member.is_member
            )
            primary = controller.for_.kind
            if primary not in self.kinds:
                self.primaries.append(resource_type(primary))
                self.kinds.append(primary)
            for owned in controller.owns:
                if owned.kind not in self.kinds:
                    self.children.append(resource_type(owned.kind))
                    self.kinds.append(owned.kind)
        nothing = selector(self.options, frozenset())
        for kind in self.kinds:
            cache.restrict(kind, nothing)
            self.metrics.shard_objects.labels(
                self.options.ring, self.shard, str(resource_type(kind))
            ).set_function(_held(cache, kind))

    def follower(self, cache: Cache) -> SlotFollower:
        """What moves this replica to the slots assigned to it (once it has joined)."""
        return SlotFollower(
            self.reader, self.options, self.namespace, self.member, self.held,
            cache, self.kinds, self.metrics,
        )  # fmt: skip

    def assigner(self) -> Assigner:
        """The assigner this replica runs while it is the leader."""
        # its own REST client on the same connections, so that its watch of the
        # unlabelled objects does not take over this replica's per-kind gauges, and
        # its label writes (a bulk creation) do not queue behind, nor starve, this
        # replica's reconciles under one rate limit
        client = self.rest.options
        if client.qps > 0:
            client = dataclasses.replace(
                client,
                qps=max(client.qps, ASSIGNER_QPS),
                burst=max(client.burst, ASSIGNER_BURST),
            )
        rest = RestClient(self.rest.transport, client, metrics=Metrics())
        transport = self.rest.transport

        def label_client() -> RestClient:
            # a burst's label writes on connections of their own, closed after it
            return RestClient(transport.sibling(), client, metrics=rest.metrics)

        return Assigner(
            rest,
            Members(self.reader, self.options, self.namespace),
            self.reader,
            self.writer,
            self.options,
            namespace=self.namespace,
            primaries=self.primaries,
            children=self.children,
            namespaces=self.namespaces,
            metrics=self.metrics,
            label_client=label_client,
        )


def _held(cache: Cache, kind: type) -> Callable[[], float]:
    return lambda: len(cache.informer_for(kind).store)
