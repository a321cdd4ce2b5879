"""op.Model and op.CustomResource behave like Kubernetes objects."""

from __future__ import annotations

import copy

import pytest
from pydantic import Field, ValidationError

import opgen.api as op
from tests.schema.util import field


class Spec(op.Model):
    """Spec doc."""

    worker_replicas: int = 0
    """Number of workers."""
    log_url: str | None = Field(default=None, alias="logURL")


class Status(op.Model):
    ready: bool = False


@op.kind(group="example.com", version="v1")
class Widget(op.CustomResource[Spec, Status]):
    """A widget."""


def test_camel_case_on_the_wire_snake_case_in_python() -> None:
    spec = Spec.model_validate({"workerReplicas": 2, "logURL": "x"})
    assert spec.worker_replicas == 2 and spec.log_url == "x"
    assert Spec(worker_replicas=3).worker_replicas == 3
    assert spec.model_dump() == {"workerReplicas": 2, "logURL": "x"}


def test_attribute_docstrings_are_the_crd_s_descriptions_not_read_at_import() -> None:
    # The generator reads them from the source; importing the types (as an
    # operator does at every start) leaves them alone.
    assert field(Spec, "workerReplicas")["description"] == "Number of workers."
    assert Spec.model_fields["worker_replicas"].description is None


def test_unknown_fields_are_ignored() -> None:
    assert (
        Spec.model_validate(
            {"workerReplicas": 1, "fromTheFuture": True}
        ).worker_replicas
        == 1
    )


def test_api_version_and_kind_come_from_the_kind() -> None:
    widget = Widget(spec=Spec())
    assert widget.api_version == "example.com/v1" and widget.kind == "Widget"
    assert widget.metadata == op.ObjectMeta()
    assert widget.status is None


def test_wire_and_apply_forms() -> None:
    widget = Widget(
        spec=Spec(worker_replicas=2), metadata=op.ObjectMeta(name="w", namespace="ns")
    )
    assert widget.model_dump(mode="json", by_alias=True, exclude_none=True) == {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "ns"},
        "spec": {"workerReplicas": 2},
    }
    assert widget.model_dump(mode="json", by_alias=True, exclude_unset=True) == {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "ns"},
        "spec": {"workerReplicas": 2},
    }


def test_decoding_a_server_object() -> None:
    widget = Widget.model_validate(
        {
            "apiVersion": "example.com/v1",
            "kind": "Widget",
            "metadata": {
                "name": "w",
                "resourceVersion": "7",
                "managedFields": [{"manager": "x"}],
            },
            "spec": {"workerReplicas": 1},
            "status": {"ready": True},
        }
    )
    assert widget.metadata.resource_version == "7"
    assert widget.status is not None and widget.status.ready


def test_spec_is_required_unless_optional() -> None:
    with pytest.raises(ValidationError):
        Widget()  # type: ignore[call-arg]

    @op.kind(group="example.com", version="v1")
    class Loose(op.CustomResource[Spec | None, None]):
        pass

    # opgen's typing cannot see that an optional spec defaults to None.
    assert Loose().spec is None  # type: ignore[call-arg]
    assert "status" not in Loose.model_fields


def test_no_spec_no_status() -> None:
    @op.kind(group="example.com", version="v1")
    class Bare(op.CustomResource[None, None]):
        pass

    assert set(Bare.model_fields) == {"api_version", "kind", "metadata"}


def test_parametrisation_is_cached_and_checked() -> None:
    assert op.CustomResource[Spec, Status] is op.CustomResource[Spec, Status]
    with pytest.raises(TypeError):
        op.CustomResource[Spec]  # type: ignore[misc]


class Tree(op.Model):
    labels: dict[str, str] = {}
    items: list[Spec] = []
    args: list[list[str]] = []


