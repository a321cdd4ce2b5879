"""`prepare_models`: the validators a session's tests will use, built at its start."""

from __future__ import annotations

import json
import sys
import types

import opgen.api as op
from opgen.api._model import BuiltinModel
from opgen.testing.prepared import (
    named_models,
    prepare_models,
    prepare_runtime,
    project_modules,
    runtime_kinds,
)


def _module(**members: object) -> types.ModuleType:
    module = types.ModuleType("tests_named_models")
    for name, value in members.items():
        setattr(module, name, value)
    return module


def _module_of(name: str, source: str) -> types.ModuleType:
    """A module made by running `source`, as if imported from `<name>.py`."""
    module = types.ModuleType(name)
    exec(compile(source, f"{name}.py", "exec"), vars(module))
    return module


def test_a_named_model_whose_validator_waits_for_its_first_use_is_built() -> None:
    class Gauge(BuiltinModel):
        reading: int = 0

    assert Gauge.__pydantic_complete__ is False
    prepared = prepare_models([_module(Gauge=Gauge)])
    assert Gauge.__pydantic_complete__ is True
    assert prepared == 1
    assert Gauge.model_validate({"reading": 3}).reading == 3


def test_only_opgen_models_count_once_each_and_kinds_are_decoded_after() -> None:
    first = _module(ConfigMap=op.k8s.ConfigMap, meta=op.ObjectMeta, dumps=json.dumps)
    second = _module(Again=op.k8s.ConfigMap, number=3, models=op)
    assert prepare_models([first, second]) == 2
    decoded = op.k8s.ConfigMap.model_validate({"data": {"a": "b"}})
    assert decoded.data == {"a": "b"}


def test_a_kind_that_a_near_empty_object_does_not_satisfy_is_still_prepared() -> None:
    # a kind of opgen's test kinds with a required spec: the decode that builds
    # its decoder fails, and preparing goes on
    from tests.webhook.kinds_v1 import Pet

    assert prepare_models([_module(Pet=Pet, Namespace=op.k8s.Namespace)]) == 2


def test_the_project_modules_are_those_of_its_package_imported_so_far() -> None:
    found = {m.__name__ for m in project_modules("opgen.testing")}
    assert {"opgen.testing", "opgen.testing.prepared"} <= found
    assert all(n == "opgen.testing" or n.startswith("opgen.testing.") for n in found)
    assert "opgen.testing_other" not in found
    assert project_modules(None) == []
    assert project_modules("") == []


def test_the_k8s_models_a_module_reads_from_opgen_api_are_prepared() -> None:
    source = (
        "import opgen.api as op\n"
        "def ports():\n"
        "    return [op.k8s.ServicePort(port=80), op.k8s.PodDNSConfigOption()]\n"
        "class Children:\n"
        "    def spec(self):\n"
        "        return op.k8s.ServiceSpec()\n"
        "unread = 'Deployment'\n"
    )
    module = _module_of("tests_k8s_reader", source)
    named = named_models([module])
    assert set(named) == {
        op.k8s.ServicePort,
        op.k8s.PodDNSConfigOption,
        op.k8s.ServiceSpec,
    }
    assert prepare_models([module]) == 3
    assert op.k8s.PodDNSConfigOption.__pydantic_complete__ is True
    # a module that holds neither opgen.api nor its k8s reads none of them
    assert named_models([_module(ServicePort=3)]) == []


def test_the_runtime_kinds_are_prepared_with_the_named_ones() -> None:
    from opgen.api.k8s.events_v1 import Event

    assert runtime_kinds() == [Event]
    assert prepare_models([_module(ConfigMap=op.k8s.ConfigMap)]) == 1
    assert Event.__pydantic_complete__ is True


def test_the_parts_of_the_runtime_a_module_names_are_loaded() -> None:
    source = (
        "from opgen import runtime as rt\n"
        "def reconcile(obj):\n"
        "    return [rt.finalizers.ensure(obj, 'f') for _ in ()]\n"
        "class Reconciler:\n"
        "    async def run(self):\n"
        "        await rt.create_or_update(None, None, None)\n"
        "    unrelated = 'status'\n"
    )
    module = _module_of("tests_runtime_user", source)
    assert prepare_runtime([module]) == {"finalizers", "create_or_update"}
    assert "opgen.runtime.finalizers" in sys.modules
    assert "opgen.runtime.writes" in sys.modules
    # a module that does not hold the runtime names none of it
    assert prepare_runtime([_module(status=3)]) == set()


def test_a_class_whose_dict_grows_while_read_is_read_whole() -> None:
    source = (
        "import opgen.api as op\n"
        "class Holder:\n"
        "    def read(self):\n"
        "        return op.k8s.ServicePort\n"
    )
    module = _module_of("tests_growing_class", source)

    class Growing:
        """A member that adds to its class's dict when looked at, as resolving a
        Pydantic lazy class attribute (or a model built meanwhile) does."""

        def __getattr__(self, name: str) -> object:
            setattr(module.Holder, f"grown_{name}", 1)
            raise AttributeError(name)

    module.Holder.lazy = Growing()
    assert named_models([module]) == [op.k8s.ServicePort]
