"""Reads of built-in kinds: Pydantic's validator without opgen's checks
(`opgen.runtime.construct.unchecked`), and the builder it falls back to.

The API server validated what it sends of a built-in kind, so a read makes
what `model_validate` makes, without checking again: these pin that, for the
shapes the server writes (unknown fields from a newer server, nulls, lists and
maps of objects, aliases, int-or-string values, quantities, times).
"""

from __future__ import annotations

import copy
import datetime
from typing import Any

import msgspec
import pytest
from pydantic import BaseModel, ValidationError

import opgen.api as op
from benchmarks.builtin_decode import DEPLOYMENT, SERVICE
from opgen.runtime import construct
from opgen.runtime.resources import resource_type


def read(cls: type[Any], data: dict[str, Any]) -> Any:
    return resource_type(cls).decode_json(msgspec.json.encode(data))


def wire(obj: BaseModel) -> dict[str, Any]:
    return obj.model_dump(mode="json", by_alias=True, exclude_unset=True)


def read_back(cls: type[Any], data: dict[str, Any]) -> tuple[Any, Any]:
    """`data` read as `cls`, checked to give `data` back field for field and to be
    what validation makes of it; with that validated object (None: `data` does
    not validate, a kind with required fields, read by the builder)."""
    obj = read(cls, data)
    assert type(obj) is cls and wire(obj) == data, cls
    try:
        validated = cls.model_validate(data)
    except ValidationError:
        return obj, None
    assert obj == validated, cls
    return obj, validated


@pytest.mark.parametrize("data", [DEPLOYMENT, SERVICE], ids=["Deployment", "Service"])
def test_a_read_gives_back_the_servers_answer_field_for_field(
    data: dict[str, Any],
) -> None:
    cls = getattr(op.k8s, data["kind"])
    obj, validated = read_back(cls, data)
    assert validated is not None
    from_dict = resource_type(cls).decode_dict(copy.deepcopy(data))
    assert wire(from_dict) == data and from_dict == obj


def test_fields_a_newer_server_sends_are_ignored_at_every_level() -> None:
    data = copy.deepcopy(DEPLOYMENT)
    data["newTopLevel"] = {"a": 1}
    data["spec"]["newInSpec"] = True
    data["spec"]["template"]["spec"]["containers"][0]["newInContainer"] = [1, 2]
    data["status"]["conditions"][0]["newInCondition"] = "x"
    obj = read(op.k8s.Deployment, data)
    assert wire(obj) == DEPLOYMENT
    assert obj.__pydantic_extra__ is None


def test_nulls_the_go_types_write_are_kept_as_none() -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "labels": None},
        # a nil slice without omitempty: the server writes null where the model
        # wants a list, which even the unchecked validator refuses
        "spec": {"containers": None, "nodeName": None},
    }
    with pytest.raises(ValidationError):
        construct.unchecked(op.k8s.Pod).validate_json(msgspec.json.encode(pod))
    obj = read(op.k8s.Pod, pod)
    assert obj.spec is not None and obj.spec.containers is None
    assert obj.metadata.labels is None and obj.spec.node_name is None
    assert "containers" in obj.spec.model_fields_set
    assert obj.metadata.model_fields_set == {"name", "labels"}


def test_lists_and_maps_of_objects_and_aliases_are_models() -> None:
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget", "plural": "widgets"},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {
                                "spec": {
                                    "type": "object",
                                    "x-kubernetes-preserve-unknown-fields": True,
                                },
                                "size": {"type": "integer", "minimum": 1},
                            },
                        }
                    },
                }
            ],
        },
    }
    obj = read(op.k8s.CustomResourceDefinition, crd)
    props = obj.spec.versions[0].schema_.open_apiv3_schema.properties
    assert set(props) == {"spec", "size"}
    assert all(isinstance(p, op.k8s.JSONSchemaProps) for p in props.values())
    assert props["spec"].x_kubernetes_preserve_unknown_fields is True
    assert wire(obj) == crd


