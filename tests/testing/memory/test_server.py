"""What the memory server does that envtest cannot be asked to do on demand:
compaction (410 Gone), dropped watches, a closed transport; and the kinds it
serves without being told (`op.k8s` built-ins) or with a schema alone."""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest

import opgen.api as op
from opgen import runtime as rt
from opgen.api.k8s import ConfigMap, Secret
from opgen.runtime.rest import RestClient
from opgen.testing.memory import Kinds, MemoryApiServer
from tests.testing.memory.crds import generated_crds
from tests.testing.memory.kinds import Gauge

WIDGETS = "/apis/test.opgen.dev/v1/namespaces/default/widgets"


def _widget(name: str, **spec: Any) -> bytes:
    body = {
        "apiVersion": "test.opgen.dev/v1",
        "kind": "Widget",
        "metadata": {"name": name},
        "spec": spec,
    }
    return json.dumps(body).encode()


async def _lines(server: MemoryApiServer, path: str, count: int) -> list[Any]:
    events = []
    async with server.transport().stream("GET", path, read_timeout=None) as stream:
        assert stream.status == 200
        async for line in stream.lines():
            events.append(json.loads(line))
            if len(events) == count:
                break
    return events


async def test_a_watch_from_before_a_compaction_is_answered_410_gone(
    memory_server: MemoryApiServer,
) -> None:
    code, first = memory_server.handle("POST", WIDGETS, _widget("a"))
    assert code == 201 and first is not None
    memory_server.handle("POST", WIDGETS, _widget("b"))
    memory_server.compact()
    old = first["metadata"]["resourceVersion"]
    [event] = await _lines(
        memory_server, f"{WIDGETS}?watch=true&resourceVersion={old}", 1
    )
    assert event["type"] == "ERROR"
    assert (event["object"]["code"], event["object"]["reason"]) == (410, "Expired")
    # a watch from the current resourceVersion still works
    code, listed = memory_server.handle("GET", WIDGETS)
    assert listed is not None
    now = listed["metadata"]["resourceVersion"]
    memory_server.handle("POST", WIDGETS, _widget("c"))
    [added] = await _lines(
        memory_server, f"{WIDGETS}?watch=true&resourceVersion={now}", 1
    )
    assert (added["type"], added["object"]["metadata"]["name"]) == ("ADDED", "c")


async def test_dropped_watches_end_and_the_client_sees_the_stream_end(
    memory_server: MemoryApiServer,
) -> None:
    transport = memory_server.transport()
    async with transport.stream(
        "GET", f"{WIDGETS}?watch=true", read_timeout=None
    ) as stream:
        memory_server.handle("POST", WIDGETS, _widget("a"))
        memory_server.store.close_watches()
        lines = [json.loads(line) async for line in stream.lines()]
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in lines] == [
        ("ADDED", "a")
    ]
    assert memory_server.store.subscriptions == 0


async def test_a_closed_transport_refuses_requests(
    memory_server: MemoryApiServer,
) -> None:
    transport = memory_server.transport()
    await transport.aclose()
    with pytest.raises(RuntimeError, match="closed"):
        await transport.send("GET", WIDGETS)


async def test_op_k8s_kinds_are_served_without_being_added() -> None:
    server = MemoryApiServer()
    client = rt.Client(RestClient(server.transport()))
    made = await client.create(
        Secret.model_validate(
            {
                "metadata": {"name": "s", "namespace": "default"},
                "stringData": {"k": "v"},
            }
        )
    )
    assert made.metadata.uid and made.metadata.resource_version
    assert made.metadata.generation is None, "a kind without a spec has no generation"
    with pytest.raises(rt.NotFound):
        await client.get(ConfigMap, "s", "default")


def test_a_crd_without_a_model_is_pruned_and_defaulted_by_its_schema() -> None:
    kinds = Kinds()
    kinds.add_crds(generated_crds())  # no models: the schema alone
    server = MemoryApiServer(kinds)
    code, made = server.handle(
        "POST",
        "/apis/memory.opgen.dev/v1/namespaces/default/gauges",
        json.dumps(
            {
                "apiVersion": "memory.opgen.dev/v1",
                "kind": "Gauge",
                "metadata": {"name": "g"},
                "spec": {"size": 3, "unknown": 1},
            }
        ).encode(),
    )
    assert code == 201 and made is not None
    assert made["spec"] == {"size": 3, "mode": "Slow", "low": 0, "high": 0}


def test_an_unknown_path_is_a_plain_404_page(memory_server: MemoryApiServer) -> None:
    assert memory_server.handle("GET", "/apis/nothing.example/v1/things") == (404, None)


def test_rules_are_judged_where_another_constraint_of_the_model_fails() -> None:
    # size 11 breaks the maximum, so Pydantic builds no GaugeSpec to run its rule on
    body = {"metadata": {"name": "g"}, "spec": {"size": 11, "low": 2, "high": 1}}
    assert [(c.field, c.message) for c in op.failed_rules(Gauge, body)] == [
        ("spec", "Invalid value: low must not exceed high")
    ]
    # the wire form as stored: the CRD's defaults (low, high) applied
    old = {
        "metadata": {"name": "g"},
        "spec": {"size": 1, "low": 0, "high": 0, "locked": "k"},
    }
    new = {
        "metadata": {"name": "g"},
        "spec": {"size": 1, "low": 0, "high": 0, "locked": "j"},
    }
    assert [c.field for c in op.failed_rules(Gauge, new, old)] == ["spec.locked"]
    assert op.failed_rules(Gauge, new) == [], "transition rules need the old object"


def test_servers_with_the_default_clock_start_with_the_same_namespaces() -> None:
    first, second = MemoryApiServer(), MemoryApiServer()
    names = ("default", "kube-system")
    for server in (first, second):
        assert server.store.revision == 2
        assert [e.type for e in server.store.history] == ["ADDED", "ADDED"]
    read = [
        [s.handle("GET", f"/api/v1/namespaces/{n}") for n in names]
        for s in (first, second)
    ]
    assert read[0] == read[1]
    assert [doc["metadata"]["resourceVersion"] for _, doc in read[1] if doc] == [
        "1",
        "2",
    ]
    assert read[1][0][1] is not None and read[1][0][1]["status"] == {"phase": "Active"}
    # a server's own writes are its own: the next one starts as the first did
    first.handle("DELETE", "/api/v1/namespaces/default")
    assert MemoryApiServer().handle("GET", "/api/v1/namespaces/default") == read[0][0]
    stopped = datetime.datetime(2020, 1, 2, tzinfo=datetime.timezone.utc)
    own = MemoryApiServer(clock=lambda: stopped, namespaces=("only",))
    _, made = own.handle("GET", "/api/v1/namespaces/only")
    assert (
        made is not None
        and made["metadata"]["creationTimestamp"] == "2020-01-02T00:00:00Z"
    )
    assert own.handle("GET", "/api/v1/namespaces/default")[0] == 404
