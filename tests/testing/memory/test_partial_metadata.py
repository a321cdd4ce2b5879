"""Metadata-only reads (`PartialObjectMetadata`): the memory server answers the
Accepts of controller-runtime's metadata client as kube-apiserver 1.36 does."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from opgen.runtime import seams
from opgen.runtime.rest import METADATA_ACCEPT, METADATA_LIST_ACCEPT
from opgen.runtime.transport import Transport
from opgen.testing import Environment
from opgen.testing.memory import MemoryApiServer
from opgen.testing.memory.bookmarks import INITIAL_EVENTS_END
from opgen.testing.memory.partial import asked_form

pytestmark = pytest.mark.asyncio

WIDGETS = "/apis/test.opgen.dev/v1/namespaces/{ns}/widgets"
CONFIGMAPS = "/api/v1/namespaces/{ns}/configmaps"
_SET = "<set>"
_VARYING = {
    "uid",
    "namespace",
    "resourceVersion",
    "creationTimestamp",
    "time",
    "continue",
}


def _masked(value: Any) -> Any:
    """`value` with what differs between two runs (uids, namespaces, versions, times,
    continue tokens) replaced by `<set>`; a `Status`'s message left out (kube-apiserver
    names the Go type of the list it refuses)."""
    if isinstance(value, dict):
        if value.get("kind") == "Status":
            value = {k: v for k, v in value.items() if k != "message"}
        return {k: _SET if k in _VARYING else _masked(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v) for v in value]
    return value


async def _send(
    api: seams.Transport,
    method: str,
    path: str,
    body: dict[str, Any] | None = None,
    accept: str | None = None,
) -> tuple[int, Any]:
    answer = await api.send(
        method,
        path,
        body=None if body is None else json.dumps(body).encode(),
        accept=accept,
    )
    return answer.status, _masked(json.loads(answer.body))


async def _scenario(api: seams.Transport) -> dict[str, Any]:
    ns = f"partial-{uuid.uuid4().hex[:8]}"
    await _send(api, "POST", "/api/v1/namespaces", {"metadata": {"name": ns}})
    widgets, configmaps = WIDGETS.format(ns=ns), CONFIGMAPS.format(ns=ns)
    for name in ("a", "b"):
        await _send(
            api,
            "POST",
            configmaps,
            {"metadata": {"name": name, "labels": {"app": name}}, "data": {"k": "v"}},
        )
    await _send(
        api,
        "POST",
        widgets,
        {
            "apiVersion": "test.opgen.dev/v1",
            "kind": "Widget",
            "metadata": {"name": "w", "labels": {"app": "w"}},
            "spec": {"message": "hello"},
        },
    )
    seen: dict[str, Any] = {
        "list, a page of built-ins": await _send(
            api, "GET", f"{configmaps}?limit=1", accept=METADATA_LIST_ACCEPT
        ),
        "list of custom resources": await _send(
            api, "GET", widgets, accept=METADATA_LIST_ACCEPT
        ),
        "list, nothing matches": await _send(
            api,
            "GET",
            f"{widgets}?labelSelector=app%3Dnone",
            accept=METADATA_LIST_ACCEPT,
        ),
        "get a built-in": await _send(
            api, "GET", f"{configmaps}/a", accept=METADATA_ACCEPT
        ),
        "get a custom resource": await _send(
            api, "GET", f"{widgets}/w", accept=METADATA_ACCEPT
        ),
        "get, not found": await _send(
            api, "GET", f"{widgets}/none", accept=METADATA_ACCEPT
        ),
        "get with the list's Accept": await _send(
            api, "GET", f"{widgets}/w", accept=METADATA_LIST_ACCEPT
        ),
        "list with an object's Accept": await _send(
            api, "GET", widgets, accept=METADATA_ACCEPT
        ),
        "list without one": await _send(api, "GET", widgets),
    }
    events = []
    path = f"{widgets}?watch=1&allowWatchBookmarks=true&timeoutSeconds=30"
    async with api.stream("GET", path, read_timeout=None, accept=METADATA_ACCEPT) as s:
        assert s.status == 200
        async for line in s.lines():
            event = json.loads(line)
            events.append(_masked(event))
            annotations = event["object"]["metadata"].get("annotations") or {}
            if INITIAL_EVENTS_END in annotations:
                await _send(api, "DELETE", f"{widgets}/w")
            if event["type"] == "DELETED":
                break
    seen["watch: initial events, their end, a deletion"] = events
    return seen


async def test_metadata_only_answers_agree_with_envtest(
    envtest: Environment, memory_server: MemoryApiServer
) -> None:
    real = Transport.from_kubeconfig(envtest.kube_config())
    try:
        on_envtest = await _scenario(real)
    finally:
        await real.aclose()
    on_memory = await _scenario(memory_server.transport())
    partial = {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1"}
    page = on_memory["list, a page of built-ins"][1]
    assert page["kind"] == "PartialObjectMetadataList"
    assert page["metadata"] == {
        "resourceVersion": _SET,
        "continue": _SET,
        "remainingItemCount": 1,
    }
    assert [{**item, "metadata": {}} for item in page["items"]] == [
        {**partial, "metadata": {}}
    ]
    widget = on_memory["get a custom resource"]
    assert widget[0] == 200 and set(widget[1]) == {"kind", "apiVersion", "metadata"}
    assert on_memory["list, nothing matches"][1]["items"] is None
    assert on_memory["get with the list's Accept"][0] == 500
    assert on_memory["list with an object's Accept"][0] == 406
    watched = on_memory["watch: initial events, their end, a deletion"]
    assert [e["type"] for e in watched] == ["ADDED", "BOOKMARK", "DELETED"]
    assert all(e["object"]["kind"] == "PartialObjectMetadata" for e in watched)
    for scenario, answer in on_envtest.items():
        assert on_memory[scenario] == answer, scenario


@pytest.mark.parametrize(
    ("accept", "form"),
    [
        (METADATA_LIST_ACCEPT, "PartialObjectMetadataList"),
        (METADATA_ACCEPT, "PartialObjectMetadata"),
        ("application/json", None),
        (None, None),
        (
            "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;"
            "v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
            "PartialObjectMetadata",
        ),
    ],
)
async def test_the_form_asked_is_the_first_the_server_can_give(
    accept: str | None, form: str | None
) -> None:
    assert asked_form(accept) == form