def test_int_or_string_values_and_quantities_stay_as_the_server_wrote_them() -> None:
    data = copy.deepcopy(DEPLOYMENT)
    data["spec"]["strategy"]["rollingUpdate"] = {"maxUnavailable": 1, "maxSurge": "25%"}
    obj = read(op.k8s.Deployment, data)
    rolling = obj.spec.strategy.rolling_update
    assert (rolling.max_unavailable, rolling.max_surge) == (1, "25%")
    limits = obj.spec.template.spec.containers[0].resources.limits
    assert limits == {"cpu": "1", "memory": "2Gi"}
    service = read(op.k8s.Service, SERVICE)
    assert [p.target_port for p in service.spec.ports] == [
        "gcs-server",
        "dashboard",
        "client",
    ]


def test_times_are_aware_datetimes_the_same_as_validation_makes() -> None:
    obj = read(op.k8s.Deployment, DEPLOYMENT)
    created = obj.metadata.creation_timestamp
    assert created == datetime.datetime(2026, 12, 1, 21, tzinfo=datetime.timezone.utc)
    assert created.utcoffset() == datetime.timedelta(0)
    condition = obj.status.conditions[1]
    assert condition.last_transition_time == created
    validated = op.k8s.Deployment.model_validate(DEPLOYMENT)
    assert validated.status is not None and validated.status.conditions is not None
    assert condition == validated.status.conditions[1]
    lease = read(
        op.k8s.Lease,
        {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": "l"},
            "spec": {"renewTime": "2026-12-01T21:00:05.123456Z"},
        },
    )
    assert lease.spec.renew_time.microsecond == 123456  # a MicroTime keeps them
    assert wire(lease)["spec"]["renewTime"] == "2026-12-01T21:00:05.123456Z"


def test_values_opgens_checks_would_refuse_are_read_as_the_server_holds_them() -> None:
    # The API server accepts a container with two env vars of the same name
    # (listType=map, but kept for compatibility); op.k8s's list check refuses it.
    data = copy.deepcopy(DEPLOYMENT)
    container = data["spec"]["template"]["spec"]["containers"][0]
    container["env"] = [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}]
    with pytest.raises(ValidationError):
        op.k8s.Deployment.model_validate(data)
    obj = read(op.k8s.Deployment, data)
    assert [e.value for e in obj.spec.template.spec.containers[0].env] == ["1", "2"]


def test_a_read_skips_the_checks_of_nested_classes_already_used_alone() -> None:
    # Built alone (here, by making one), a class has its own validator, checks
    # and all, which pydantic-core would reuse for the class's place in another
    # class's validator: the unchecked one must not.
    op.k8s.Container(name="ray")
    assert op.k8s.Container.__pydantic_complete__
    data = copy.deepcopy(DEPLOYMENT)
    container = data["spec"]["template"]["spec"]["containers"][0]
    container["env"] = [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}]
    obj = construct.unchecked(op.k8s.Deployment).validate_json(
        msgspec.json.encode(data)
    )
    assert [e.value for e in obj.spec.template.spec.containers[0].env] == ["1", "2"]


def test_base64_data_is_still_decoded() -> None:
    secret = read(
        op.k8s.Secret,
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "s"},
            "data": {"k": "aGk="},
        },
    )
    assert secret.data == {"k": b"hi"}


def test_a_read_from_a_dict_shares_nothing_with_it() -> None:
    data = copy.deepcopy(DEPLOYMENT)
    obj = resource_type(op.k8s.Deployment).decode_dict(data)
    assert obj.metadata.labels is not None
    obj.metadata.labels["x"] = "y"
    assert obj.spec is not None and obj.spec.template.spec is not None
    command = obj.spec.template.spec.containers[0].command
    assert command is not None
    command.append("--more")
    assert data == DEPLOYMENT


def _builtin_kinds() -> list[type[Any]]:
    import importlib
    import pkgutil

    import opgen.api.k8s as package
    from opgen.engine.builtin import builtin_resource

    kinds: set[type[Any]] = set()
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and builtin_resource(value) is not None:
                kinds.add(value)
    return sorted(kinds, key=lambda kind: (kind.__module__, kind.__name__))


def test_every_built_in_kind_reads() -> None:
    kinds = _builtin_kinds()
    assert op.k8s.Deployment in kinds and op.k8s.events_v1.Event in kinds
    for kind in kinds:
        rtype = resource_type(kind)
        data = {
            "apiVersion": rtype.api_version,
            "kind": rtype.kind,
            "metadata": {
                "name": "a",
                "creationTimestamp": "2026-12-01T21:00:00Z",
                "labels": {"k": "v"},
            },
        }
        read_back(kind, data)
