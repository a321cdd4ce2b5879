"""English plurals and wire names."""

from __future__ import annotations

import pytest

from opgen.engine.naming import pluralize, split_words, to_camel


@pytest.mark.parametrize(
    ("kind", "plural"),
    [
        ("RayCluster", "rayclusters"),
        ("CronJob", "cronjobs"),
        ("TestQuota", "testquotas"),
        ("NetworkPolicy", "networkpolicies"),
        ("Ingress", "ingresses"),
        ("IngressClass", "ingressclasses"),
        ("Proxy", "proxies"),
        ("Gateway", "gateways"),
        ("Box", "boxes"),
        ("Match", "matches"),
        ("Mesh", "meshes"),
        ("Status", "statuses"),
        ("PodStatus", "podstatuses"),
        ("Alias", "aliases"),
        ("Person", "people"),
        ("Child", "children"),
        ("Leaf", "leaves"),
        ("Index", "indices"),
        ("Analysis", "analyses"),
        ("Endpoints", "endpoints"),
        ("Metrics", "metrics"),
        ("Sheep", "sheep"),
        ("Data", "data"),
        ("Repo", "repos"),
        ("Potato", "potatoes"),
        ("Quiz", "quizzes"),
        ("HTTPRoute", "httproutes"),
        ("DNSEntry", "dnsentries"),
        ("VM", "vms"),
    ],
)
def test_pluralize(kind: str, plural: str) -> None:
    assert pluralize(kind) == plural


def test_pluralize_refuses_empty() -> None:
    with pytest.raises(ValueError):
        pluralize("")


def test_split_words() -> None:
    assert split_words("HTTPRouteSpec") == ["HTTP", "Route", "Spec"]
    assert split_words("worker_group_name") == ["worker", "group", "name"]


def test_to_camel() -> None:
    assert to_camel("worker_replicas") == "workerReplicas"
    assert to_camel("api_version") == "apiVersion"
    assert to_camel("x") == "x"
