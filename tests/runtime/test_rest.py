"""The REST layer's own work: paths, parameters, the field manager, retries after
`Retry-After` (no server needed)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from opgen import runtime as rt
from opgen.api.k8s import ClusterRole, ConfigMap
from opgen.runtime import seams
from opgen.runtime.kubeconfig import KubeConfig
from opgen.runtime.resources import resource_type
from opgen.runtime.rest import (
    MAX_RETRIES,
    METADATA_ACCEPT,
    METADATA_LIST_ACCEPT,
    RestClient,
)
from opgen.runtime.seams import Answer
from opgen.runtime.transport import Transport
from tests.runtime.kinds import Gadget, Widget

CONFIG = {
    "apiVersion": "v1",
    "kind": "Config",
    "clusters": [{"name": "c", "cluster": {"server": "https://k8s.example:6443"}}],
    "users": [{"name": "u", "user": {"token": "t"}}],
    "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
    "current-context": "x",
}


@pytest.fixture
def transport() -> Transport:
    return Transport.from_kubeconfig(KubeConfig.from_dict(CONFIG))


@pytest.fixture
def rest(transport: Transport) -> RestClient:
    return RestClient(transport, rt.ClientOptions(qps=0))


def test_paths_for_namespaced_cluster_scoped_and_core_kinds(rest: RestClient) -> None:
    widgets = resource_type(Widget)
    assert rest.path("get", widgets, "a", "ns", None, None) == (
        "/apis/test.opgen.dev/v1/namespaces/ns/widgets/a"
    )
    assert rest.path("watch", widgets, None, None, None, {"limit": 5}) == (
        "/apis/test.opgen.dev/v1/widgets?limit=5&watch=true"
    )
    assert rest.path("list", resource_type(ConfigMap), None, "ns", None, None) == (
        "/api/v1/namespaces/ns/configmaps"
    )
    assert rest.path("get", resource_type(Gadget), "g", None, "scale", None) == (
        "/apis/test.opgen.dev/v1/gadgets/g/scale"
    )
    role = rest.path("get", resource_type(ClusterRole), "system:x y", None, None, None)
    assert role.endswith("/clusterroles/system:x%20y")


def test_every_write_names_the_field_manager(transport: Transport) -> None:
    rest = RestClient(transport, rt.ClientOptions(field_manager="mine"))
    widgets = resource_type(Widget)
    for verb in ("create", "update", "patch"):
        path = rest.path(verb, widgets, "a", "ns", None, None)
        assert path.endswith("?fieldManager=mine"), (verb, path)
    assert rest.path("patch", widgets, "a", "ns", "status", {"force": True}) == (
        "/apis/test.opgen.dev/v1/namespaces/ns/widgets/a/status"
        "?force=true&fieldManager=mine"
    )
    given = rest.path("patch", widgets, "a", "ns", None, {"fieldManager": "other"})
    assert given.endswith("?fieldManager=other"), "a manager given per call wins"
    for verb in ("get", "list", "delete"):
        assert "fieldManager" not in rest.path(verb, widgets, "a", "ns", None, None)
    assert RestClient(transport).field_manager == "opgen"


def test_scope_mistakes_are_refused(rest: RestClient) -> None:
    with pytest.raises(ValueError, match="namespaced"):
        rest.path("get", resource_type(Widget), "a", None, None, None)
    with pytest.raises(ValueError, match="cluster-scoped"):
        rest.path("get", resource_type(Gadget), "a", "ns", None, None)


class Scripted:
    """A transport (`seams.Transport`) that answers from a script and records paths."""

    host = "k8s.example"
    namespace = "default"

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.sent: list[str] = []

    async def send(self, method: str, path: str, **_: object) -> Answer:
        self.sent.append(f"{method} {path}")
        return self.answers.pop(0)

    def stream(
        self,
        method: str,
        path: str,
        *,
        read_timeout: float | None,
        accept: str | None = None,
    ) -> Any:
        raise AssertionError("no stream in these tests")

    async def aclose(self) -> None:
        pass

    def sibling(self) -> seams.Transport:
        raise AssertionError("no sibling in these tests")


def busy(code: int, retry_after: str | None) -> Answer:
    headers = {} if retry_after is None else {"retry-after": retry_after}
    return Answer(code, b'{"code": %d, "reason": "TooManyRequests"}' % code, headers)


async def test_a_429_or_5xx_naming_retry_after_is_sent_again() -> None:
    script = Scripted(busy(429, "0"), busy(503, "0"), Answer(200, b"{}"))
    rest = RestClient(script, rt.ClientOptions(qps=0))
    assert (
        await rest.request("get", resource_type(Widget), name="a", namespace="n")
        == b"{}"
    )
    assert len(script.sent) == 3
    assert rest.counts["get"] == 3, "every attempt is a request"


async def test_an_error_without_retry_after_is_raised_at_once() -> None:
    for answer in (busy(503, None), busy(409, "0"), busy(429, "soon")):
        rest = RestClient(Scripted(answer), rt.ClientOptions(qps=0))
        with pytest.raises(rt.ApiError) as error:
            await rest.request("get", resource_type(Widget), name="a", namespace="n")
        assert error.value.code == answer.status


async def test_retries_end_with_the_error_and_its_retry_after() -> None:
    script = Scripted(*[busy(429, "0")] * (MAX_RETRIES + 1))
    rest = RestClient(script, rt.ClientOptions(qps=0))
    with pytest.raises(rt.ApiError) as error:
        await rest.request("get", resource_type(Widget), name="a", namespace="n")
    assert (error.value.code, error.value.retry_after) == (429, 0.0)
    assert len(script.sent) == MAX_RETRIES + 1 and not script.answers


class WithoutAccept:
    """A transport written before requests could name their `Accept` (it notes
    any keyword it is given beyond those)."""

    host = "k8s.example"
    namespace = "default"

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, str]]] = []
        """Each request's path, and the `accept` it was given, if any."""

    async def send(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        content_type: str | None = None,
        **accept: str,
    ) -> Answer:
        self.sent.append((path.partition("?")[0], accept))
        return Answer(200, b"{}")

    @asynccontextmanager
    async def stream(
        self, method: str, path: str, *, read_timeout: float | None, **accept: str
    ) -> AsyncIterator[Any]:
        self.sent.append((path.partition("?")[0], accept))

        class Empty:
            status, headers = 200, dict[str, str]()

            async def lines(self) -> AsyncIterator[str]:
                return
                yield

        yield Empty()

    async def aclose(self) -> None:
        pass


async def test_only_a_read_that_asks_for_metadata_names_an_accept() -> None:
    """The default path passes no `accept`, so a transport without it still serves
    every request that does not ask for another form."""
    script = WithoutAccept()
    # not a `seams.Transport` by its type (it names no `accept`), as an older one
    rest = RestClient(script, rt.ClientOptions(qps=0))  # type: ignore[arg-type]
    widgets = resource_type(Widget)
    await rest.request("list", widgets, namespace="n")
    await rest.request("list", widgets, namespace="n", accept=METADATA_LIST_ACCEPT)
    await rest.request("get", widgets, name="a", namespace="n", accept=METADATA_ACCEPT)
    for accept in (None, METADATA_ACCEPT):
        async with rest.stream(
            widgets, namespace="n", params={}, read_timeout=None, accept=accept
        ) as lines:
            assert [line async for line in lines] == []
    path = "/apis/test.opgen.dev/v1/namespaces/n/widgets"
    assert script.sent == [
        (path, {}),
        (path, {"accept": METADATA_LIST_ACCEPT}),
        (f"{path}/a", {"accept": METADATA_ACCEPT}),
        (path, {}),
        (path, {"accept": METADATA_ACCEPT}),
    ]
