"""The REST layer's own work: paths, parameters, the field manager (no server needed)."""

from __future__ import annotations

import pytest
from lightkube.config.kubeconfig import KubeConfig

from opgen import runtime as rt
from opgen.api.k8s import ClusterRole, ConfigMap
from opgen.runtime.resources import resource_type
from opgen.runtime.rest import RestClient
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


def test_request_headers_carry_the_body_type_and_the_credentials(
    transport: Transport,
) -> None:
    lines = transport._headers(b"Authorization: Bearer t\r\n", "a/b").decode()
    assert lines.split("\r\n")[:-1] == [
        "Accept: application/json",
        "User-Agent: opgen-runtime",
        "Authorization: Bearer t",
        "Content-Type: a/b",
    ]
    assert "Content-Type" not in transport._headers(b"", None).decode()
