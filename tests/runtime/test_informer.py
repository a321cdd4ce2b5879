"""The reflector/informer against the API server: order, 410 relist-and-diff, resume, watchdog."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from opgen.runtime.client import Client
from opgen.runtime.informer import Event, Informer
from opgen.runtime.resources import resource_type
from opgen.runtime.rest import RestClient
from tests.runtime.helpers import eventually, sample
from tests.runtime.kinds import Widget, widget

pytestmark = pytest.mark.envtest


@contextlib.asynccontextmanager
async def running(informer: Informer) -> AsyncIterator[asyncio.Task[None]]:
    task = asyncio.create_task(informer.run())
    try:
        await asyncio.wait_for(informer.wait_for_sync(), 10)
        yield task
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


def recorder(events: list[tuple[str, str, str]]) -> Callable[[Event], None]:
    def record(event: Event) -> None:
        spec = event.new.to_dict().get("spec") or {}
        events.append((event.type, event.new.name, str(spec.get("message", ""))))

    return record


async def create(
    rest: RestClient, namespace: str, name: str, message: str = ""
) -> None:
    await Client(rest).create(widget(name, namespace, message=message))


async def test_events_arrive_in_order_and_store_drops_managed_fields(
    rest: RestClient, namespace: str
) -> None:
    sent: list[str] = []
    transport = rest.transport
    send, stream = transport.send, transport.stream

    def spy(method: Any) -> Any:
        def sending(verb: str, path: str, **kwargs: Any) -> Any:
            sent.append(path)
            return method(verb, path, **kwargs)

        return sending

    transport.send, transport.stream = spy(send), spy(stream)  # type: ignore[method-assign]
    informer = Informer(rest, resource_type(Widget), namespaces=(namespace,))
    events: list[tuple[str, str, str]] = []
    informer.add_handler(recorder(events))
    async with running(informer):
        client = Client(rest)
        w = await client.create(widget("w", namespace, message="one"))
        await client.patch(w, {"spec": {"message": "two"}})
        await client.patch(w, {"spec": {"message": "three"}})
        await client.delete(w)
        await eventually(lambda: len(events) >= 4)
        entry_raw = None
        await client.create(widget("kept", namespace))
        await eventually(lambda: informer.store.get((namespace, "kept")) is not None)
        entry = informer.store.get((namespace, "kept"))
        assert entry is not None
        entry_raw = entry.raw
    assert events == [
        ("ADDED", "w", "one"),
        ("MODIFIED", "w", "two"),
        ("MODIFIED", "w", "three"),
        ("DELETED", "w", "three"),
        ("ADDED", "kept", ""),
    ]
    assert b"managedFields" not in entry_raw
    watches = [url for url in sent if "watch=true" in url]
    assert watches and all("allowWatchBookmarks=true" in url for url in watches)
    lists = [
        url
        for url in sent
        if "watch=true" not in url and "/widgets" in url and "limit=" in url
    ]
    assert lists, "the initial list is chunked"


async def test_410_gone_relists_and_emits_the_missed_deletes(
    rest: RestClient, namespace: str
) -> None:
    informer = Informer(rest, resource_type(Widget), namespaces=(namespace,))
    events: list[tuple[str, str, str]] = []
    informer.add_handler(recorder(events))
    await create(rest, namespace, "doomed")
    await create(rest, namespace, "changed", message="before")
    async with running(informer):
        pass
    assert sorted(e[1] for e in events) == ["changed", "doomed"]
    events.clear()

    # While the informer is not watching: a delete, an update and a create happen...
    client = Client(rest)
    await client.delete(widget("doomed", namespace))
    await client.patch(widget("changed", namespace), {"spec": {"message": "after"}})
    await create(rest, namespace, "born")
    # ...and its resourceVersion is too old to resume from: the server answers 410 Gone.
    informer._scopes[0].resource_version = "1"
    gone = {"kind": str(informer.rtype), "reason": "gone"}
    gone_before = sample(rest.metrics, "opgen_watch_restarts_total", **gone)
    async with running(informer):
        await eventually(lambda: len(events) >= 3)
    assert sorted(events) == [
        ("ADDED", "born", ""),
        ("DELETED", "doomed", ""),
        ("MODIFIED", "changed", "after"),
    ]
    assert sample(rest.metrics, "opgen_watch_restarts_total", **gone) == gone_before + 1
    assert sorted(e.name for e in informer.store) == ["born", "changed"]


async def test_resume_from_last_resource_version_without_relisting(
    rest: RestClient, namespace: str
) -> None:
    informer = Informer(rest, resource_type(Widget), namespaces=(namespace,))
    events: list[tuple[str, str, str]] = []
    informer.add_handler(recorder(events))
    await create(rest, namespace, "x")
    async with running(informer):
        pass
    await Client(rest).delete(widget("x", namespace))
    lists_before = rest.counts["list"]
    async with running(informer):
        await eventually(lambda: ("DELETED", "x", "") in events)
    assert rest.counts["list"] == lists_before, "resumed the watch, no relist"


async def test_watchdog_restarts_a_silent_watch(
    rest: RestClient, namespace: str
) -> None:
    informer = Informer(
        rest, resource_type(Widget), namespaces=(namespace,), idle_timeout=0.6
    )
    events: list[tuple[str, str, str]] = []
    informer.add_handler(recorder(events))
    idle = {"kind": str(informer.rtype), "reason": "idle"}
    async with running(informer):
        synced = time.monotonic()
        # A restarted watch counts as fresh: nothing happens in the namespace after
        # the list, yet once the watch was restarted the staleness gauge is younger
        # than the list (without the reset it would stay the time since the list).
        await eventually(
            lambda: sample(rest.metrics, "opgen_watch_restarts_total", **idle) >= 1
            and informer.staleness() < time.monotonic() - synced,
            timeout=10,
        )
        await create(rest, namespace, "after-restart")
        await eventually(lambda: ("ADDED", "after-restart", "") in events)


async def test_label_selector_limits_what_is_cached(
    rest: RestClient, namespace: str
) -> None:
    client = Client(rest)
    picked = widget("picked", namespace)
    picked.metadata.labels = {"pick": "yes"}
    await client.create(picked)
    await client.create(widget("ignored", namespace))
    informer = Informer(
        rest, resource_type(Widget), namespaces=(namespace,), labels={"pick": "yes"}
    )
    async with running(informer):
        assert [e.name for e in informer.store] == ["picked"]
