"""Class names of imported models: from kind and path, readable, never colliding."""

from __future__ import annotations

import dataclasses
from typing import Any

from opgen.model.kinds import KindNames, KindVersion, SourceRef
from opgen.model.openapi import ModelSet, ResourceDecl
from opgen.openapi import Placement, read_schema
from opgen.openapi.naming import class_name, name_models, singular
from tests.imports.crds import array, integer, obj, string


def _names(*kinds: tuple[str, dict[str, Any]]) -> dict[str, str]:
    """Class names of the models of `kinds` (kind, root schema) in one module."""
    models: dict[str, Any] = {}
    for kind, schema in kinds:
        read = read_schema(schema, kind, place=lambda key: Placement("m", key))
        models.update(read.models)
        names = KindNames(kind, kind.lower() + "s", kind.lower(), f"{kind}List")
        source = SourceRef(file="crd.yaml", module="", cls=kind)
        resource = ResourceDecl("g.io", names, "Namespaced", KindVersion("v1", source))
        models[kind] = dataclasses.replace(models[kind], resource=resource)
    named = name_models(ModelSet(models=models))
    return {key: model.name for key, model in named.models.items()}


def test_words_and_singulars() -> None:
    assert [
        class_name(w) for w in ("tlsConfig", "podIPs", "x-ray", "HTTPGet", "1st")
    ] == [
        "TlsConfig",
        "PodIPs",
        "XRay",
        "HTTPGet",
        "Field1St",
    ]
    assert [
        singular(w)
        for w in (
            "Endpoints",
            "Policies",
            "Statuses",
            "PodIPs",
            "URIs",
            "Addresses",
            "Status",
            "Data",
        )
    ] == ["Endpoint", "Policy", "Status", "PodIP", "URI", "Address", "Status", "Data"]


def _template() -> dict[str, Any]:
    return obj({"image": string(), "replicas": integer()})


def test_names_follow_kind_and_path_and_collisions_take_the_parent() -> None:
    cluster = obj(
        {
            "spec": obj(
                {
                    "headGroupSpec": obj(
                        {
                            "template": _template(),
                            "rayStartParams": obj({"a": string()}),
                        }
                    ),
                    "workerGroupSpecs": array(
                        obj(
                            {
                                "groupName": string(),
                                "template": obj({"image": string()}),
                            }
                        )
                    ),
                }
            ),
            "status": obj({"head": obj({"podIP": string()})}),
        }
    )
    names = _names(("RayCluster", cluster))
    assert names == {
        "RayCluster": "RayCluster",
        "RayCluster.spec": "RayClusterSpec",
        "RayCluster.status": "RayClusterStatus",
        "RayCluster.spec.headGroupSpec": "HeadGroupSpec",
        "RayCluster.spec.workerGroupSpecs[*]": "WorkerGroupSpec",
        "RayCluster.status.head": "Head",
        "RayCluster.spec.headGroupSpec.rayStartParams": "RayStartParams",
        "RayCluster.spec.headGroupSpec.template": "Template",
        "RayCluster.spec.workerGroupSpecs[*].template": "WorkerGroupSpecTemplate",
    }


def test_kinds_keep_their_names_and_models_of_the_same_content_merge() -> None:
    tls = obj({"insecure": {"type": "boolean"}, "serverName": string()})
    monitor = obj(
        {
            "spec": obj(
                {"tls": tls, "endpoints": array(obj({"tls": tls, "port": string()}))}
            )
        }
    )
    probe = obj({"spec": obj({"tls": tls, "prober": obj({"url": string()})})})
    # A model whose own name would be another kind's is renamed.
    alert = obj({"spec": obj({"probe": obj({"timeout": string()})})})
    names = _names(("ServiceMonitor", monitor), ("Probe", probe), ("Alert", alert))
    # The three tls objects are one class, named after the shallowest path.
    tls_keys = [key for key in names if key.endswith(".tls")]
    assert tls_keys == ["Probe.spec.tls"] and names["Probe.spec.tls"] == "Tls"
    assert names["Probe"] == "Probe"
    assert names["Alert.spec.probe"] == "AlertSpecProbe"
    assert names["Probe.spec.prober"] == "Prober"
    assert len(set(names.values())) == len(names)


def test_list_items_take_the_go_type_their_description_names() -> None:
    relabel = obj(
        {"action": string()}, "RelabelConfig allows dynamic rewriting of labels."
    )
    plain = obj({"port": string()}, "Endpoint defines an endpoint.")
    monitor = obj(
        {
            "spec": obj(
                {
                    "relabelings": array(relabel),
                    "metricRelabelings": array(relabel),
                    "endpoints": array(plain),
                }
            )
        }
    )
    names = _names(("ServiceMonitor", monitor))
    assert names["ServiceMonitor.spec.metricRelabelings[*]"] == "RelabelConfig"
    assert "ServiceMonitor.spec.relabelings[*]" not in names  # the same class
    # One word is not taken for a Go name: it may just begin a sentence.
    assert names["ServiceMonitor.spec.endpoints[*]"] == "Endpoint"
