"""`opgen.engine.reading`: the one protocol the stages read markers through."""

from __future__ import annotations

import importlib
from typing import Annotated

from typing_extensions import TypeAliasType

import opgen.api as op
from opgen.engine import reading
from opgen.engine.markers import MarkerCollector
from opgen.schema.generator import KubeJsonSchema

Name = TypeAliasType("Name", Annotated[str, op.MinLength(1), op.MaxLength(63)])


class Spec(op.Model):
    name: Annotated[Name, op.Pattern("^[a-z]+$")]
    count: int = 0


@op.kind(group="reading.example.com", version="v1")
class Thing(op.CustomResource[Spec, None]):
    pass


def test_field_markers_are_the_fields_then_its_named_types() -> None:
    markers = reading.field_markers(Spec.model_fields["name"])
    assert markers == (op.Pattern("^[a-z]+$"), op.MinLength(1), op.MaxLength(63))
    assert reading.field_markers(Spec.model_fields["count"]) == ()


def test_is_custom_resource() -> None:
    assert reading.is_custom_resource(op.CustomResource)
    assert reading.is_custom_resource(Thing)
    assert not reading.is_custom_resource(Spec)
    assert not reading.is_custom_resource(Thing(spec=Spec(name="a")))
    assert not reading.is_custom_resource(dict)


def test_the_loader_and_the_runtime_read_kinds_through_the_same_function() -> None:
    # (`opgen.load.discover` the attribute is the function of that name.)
    loader = importlib.import_module("opgen.load.discover")
    runtime = importlib.import_module("opgen.runtime.resources")
    assert loader.resource_info is reading.resource_info
    assert runtime.resource_info is reading.resource_info
    assert runtime.resource_type(Thing).plural == "things"


def test_the_schema_generator_is_a_marker_collector() -> None:
    assert isinstance(KubeJsonSchema(), MarkerCollector)
    assert not isinstance(object(), MarkerCollector)


def test_markers_reach_the_collector_and_not_a_plain_pydantic_generator() -> None:
    # Whether a generator collects markers is decided once per generator class:
    # each class keeps its own answer, whichever asks first.
    plain = Spec.model_json_schema()
    generator = KubeJsonSchema()
    generator.generate(Spec.__pydantic_core_schema__)
    assert {type(p.marker) for p in generator.pending} == {
        op.Pattern,
        op.MinLength,
        op.MaxLength,
    }
    assert Spec.model_json_schema() == plain
    assert "x-opgen-markers" not in str(plain)
