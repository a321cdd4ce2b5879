"""The assigner's label writes go through connections of their own, opened for a
burst of objects and closed once it is over (`assigner.BURST_IDLE` quiet): a bulk
creation no longer leaves the leader holding them (each with asyncio's 256 KiB
TLS read buffer) for the transport's idle timeout. Once per burst, not per
object, the freed heap is given back (`heap.release_heap`)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from opgen import runtime as rt
from opgen.runtime.metrics import Metrics
from opgen.runtime.resources import resource_type
from opgen.runtime.rest import RestClient
from opgen.runtime.sharding import assigner as assigner_module
from opgen.runtime.sharding import heap
from opgen.runtime.sharding.assigner import BURST_IDLE, WRITES_IN_FLIGHT, Assigner
from opgen.runtime.sharding.replica import ShardedReplica
from opgen.runtime.transport import Transport
from opgen.testing.memory import MemoryApiServer
from opgen.testing.memory.transport import MemoryTransport
from tests.runtime.kinds import Widget
from tests.runtime.sharding.inprocess import (
    NS,
    RING,
    SLOT,
    create_widget,
    memory_assigner,
    memory_server,
    until,
)
from tests.runtime.sharding.processes import ROOT
from tests.runtime.virtual_time import VirtualTimeLoop, run_virtual


class _Connections(MemoryTransport):
    """One burst's label connections: the patches it carried, each held at `gate`
    (shared by every burst's) until it opens."""

    def __init__(self, server: MemoryApiServer, gate: asyncio.Event) -> None:
        super().__init__(server)
        self.gate = gate
        self.patches = 0

    async def send(self, method: str, path: str, **kwargs: Any) -> Any:
        if method == "PATCH":
            await self.gate.wait()
            self.patches += 1
        return await super().send(method, path, **kwargs)


class _Shared(MemoryTransport):
    """The manager's connections: counts the patches that went through them."""

    def __init__(self, server: MemoryApiServer) -> None:
        super().__init__(server)
        self.patches = 0

    async def send(self, method: str, path: str, **kwargs: Any) -> Any:
        if method == "PATCH":
            self.patches += 1
        return await super().send(method, path, **kwargs)


async def _create(client: rt.Client, *names: str) -> None:
    for name in names:
        await create_widget(client, name)


async def _unlabelled(client: rt.Client) -> int:
    widgets = await client.uncached.list(Widget, NS)
    return sum(1 for w in widgets if SLOT not in (w.metadata.labels or {}))


async def _one_burst(assigner: Assigner, client: rt.Client, *names: str) -> None:
    """Run `assigner` while Widgets `names` are created, until they are labelled and
    the burst is over."""
    running = asyncio.create_task(assigner.run())
    try:
        await _create(client, *names)

        async def labelled() -> bool:
            return await _unlabelled(client) == 0

        await until(labelled)
        await asyncio.sleep(2 * BURST_IDLE)
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)


