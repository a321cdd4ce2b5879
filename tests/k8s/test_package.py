"""The op.k8s package: names, laziness, value types, field names."""

from __future__ import annotations

import pytest

import opgen.api as op
from opgen.openapi.kubernetes import KNOWN, ROOTS
from tests.fresh import in_fresh_interpreter


def test_import_opgen_api_does_not_load_op_k8s() -> None:
    code = (
        "import sys, opgen.api as op\n"
        "print(sorted(m for m in sys.modules if m.startswith('opgen.api.k8s')))\n"
        "op.k8s.PodTemplateSpec\n"
        "print(sorted(m for m in sys.modules if m.startswith('opgen.api.k8s')"
        " and '._' not in m))\n"
    )
    before, after = in_fresh_interpreter(code).splitlines()
    assert before == "[]"
    assert (
        after == "['opgen.api.k8s', 'opgen.api.k8s.core_v1', 'opgen.api.k8s.meta_v1']"
    )


@pytest.mark.parametrize("key", ROOTS, ids=lambda key: key.rsplit(".", 1)[-1])
def test_every_root_has_its_go_name(key: str) -> None:
    name = key.rsplit(".", 1)[-1]
    value = getattr(op.k8s, name)
    if key in KNOWN:
        assert value is getattr(op, KNOWN[key])
    else:
        assert isinstance(value, type) and issubclass(value, op.Model)
    assert name in op.k8s.__all__


def test_every_exported_name_resolves() -> None:
    for name in op.k8s.__all__:
        assert getattr(op.k8s, name) is not None
    assert set(op.k8s.__all__) <= set(dir(op.k8s))
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        op.k8s.Nope  # noqa: B018


def test_value_types_are_opgens_own() -> None:
    assert op.k8s.ObjectMeta is op.ObjectMeta
    assert op.k8s.Quantity is op.Quantity and op.k8s.Time is op.Time
    assert op.k8s.Condition is op.Condition


def test_fields_are_snake_case_with_wire_aliases() -> None:
    port = op.k8s.ContainerPort(container_port=8080, host_ip="10.0.0.1")
    assert port.protocol == "TCP"  # the Go +default
    assert port.model_dump(by_alias=True, exclude_none=True) == {
        "containerPort": 8080,
        "hostIP": "10.0.0.1",
        "protocol": "TCP",
    }
    assert (
        op.k8s.ContainerPort.model_validate({"containerPort": 1, "hostIP": "x"}).host_ip
        == "x"
    )
    rule = op.k8s.NetworkPolicyIngressRule.model_validate(
        {"from": [{"podSelector": {}}]}
    )
    assert rule.from_ is not None and rule.from_[0].pod_selector is not None
    with pytest.raises(ValueError, match="name"):
        op.k8s.Container()  # type: ignore[call-arg]
