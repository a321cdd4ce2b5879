"""core/v1 written in part modules: what a program loads, and every name reachable."""

from __future__ import annotations

import inspect
import pickle

import pytest

import opgen.api as op
import opgen.api.k8s.core_v1 as core_v1
from opgen.errors import SchemaError
from opgen.model.kinds import BuiltinResource
from opgen.model.openapi import FieldDecl, ModelDecl, ModelRef, ModelSet, Node
from opgen.render.core_parts import _check_acyclic, split_core
from tests.fresh import in_fresh_interpreter

_CORE = "opgen.api.k8s.core_v1"


def test_config_map_makes_its_part_alone() -> None:
    code = (
        "import sys, opgen.api as op\n"
        "op.k8s.ConfigMap(data={'a': 'b'})\n"
        "print(sorted(m for m in sys.modules if m.startswith('opgen.api.k8s')))\n"
    )
    assert in_fresh_interpreter(code) == (
        "['opgen.api.k8s', 'opgen.api.k8s._core_v1_config_map', "
        "'opgen.api.k8s.core_v1']"
    )


def test_a_workload_loads_the_pod_spec_part_and_not_the_pod_one() -> None:
    code = (
        "import sys, opgen.api as op\n"
        "op.k8s.Deployment\n"
        "loaded = set(sys.modules)\n"
        "print('opgen.api.k8s._core_v1_pod_spec' in loaded,"
        " 'opgen.api.k8s._core_v1_pod' in loaded,"
        " 'opgen.api.k8s._core_v1_service' in loaded)\n"
    )
    assert in_fresh_interpreter(code) == "True False False"


def test_every_name_of_the_module_is_reachable_from_it_and_from_op_k8s() -> None:
    code = (
        "import opgen.api as op\n"
        "import opgen.api.k8s.core_v1 as core_v1\n"
        "for name in core_v1.__all__:\n"
        "    namespace = {}\n"
        "    exec(f'from opgen.api.k8s.core_v1 import {name} as value', namespace)\n"
        "    assert namespace['value'] is getattr(core_v1, name), name\n"
        "    if op.k8s._HOMES.get(name) == 'core_v1':\n"
        "        assert getattr(op.k8s, name) is namespace['value'], name\n"
        "print(len(core_v1.__all__))\n"
    )
    assert int(in_fresh_interpreter(code)) == len(core_v1.__all__)


def test_every_class_is_defined_in_the_part_that_holds_it() -> None:
    classes = [
        value
        for name in core_v1.__all__
        if inspect.isclass(value := getattr(core_v1, name))
    ]
    assert len(classes) > 200
    for cls in classes:
        module = cls.__module__
        assert module.startswith("opgen.api.k8s._core_v1_"), cls
        assert getattr(__import__(module, fromlist=["_"]), cls.__qualname__) is cls


def test_a_core_object_pickles_and_reprs() -> None:
    pod = op.k8s.Pod.model_validate(
        {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}}
    )
    assert pickle.loads(pickle.dumps(pod)) == pod
    assert repr(pod).startswith("Pod(")


def test_unknown_names_raise_attribute_error() -> None:
    with pytest.raises(AttributeError, match="Nope"):
        core_v1.Nope  # noqa: B018
    assert "ConfigMap" in dir(core_v1)


def _model(name: str, *refs: str, module: str = _CORE, kind: bool = False) -> ModelDecl:
    fields = tuple(
        FieldDecl(name=ref.lower(), wire_name=ref.lower(), node=Node(ModelRef(ref)))
        for ref in refs
    )
    builtin = (
        BuiltinResource(
            group="", version="v1", kind=name, plural=name.lower(), namespaced=True
        )
        if kind
        else None
    )
    return ModelDecl(key=name, name=name, module=module, fields=fields, builtin=builtin)


def _set(*models: ModelDecl) -> ModelSet:
    return ModelSet(models={m.key: m for m in models})


def test_classes_are_split_by_the_roots_that_reach_them() -> None:
    split = split_core(
        _set(
            _model("Pod", "PodSpec", kind=True),
            _model("PodSpec", "Container", "Volume"),
            _model("Container"),
            _model("Volume", "NFSVolumeSource", "HostPathVolumeSource"),
            _model("NFSVolumeSource"),
            _model("HostPathVolumeSource"),
            _model(
                "PersistentVolume", "NFSVolumeSource", "HostPathVolumeSource", kind=True
            ),
            _model("ConfigMap", kind=True),
            _model("Unreached"),
            _model("Deployment", "PodTemplateSpec", module="opgen.api.k8s.apps_v1"),
            _model("PodTemplateSpec", "PodSpec"),
        ),
        _CORE,
    )
    assert split.homes == {
        "ConfigMap": "opgen.api.k8s._core_v1_config_map",
        "Container": "opgen.api.k8s._core_v1_pod_spec",
        "HostPathVolumeSource": "opgen.api.k8s._core_v1_volume_sources",
        "NFSVolumeSource": "opgen.api.k8s._core_v1_volume_sources",
        "PersistentVolume": "opgen.api.k8s._core_v1_persistent_volume",
        "Pod": "opgen.api.k8s._core_v1_pod",
        "PodSpec": "opgen.api.k8s._core_v1_pod_spec",
        "PodTemplateSpec": "opgen.api.k8s._core_v1_pod_template_spec",
        "Unreached": "opgen.api.k8s._core_v1_unreached",
        "Volume": "opgen.api.k8s._core_v1_pod_spec",
    }
    assert split.models.models["Deployment"].module == "opgen.api.k8s.apps_v1"
    assert split.models.models["PodSpec"].module == "opgen.api.k8s._core_v1_pod_spec"


def test_a_reference_to_a_part_that_does_not_come_after_is_an_error() -> None:
    # split_core's signatures always hold (a class's roots reach what it refers
    # to); the check guards the rule the parts' imports rely on.
    models = {"A": _model("A", "B"), "B": _model("B")}
    signatures = {"A": frozenset({"A"}), "B": frozenset({"B"})}
    with pytest.raises(SchemaError, match="does not come after its own"):
        _check_acyclic({"A", "B"}, dict(models), signatures)