def test_label_connections_close_after_each_burst(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two bursts of creations: each is labelled on connections opened for it,
    kept open while its writes are held longer than `BURST_IDLE` (no object
    waiting), and closed once the burst is over; the heap is released once per burst; the manager's own
    connections carry no label write."""
    releases: list[float] = []

    async def main(loop: VirtualTimeLoop) -> None:
        monkeypatch.setattr(
            assigner_module, "release_heap", lambda: releases.append(loop.time())
        )
        server, client = memory_server()
        gate = asyncio.Event()
        opened: list[_Connections] = []

        def label_client() -> RestClient:
            opened.append(_Connections(server, gate))
            return RestClient(opened[-1])

        shared = _Shared(server)
        assigner = memory_assigner(shared, client, label_client=label_client)
        running = asyncio.create_task(assigner.run())
        try:
            # as many as the writes in flight: none waits, both are held
            await _create(client, *(f"a{i}" for i in range(WRITES_IN_FLIGHT)))
            await asyncio.sleep(3 * BURST_IDLE)
            assert len(opened) == 1
            assert not opened[0].closed
            assert releases == []
            gate.set()

            async def labelled() -> bool:
                return await _unlabelled(client) == 0

            await until(labelled)
            await asyncio.sleep(2 * BURST_IDLE)
            assert opened[0].closed
            assert opened[0].patches == WRITES_IN_FLIGHT
            assert len(releases) == 1

            await _create(client, *(f"b{i}" for i in range(5)))
            await until(labelled)
            await asyncio.sleep(2 * BURST_IDLE)
            assert len(opened) == 2
            assert opened[1].closed
            assert opened[1].patches == 5
            assert len(releases) == 2
        finally:
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)
        assert shared.patches == 0
        assert assigner.labelled == WRITES_IN_FLIGHT + 5
        assert assigner.bursts == 2

    run_virtual(main)


def test_without_a_label_client_the_label_writes_share_the_managers() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        server, client = memory_server()
        shared = _Shared(server)
        assigner = memory_assigner(shared, client)
        await _one_burst(assigner, client, "a", "b", "c")
        assert shared.patches == 3
        assert not shared.closed
        assert assigner.bursts == 1

    run_virtual(main)


class _Siblings(MemoryTransport):
    """A replica's transport that is not the HTTP one: the siblings it gave, and
    which transport carried each patch (a list its siblings share)."""

    def __init__(self, server: MemoryApiServer) -> None:
        super().__init__(server)
        self.siblings: list[MemoryTransport] = []
        self.carried: list[MemoryTransport] = []

    def sibling(self) -> MemoryTransport:
        twin = super().sibling()
        self.siblings.append(twin)
        return twin

    async def send(self, method: str, path: str, **kwargs: Any) -> Any:
        if method == "PATCH":
            self.carried.append(self)
        return await super().send(method, path, **kwargs)


def test_a_replicas_assigner_labels_on_a_sibling_of_any_transport() -> None:
    """The label writes of a replica's assigner go through a sibling of the
    replica's transport, whatever transport it is (here the memory server's),
    closed after the burst; the replica's own stays open and carries none."""

    async def main(loop: VirtualTimeLoop) -> None:
        server, client = memory_server()
        transport = _Siblings(server)
        options = rt.ShardingOptions(ring=RING, shard="a", namespace=NS)
        replica = ShardedReplica(
            RestClient(transport), client.uncached, client, options, Metrics()
        )
        replica.primaries.append(resource_type(Widget))
        await _one_burst(replica.assigner(), client, "a", "b", "c")
        assert len(transport.siblings) == 1
        (sibling,) = transport.siblings
        assert sibling is not transport and sibling.server is server
        assert transport.carried == [sibling] * 3
        assert sibling.closed
        assert not transport.closed

    run_virtual(main)


KUBECONFIG = """
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://a.test"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
"""


def test_a_sibling_transport_closes_its_own_connections_alone(tmp_path: Path) -> None:
    config = tmp_path / "kubeconfig"
    config.write_text(KUBECONFIG)

    async def main() -> None:
        transport = Transport.from_kubeconfig(config)
        sibling = transport.sibling()
        assert sibling is not transport
        assert sibling.server == transport.server
        await sibling.aclose()
        assert sibling.closed
        assert not transport.closed
        await transport.aclose()

    asyncio.run(main())


def test_release_heap_trims_on_glibc() -> None:
    """On this (glibc) system the trim is found and called; elsewhere the call is
    the garbage collection alone."""
    glibc = (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc")
    assert heap.release_heap() is glibc


MMAPPED_AFTER_A_LARGER_FREE = """
import ctypes, sys
from opgen.runtime.sharding import heap
from tests.runtime.sharding.memtrace import mallinfo
if sys.argv[1] == "fixed":
    assert heap.fix_mmap_threshold()
first = bytearray(1 << 20)  # mapped (over 128 KiB), then freed: glibc may raise
del first                   # its threshold to 1 MiB
before = mallinfo()["hblks"]
block = bytearray(heap.MMAP_THRESHOLD + (1 << 16))
print(mallinfo()["hblks"] - before)
"""


@pytest.mark.skipif(
    not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"),
    reason="glibc's allocator",
)
def test_the_leaders_large_blocks_stay_out_of_the_main_heap() -> None:
    """After a 1 MiB block is freed, a 128 KiB one comes from the main heap
    (glibc's raised threshold), unless the threshold was fixed: then it gets a
    mapping of its own. In a process of its own (the setting is process-wide)."""

    def mapped(how: str) -> int:
        done = subprocess.run(
            [sys.executable, "-c", MMAPPED_AFTER_A_LARGER_FREE, how],
            capture_output=True, text=True, check=True, cwd=ROOT,
        )  # fmt: skip
        return int(done.stdout)

    assert mapped("as glibc does") == 0
    assert mapped("fixed") == 1