def test_a_deep_copy_shares_nothing_mutable_and_keeps_shared_references() -> None:
    shared = ["a", "b"]
    tree = Tree(labels={"x": "1"}, items=[Spec(worker_replicas=1)])
    tree.args = [shared, shared]
    tree.items[0].log_url = "u"
    copied = tree.model_copy(deep=True)
    assert copied == tree
    assert copied.model_fields_set == tree.model_fields_set
    copied.labels["y"] = "2"
    copied.items[0].worker_replicas = 5
    copied.args[0].append("c")
    assert tree.labels == {"x": "1"}
    assert tree.items[0].worker_replicas == 1 and tree.items[0].log_url == "u"
    assert shared == ["a", "b"]
    assert copied.args[1] == ["a", "b", "c"]  # one list twice stays one list
    assert copy.deepcopy(tree) == tree


def test_a_built_in_class_with_nothing_to_enforce_is_built_without_the_check() -> None:
    # `_opgen_markers` would run for every instance and do nothing; a class
    # with markers keeps it.
    port = op.k8s.ContainerPort(name="gcs", container_port=6379)
    assert port.container_port == 6379
    assert "_opgen_markers" not in (
        op.k8s.ContainerPort.__pydantic_decorators__.model_validators
    )
    with pytest.raises(ValidationError, match="Duplicate value"):
        op.k8s.Container(name="ray", env=[{"name": "A"}, {"name": "A"}])


def test_a_subclass_of_a_built_in_class_built_without_the_check_keeps_its_own() -> None:
    op.k8s.LabelSelector(match_labels={"a": "b"})  # built, without the check
    assert "_opgen_markers" not in (
        op.k8s.LabelSelector.__pydantic_decorators__.model_validators
    )

    @op.MinProperties(1)
    class Selector(op.k8s.LabelSelector):
        pass

    Selector(match_labels={"a": "b"})
    with pytest.raises(ValidationError, match="at least 1 properties"):
        Selector()


def test_a_user_model_with_nothing_to_enforce_is_built_without_the_check() -> None:
    class Port(op.Model):
        number: int = 0

    class Ports(op.Model):
        ports: list[Port] = []

    # Port is first used inside Ports' schema, Ports by its first instance.
    assert Ports(ports=[{"number": 1}]).ports[0].number == 1
    for built in (Port, Ports):
        assert "_opgen_markers" not in built.__pydantic_decorators__.model_validators
        assert "_opgen_markers" not in str(built.__pydantic_core_schema__)
        assert "_opgen_markers" not in repr(built.__pydantic_validator__)


def test_a_marker_a_decorator_adds_to_a_user_model_is_enforced() -> None:
    # The class statement ends before its decorators run: the check is
    # decided when the class is first used, markers and rules known by then.
    @op.MinProperties(1)
    class Selector(op.Model):
        name: str | None = None

    @op.Rule("self.low <= self.high", message="low <= high")
    class Bounds(op.Model):
        low: int = 0
        high: int = 0

    class Holder(op.Model):
        selector: Selector | None = None
        bounds: Bounds | None = None

    Holder(selector={"name": "a"}, bounds={"low": 1, "high": 2})
    with pytest.raises(ValidationError, match="at least 1 properties"):
        Holder(selector={})
    with pytest.raises(ValidationError, match="low <= high"):
        Holder(bounds={"low": 2, "high": 1})
    with pytest.raises(ValidationError, match="at least 1 properties"):
        Selector()
    for checked in (Selector, Bounds):
        assert "_opgen_markers" in checked.__pydantic_decorators__.model_validators
        assert "_opgen_markers" in str(checked.__pydantic_core_schema__)
        assert "_opgen_markers" in repr(checked.__pydantic_validator__)


def test_a_user_model_built_again_without_the_check_validates_and_dumps_alike() -> None:
    class Inner(op.Model):
        log_url: str | None = Field(default=None, alias="logURL")

    class Outer(op.Model):
        inner: Inner | None = None
        items: list[Inner] = []

    first = Outer.model_validate({"inner": {"logURL": "x"}, "items": [{}]})
    assert "_opgen_markers" not in repr(Outer.__pydantic_validator__)
    again = Outer.model_validate({"inner": {"logURL": "x"}, "items": [{}]})
    assert again == first
    assert again.model_dump(exclude_none=True) == {
        "inner": {"logURL": "x"},
        "items": [{}],
    }
    assert Outer.model_json_schema()["title"] == "Outer"
    with pytest.raises(ValidationError):
        Outer.model_validate({"items": "not a list"})
