"""Kubernetes' built-in kinds as op.k8s models in the runtime: their facts and their reads."""

from __future__ import annotations

import datetime
from typing import Any

import msgspec
import pytest
from pydantic import BaseModel

import opgen.api as op
from benchmarks.builtin_decode import DEPLOYMENT, SERVICE
from opgen.runtime.decoding import Decoder
from opgen.runtime.resources import resource_type


def test_kinds_carry_the_facts_of_the_servers_discovery() -> None:
    deployment = resource_type(op.k8s.Deployment)
    assert (deployment.group, deployment.version, deployment.plural) == (
        "apps",
        "v1",
        "deployments",
    )
    assert deployment.namespaced and deployment.status_subresource
    assert deployment.scale is not None
    assert deployment.api_version == "apps/v1" and deployment.builtin

    namespace = resource_type(op.k8s.Namespace)
    assert (namespace.group, namespace.plural, namespace.namespaced) == (
        "",
        "namespaces",
        False,
    )
    assert namespace.api_version == "v1"
    config_map = resource_type(op.k8s.ConfigMap)
    assert not config_map.status_subresource and config_map.scale is None
    lease = resource_type(op.k8s.Lease)
    assert (lease.group, lease.plural) == ("coordination.k8s.io", "leases")
    event = resource_type(op.k8s.events_v1.Event)
    assert (event.group, event.plural) == ("events.k8s.io", "events")
    assert resource_type(op.k8s.core_v1.Event).group == ""


def test_a_type_that_is_not_a_kind_is_refused() -> None:
    with pytest.raises(TypeError, match="not a Kubernetes kind"):
        resource_type(op.k8s.DeploymentSpec)


def _wire(obj: BaseModel) -> dict[str, Any]:
    return obj.model_dump(mode="json", by_alias=True, exclude_none=True)


@pytest.mark.parametrize("data", [DEPLOYMENT, SERVICE], ids=["Deployment", "Service"])
def test_a_read_builds_what_validation_would(data: dict[str, Any]) -> None:
    cls = getattr(op.k8s, data["kind"])
    raw = msgspec.json.encode(data)
    built = resource_type(cls).decode_json(raw)
    validated = cls.model_validate_json(raw)
    assert type(built) is cls
    assert _wire(built) == _wire(validated) == _wire_of(data)
    assert built == validated
    assert built.model_fields_set == validated.model_fields_set


def _wire_of(data: dict[str, Any]) -> dict[str, Any]:
    # the model's wire form: times as the server wrote them, the rest as given
    wire: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(data))
    return wire


def test_built_objects_have_typed_nested_values_and_defaults() -> None:
    raw = msgspec.json.encode(
        {
            **DEPLOYMENT,
            "unknownField": {"from": "a newer server"},
        }
    )
    built = resource_type(op.k8s.Deployment).decode_json(raw)
    assert isinstance(built.metadata, op.ObjectMeta)
    assert isinstance(built.metadata.creation_timestamp, datetime.datetime)
    assert built.spec is not None
    container = built.spec.template.spec.containers[0]  # type: ignore[union-attr]
    assert isinstance(container, op.k8s.Container)
    assert built.status is not None and built.status.conditions
    assert isinstance(built.status.conditions[0].last_update_time, datetime.datetime)
    port = op.k8s.ContainerPort.model_validate({"containerPort": 80})
    built_port = resource_type(op.k8s.Pod).decode_dict(
        {"spec": {"containers": [{"name": "a", "ports": [{"containerPort": 80}]}]}}
    )
    assert built_port.spec is not None
    ports = built_port.spec.containers[0].ports
    assert ports is not None
    assert ports[0].protocol == port.protocol == "TCP"


def test_every_read_is_a_fresh_object() -> None:
    rtype = resource_type(op.k8s.Deployment)
    decoder = Decoder(rtype)
    raw = msgspec.json.encode(DEPLOYMENT)
    prepared = decoder.prepare(raw)
    first, second = decoder.fresh(raw, prepared), decoder.fresh(raw, prepared)
    assert first == second and first is not second
    first.metadata.labels = {"changed": "yes"}
    assert first.spec is not None and second.spec is not None
    first.spec.template.metadata.labels["x"] = "y"  # type: ignore[union-attr,index]
    assert second.metadata.labels != first.metadata.labels
    assert "x" not in (second.spec.template.metadata.labels or {})  # type: ignore[union-attr]


def test_a_kind_encodes_with_its_api_version_and_kind() -> None:
    config = op.k8s.ConfigMap(
        metadata=op.ObjectMeta(name="a", namespace="ns"), data={"k": "v"}
    )
    assert resource_type(op.k8s.ConfigMap).encode_obj(config) == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "a", "namespace": "ns"},
        "data": {"k": "v"},
    }
    assert op.k8s.ConfigMap().metadata == op.ObjectMeta()
