"""A cache narrowed again (a replica's slots changed) lists again with the new
selector: objects that left are dropped with a DELETED event, new ones come with
ADDED, and the watch goes on from there with the new selector."""

from __future__ import annotations

import asyncio

from opgen import runtime as rt
from opgen.api import ObjectMeta
from opgen.api.k8s import ConfigMap
from opgen.runtime.cache import Cache
from opgen.runtime.informer import Event
from opgen.runtime.rest import RestClient
from opgen.testing.memory import MemoryApiServer
from tests.runtime.sharding.inprocess import NS, SLOT, until
from tests.runtime.virtual_time import VirtualTimeLoop, run_virtual
from tests.testing.memory.crds import served_kinds


def test_a_new_selector_relists_and_watches_with_it() -> None:
    async def main(loop: VirtualTimeLoop) -> None:
        server = MemoryApiServer(served_kinds())
        client = rt.Client(RestClient(server.transport()))

        async def make(name: str, slot: str) -> None:
            labels = {SLOT: slot}
            meta = ObjectMeta(name=name, namespace=NS, labels=labels)
            await client.create(ConfigMap(metadata=meta))

        await make("one", "1")
        await make("two", "2")
        cache = Cache(RestClient(server.transport()), rt.CacheOptions(namespaces=[NS]))
        cache.restrict(ConfigMap, f"{SLOT} in (1)")
        informer = cache.informer_for(ConfigMap)
        events: list[tuple[str, str]] = []

        def note(event: Event) -> None:
            events.append((event.type, event.new.name))

        informer.add_handler(note)
        await cache.start()
        await cache.wait_for_sync(10.0)
        assert {e.name for e in informer.store} == {"one"}
        events.clear()

        cache.restrict(ConfigMap, f"{SLOT} in (2,3)")
        await asyncio.wait_for(informer.wait_for_selection(), 10.0)
        assert {e.name for e in informer.store} == {"two"}
        assert sorted(events) == [("ADDED", "two"), ("DELETED", "one")]

        await make("three", "3")
        await make("another-one", "1")

        async def watched() -> bool:
            return {e.name for e in informer.store} == {"two", "three"}

        await until(watched)
        await asyncio.sleep(5.0)
        assert {e.name for e in informer.store} == {"two", "three"}
        await cache.stop()

    run_virtual(main)
