"""The gate before each reconcile: a replica whose member Lease is lost admits
nothing more, even for an object still in its cache."""

from __future__ import annotations

import asyncio

from opgen import runtime as rt
from opgen.runtime.reconcile import Request
from opgen.runtime.sharding.holder import ShardHolder
from opgen.runtime.store import Store, entry_from_dict
from tests.runtime.sharding.inprocess import RING, SHARD


class HeldWidgets:
    """The part of an informer the gate reads: its store and its handlers."""

    def __init__(self) -> None:
        self.store = Store()
        self.store.upsert(
            entry_from_dict(
                {"metadata": {"name": "w", "namespace": "ns", "labels": {SHARD: "a"}}}
            )
        )

    def add_handler(self, handler: object) -> None:
        pass


def test_a_replica_that_lost_its_membership_reconciles_nothing_more() -> None:
    member = {"is": True}
    holder = ShardHolder(
        None,  # type: ignore[arg-type]
        rt.ShardingOptions(ring=RING),
        is_member=lambda: member["is"],
    )
    holder.attach(HeldWidgets(), lambda request: None)  # type: ignore[arg-type]
    request = Request("ns", "w")
    assert asyncio.run(holder.admit(request))
    member["is"] = False
    assert not asyncio.run(holder.admit(request))
