"""Replicas of a sharded manager in one process, on the memory server and on
virtual time, and what the tests read of them."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from opgen import runtime as rt
from opgen.api import ObjectMeta
from opgen.api.k8s import ConfigMap
from opgen.runtime.resources import resource_type
from opgen.runtime.rest import RestClient
from opgen.runtime.seams import Answer, Transport
from opgen.runtime.sharding.assigner import Assigner, LabelClient
from opgen.runtime.sharding.assignment import MemberState
from opgen.runtime.sharding.membership import Members
from opgen.runtime.sharding.protocol import slot_label
from opgen.testing.memory import MemoryApiServer
from opgen.testing.memory.transport import MemoryTransport, WatchStream
from tests.runtime.kinds import Widget, WidgetSpec
from tests.runtime.sharding.ledger import Ledger, LedgerReconciler
from tests.runtime.virtual_time import VirtualTimeLoop
from tests.testing.memory.crds import served_kinds

RING = "widgets"
SLOT = slot_label(RING)
NS = "default"
LEASE_DURATION = 3.0
OPTIONS = rt.ShardingOptions(ring=RING)
"""The ring of an assigner run alone (`memory_assigner`)."""


class NoMembers(Members):
    """A ring with no live member: an assigner over it labels nothing."""

    async def read(self) -> dict[str, MemberState]:
        return {}

    def until_next_expiry(self) -> float | None:
        return None


def memory_server() -> tuple[MemoryApiServer, rt.Client]:
    """A memory server serving the test kinds, and a client of it."""
    server = MemoryApiServer(served_kinds())
    return server, rt.Client(RestClient(server.transport()))


def memory_assigner(
    transport: Transport,
    client: rt.Client,
    *,
    label_client: LabelClient | None = None,
    page_size: int = 500,
) -> Assigner:
    """An assigner of Widgets and their ConfigMaps in `NS`, alone on a ring with no
    live member, reading and labelling through `transport` (its label writes through
    `label_client`'s, when given); `client` reads and writes its Leases."""
    return Assigner(
        RestClient(transport),
        NoMembers(client.uncached, OPTIONS, NS),
        client.uncached,
        client,
        OPTIONS,
        namespace=NS,
        primaries=[resource_type(Widget)],
        children=[resource_type(ConfigMap)],
        namespaces=[NS],
        page_size=page_size,
        label_client=label_client,
    )


async def create_widget(client: rt.Client, name: str, message: str = "") -> Widget:
    return await client.create(
        Widget(
            metadata=ObjectMeta(name=name, namespace=NS),
            spec=WidgetSpec(message=message),
        )
    )


class RecordingTransport(MemoryTransport):
    """A transport to the memory server that notes every write the server answered,
    in the order it answered them, each request's `Accept`, and every object it
    handed back; `whole`: it drops the `Accept`, as a server that cannot send
    metadata alone."""

    def __init__(self, server: MemoryApiServer, *, whole: bool = False) -> None:
        super().__init__(server)
        self.whole = whole
        self.writes: list[tuple[str, str]] = []
        """Method and path of each write that reached the server."""
        self.accepts: list[tuple[str, str, str | None]] = []
        """Method (`WATCH` for a watch), path without its query and `Accept` of
        each request."""
        self.received: list[dict[str, Any]] = []
        """Each object the server's answers and watch events carried."""

    async def send(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        content_type: str | None = None,
        accept: str | None = None,
    ) -> Answer:
        self.accepts.append((method, path.partition("?")[0], accept))
        answer = await super().send(
            method,
            path,
            body=body,
            content_type=content_type,
            accept=None if self.whole else accept,
        )
        if method != "GET":
            self.writes.append((method, path))
        elif answer.status == 200:
            document = json.loads(answer.body)
            self.received.extend(document.get("items") or [document])
        return answer

    @asynccontextmanager
    async def stream(
        self,
        method: str,
        path: str,
        *,
        read_timeout: float | None,
        accept: str | None = None,
    ) -> AsyncIterator[Any]:
        self.accepts.append(("WATCH", path.partition("?")[0], accept))
        async with super().stream(
            method,
            path,
            read_timeout=read_timeout,
            accept=None if self.whole else accept,
        ) as stream:
            yield _NotedStream(stream, self.received)


class _NotedStream:
    """A watch answer whose events' objects are noted as they are read."""

    def __init__(self, stream: WatchStream, received: list[dict[str, Any]]) -> None:
        self.stream = stream
        self.status, self.headers = stream.status, stream.headers
        self.received = received

    async def read(self) -> bytes:
        return await self.stream.read()

    async def lines(self) -> AsyncIterator[str]:
        async for line in self.stream.lines():
            self.received.append(json.loads(line)["object"])
            yield line


@dataclass
class Replica:
    name: str
    manager: rt.Manager
    reconciler: LedgerReconciler
    task: asyncio.Task[None]
    transport: RecordingTransport


async def start(
    server: MemoryApiServer,
    name: str,
    loop: VirtualTimeLoop,
    *,
    slots: int = 16,
) -> Replica:
    off = "0"
    transport = RecordingTransport(server)
    manager = rt.Manager(
        options=rt.ManagerOptions(
            metrics=rt.MetricsOptions(bind_address=off),
            probes=rt.ProbeOptions(bind_address=off),
            cache=rt.CacheOptions(namespaces=[NS]),
            client=rt.ClientOptions(qps=0),
            sharding=rt.ShardingOptions(
                ring=RING,
                shard=name,
                namespace=NS,
                lease_duration=LEASE_DURATION,
                renew_deadline=2.0,
                retry_period=0.5,
                slots=slots,
            ),
        ),
        transport=transport,
    )
    if manager.elector is not None:  # the assigner's Lease on virtual time too
        manager.elector._clock = loop.time
    reconciler = LedgerReconciler(manager.client, Ledger(name, loop.time))
    reconciler.setup(manager)
    task = asyncio.create_task(manager.run(install_signal_handlers=False))
    await manager.elected.wait()
    return Replica(name, manager, reconciler, task, transport)


async def until(check: Callable[[], Awaitable[bool]], step: float = 0.25) -> None:
    """Poll on virtual time (the loop's clock jumps; no real time passes)."""
    for _ in range(4000):
        if await check():
            return
        await asyncio.sleep(step)
    raise AssertionError("never happened, in 1000 virtual seconds")


async def widgets(client: rt.Client) -> dict[str, Widget]:
    return {w.metadata.name or "": w for w in await client.uncached.list(Widget, NS)}


async def children(client: rt.Client) -> dict[str, ConfigMap]:
    found = await client.uncached.list(ConfigMap, NS)
    return {c.metadata.name or "": c for c in found if c.metadata.owner_references}


def labels(obj: Widget | ConfigMap) -> dict[str, str]:
    return dict(obj.metadata.labels or {})


async def in_flight(replica: Replica, name: str) -> bool:
    starts = [n for what, n, _ in replica.reconciler.ledger.lines if what == "start"]
    ends = [n for what, n, _ in replica.reconciler.ledger.lines if what == "end"]
    return starts.count(name) > ends.count(name)


async def reconciled(replica: Replica, name: str) -> bool:
    return any(
        n == name and what == "end" for what, n, _ in replica.reconciler.ledger.lines
    )


def held(replica: Replica) -> frozenset[int]:
    """The slots whose reconciles the replica admits."""
    sharding = replica.manager.sharding
    assert sharding is not None
    return sharding.held.active


def claims(replica: Replica) -> frozenset[int]:
    """The slots the replica's Lease claims."""
    sharding = replica.manager.sharding
    assert sharding is not None
    return sharding.member.claims


def slot(obj: Widget | ConfigMap) -> int | None:
    value = labels(obj).get(SLOT)
    return int(value) if value is not None else None
