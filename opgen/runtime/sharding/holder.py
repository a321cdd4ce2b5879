"""A replica's side of the drain handover, as a controller's `Gate`.

The replica's informers watch only objects labelled with its shard, so every
object in the primary kind's store is held by this replica. Before a worker
reconciles a request, `admit` looks the object up there:

- not there (deleted, or no longer this shard's): nothing to reconcile;
- carrying the drain label: the assigner wants it elsewhere. The work queue
  never hands a key to two workers, so any reconcile of it has finished; the
  holder removes the shard and drain labels in one merge patch that carries
  the cached resourceVersion (a `Conflict` means the object changed since:
  its next event decides again) and does not reconcile it. From then on the
  object is in no replica's shard until the assigner labels it for the next;
- otherwise: reconcile.

Once the replica's member Lease is lost (`MemberLease.is_member` false: no
renewal for `renew_deadline`), it admits nothing more: the assigner may hand
its objects on as soon as the Lease expires.

A label change does not pass the primary kind's default predicate (the
generation does not change), so the gate adds its own handler to the
primary informer that enqueues an object as soon as its drain label appears.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

from opgen.runtime import errors
from opgen.runtime.informer import Event, Informer
from opgen.runtime.reconcile import Request
from opgen.runtime.rest import RestClient
from opgen.runtime.sharding.protocol import ShardingOptions

__all__ = ["ShardHolder"]

log = logging.getLogger("opgen.runtime.sharding")

MERGE_PATCH = "application/merge-patch+json"


class ShardHolder:
    """Admits the reconciles of the objects this replica holds; drains the rest."""

    def __init__(
        self,
        rest: RestClient,
        options: ShardingOptions,
        *,
        is_member: Callable[[], bool] = lambda: True,
    ) -> None:
        self.rest = rest
        self.options = options
        self.is_member = is_member
        self._informer: Informer | None = None
        self.drained = 0
        """Objects this replica let go of."""

    def attach(self, informer: Informer, enqueue: Callable[[Request], None]) -> None:
        self._informer = informer
        drain = self.options.drain_label

        def on_drain(event: Event) -> None:
            entry = event.new
            if event.type != "DELETED" and drain in entry.labels:
                enqueue(Request(entry.namespace or None, entry.name))

        informer.add_handler(on_drain)

    async def admit(self, request: Request) -> bool:
        informer = self._informer
        assert informer is not None, "attach() first"
        if not self.is_member():
            return False
        entry = informer.store.get((request.namespace or "", request.name))
        if entry is None:
            return False
        if self.options.drain_label not in entry.labels:
            return True
        body = {
            "metadata": {
                "resourceVersion": entry.resource_version,
                "labels": {
                    self.options.shard_label: None,
                    self.options.drain_label: None,
                },
            }
        }
        try:
            await self.rest.request(
                "patch",
                informer.rtype,
                name=entry.name,
                namespace=entry.namespace or None,
                body=json.dumps(body).encode(),
                content_type=MERGE_PATCH,
            )
        except (errors.Conflict, errors.NotFound):
            return False
        self.drained += 1
        log.info("drained %s %s/%s", informer.rtype.kind, entry.namespace, entry.name)
        return False
