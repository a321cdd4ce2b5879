"""Watch bookmarks: the memory server sends them where kube-apiserver does."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from opgen.runtime import seams
from opgen.runtime.transport import Transport
from opgen.testing import Environment
from opgen.testing.memory import MemoryApiServer
from opgen.testing.memory.bookmarks import INITIAL_EVENTS_END

pytestmark = pytest.mark.asyncio


async def _create(api: seams.Transport, namespace: str, name: str) -> int:
    answer = await api.send(
        "POST",
        f"/api/v1/namespaces/{namespace}/configmaps",
        body=json.dumps({"metadata": {"name": name}}).encode(),
    )
    assert answer.status == 201, answer.body
    return int(json.loads(answer.body)["metadata"]["resourceVersion"])


async def _namespace(api: seams.Transport) -> str:
    name = f"bookmarks-{uuid.uuid4().hex[:8]}"
    answer = await api.send(
        "POST",
        "/api/v1/namespaces",
        body=json.dumps({"metadata": {"name": name}}).encode(),
    )
    assert answer.status == 201, answer.body
    return name


async def _watch(
    api: seams.Transport, namespace: str, query: str
) -> list[dict[str, Any]]:
    path = f"/api/v1/namespaces/{namespace}/configmaps?watch=1&{query}"
    async with api.stream("GET", path, read_timeout=None) as stream:
        assert stream.status == 200
        return [json.loads(line) async for line in stream.lines()]


def _shape(events: list[dict[str, Any]], created: int) -> list[tuple[str, Any, bool]]:
    """Each event's type, its bookmark annotations, and whether its
    resourceVersion is at least the created object's."""
    return [
        (
            event["type"],
            (
                event["object"]["metadata"].get("annotations")
                if event["type"] == "BOOKMARK"
                else event["object"]["metadata"]["name"]
            ),
            int(event["object"]["metadata"]["resourceVersion"]) >= created,
        )
        for event in events
    ]


async def _scenario(api: seams.Transport) -> dict[str, Any]:
    namespace = await _namespace(api)
    created = await _create(api, namespace, "a")
    return {
        "no bookmarks asked": _shape(
            await _watch(api, namespace, "timeoutSeconds=1"), created
        ),
        "initial events, then their end": _shape(
            await _watch(api, namespace, "allowWatchBookmarks=true&timeoutSeconds=1"),
            created,
        ),
        "from resourceVersion 0": _shape(
            await _watch(
                api,
                namespace,
                "allowWatchBookmarks=true&resourceVersion=0&timeoutSeconds=1",
            ),
            created,
        ),
        "nothing matches": _shape(
            await _watch(
                api,
                namespace,
                "allowWatchBookmarks=true&labelSelector=x%3Dy&timeoutSeconds=1",
            ),
            created,
        ),
    }


async def test_bookmarks_agree_with_envtest(
    envtest: Environment, memory_server: MemoryApiServer
) -> None:
    real = Transport.from_kubeconfig(envtest.kube_config())
    try:
        on_envtest = await _scenario(real)
    finally:
        await real.aclose()
    on_memory = await _scenario(memory_server.transport())
    end = {INITIAL_EVENTS_END: "true"}
    assert on_memory == {
        "no bookmarks asked": [("ADDED", "a", True)],
        "initial events, then their end": [
            ("ADDED", "a", True),
            ("BOOKMARK", end, True),
        ],
        "from resourceVersion 0": [("ADDED", "a", True), ("BOOKMARK", end, True)],
        "nothing matches": [("BOOKMARK", end, True)],
    }
    assert on_memory == on_envtest


async def test_a_watch_learns_of_unseen_progress_by_a_bookmark_before_its_timeout(
    memory_server: MemoryApiServer,
) -> None:
    api = memory_server.transport()
    first = await _create(api, "default", "a")
    await _create(api, "default", "b")
    elsewhere = await _create(api, "kube-system", "c")  # moves the revision, unseen
    events = await _watch(
        api,
        "default",
        f"allowWatchBookmarks=true&resourceVersion={first}&timeoutSeconds=3",
    )
    assert [e["type"] for e in events] == ["ADDED", "BOOKMARK"]
    assert events[0]["object"]["metadata"]["name"] == "b"
    assert events[1]["object"] == {
        "kind": "ConfigMap",
        "apiVersion": "v1",
        "metadata": {"resourceVersion": str(elsewhere)},
    }


async def test_no_bookmark_when_the_revision_has_not_moved(
    memory_server: MemoryApiServer,
) -> None:
    api = memory_server.transport()
    latest = await _create(api, "default", "a")
    events = await _watch(
        api,
        "default",
        f"allowWatchBookmarks=true&resourceVersion={latest}&timeoutSeconds=3",
    )
    assert events == []
