"""The HTTP layer's own work: URLs, parameters, connection reuse (no server needed)."""

from __future__ import annotations

import lightkube
import pytest
from lightkube.config.kubeconfig import KubeConfig
from lightkube.resources.core_v1 import ConfigMap
from lightkube.resources.rbac_authorization_v1 import ClusterRole

from opgen.runtime.resources import resource_type
from opgen.runtime.rest import RestClient
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
def rest() -> RestClient:
    return RestClient(lightkube.AsyncClient(KubeConfig.from_dict(CONFIG)), qps=0)


def test_urls_for_namespaced_cluster_scoped_and_core_kinds(rest: RestClient) -> None:
    base = "https://k8s.example:6443"
    widgets = resource_type(Widget)
    assert rest._url("get", widgets, "a", "ns", None, None) == (
        f"{base}/apis/test.opgen.dev/v1/namespaces/ns/widgets/a"
    )
    assert rest._url("patch", widgets, "a", "ns", "status", {"force": True}) == (
        f"{base}/apis/test.opgen.dev/v1/namespaces/ns/widgets/a/status?force=true"
    )
    assert rest._url("watch", widgets, None, None, None, {"limit": 5}) == (
        f"{base}/apis/test.opgen.dev/v1/widgets?limit=5&watch=true"
    )
    assert rest._url("list", resource_type(ConfigMap), None, "ns", None, None) == (
        f"{base}/api/v1/namespaces/ns/configmaps"
    )
    assert rest._url("get", resource_type(Gadget), "g", None, "scale", None) == (
        f"{base}/apis/test.opgen.dev/v1/gadgets/g/scale"
    )
    role = rest._url("get", resource_type(ClusterRole), "system:x y", None, None, None)
    assert role.endswith("/clusterroles/system:x%20y")


def test_scope_mistakes_are_refused(rest: RestClient) -> None:
    with pytest.raises(ValueError, match="namespaced"):
        rest._url("get", resource_type(Widget), "a", None, None, None)
    with pytest.raises(ValueError, match="cluster-scoped"):
        rest._url("get", resource_type(Gadget), "a", "ns", None, None)


def test_every_pooled_connection_is_kept_alive(rest: RestClient) -> None:
    pool = rest._http._transport._pool  # type: ignore[attr-defined]
    assert pool._max_keepalive_connections == pool._max_connections == 100


def test_request_carries_the_body_type_and_a_timeout(rest: RestClient) -> None:
    request = rest._build("patch", "https://k8s.example:6443/x", b"{}", "a/b")
    assert request.method == "PATCH" and request.headers["content-type"] == "a/b"
    assert request.headers["accept"] == "application/json"
    assert request.extensions["timeout"]["read"] is not None
    assert "content-type" not in rest._build("get", "https://k/x", None, None).headers
