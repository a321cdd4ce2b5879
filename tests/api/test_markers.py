"""Markers refuse bad arguments when written, and the registry knows them all."""

from __future__ import annotations

from typing import Any

import pytest

import opgen.api as op
from opgen.api.registry import default_registry
from opgen.engine.markers import Marker, Placement
from opgen.engine.reading import type_markers
from opgen.engine.registry import MarkerRegistry
from opgen.errors import MarkerError


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: op.MinLength(-1), "expected a non-negative integer"),
        (lambda: op.MaxItems(1.5), "expected a non-negative integer"),  # type: ignore[arg-type]
        (lambda: op.Minimum("1"), "the bound must be a number"),  # type: ignore[arg-type]
        (lambda: op.Maximum(float("inf")), "must be finite"),
        (lambda: op.MultipleOf(0), "must be greater than 0"),
        (lambda: op.Pattern("(unclosed"), "not a valid regular expression"),
        (lambda: op.Pattern(r"(a)\1"), "back-references"),
        (lambda: op.Format("color"), "does not know this format"),
        (lambda: op.Enum(), "give at least one value"),
        (lambda: op.Enum([1, object()]), "is not a JSON scalar"),
        (lambda: op.Type("float"), "must be one of string, number"),
        (lambda: op.ListType("bag"), "must be one of atomic, set, map"),
        (lambda: op.MapType("deep"), "must be one of granular, atomic"),
        (lambda: op.StructType("flat"), "must be one of granular, atomic"),
        (lambda: op.ExternalDocs("docs/page"), "not an absolute URL"),
        (lambda: op.Title(3), "the title must be a string"),  # type: ignore[arg-type]
        (lambda: op.Items(), "give at least one marker"),
        (lambda: op.Items(op.MinLength), "call the marker"),  # type: ignore[arg-type]
        (lambda: op.Items("x"), "not an opgen marker"),  # type: ignore[arg-type]
        (lambda: op.Items(op.Required()), "cannot stand on list items"),
        (lambda: op.Rule(""), "non-empty CEL expression"),
        (lambda: op.Rule("true", message=" "), "message must not be blank"),
        (lambda: op.Rule("a &&\nb"), "needs a message="),
        (lambda: op.Rule("true", reason="Oops"), "is not one the API server accepts"),
        (
            lambda: op.Rule("true", optional_old_self=True),
            "only makes sense when the rule uses oldSelf",
        ),
        (lambda: op.AtMostOneOf("a"), "name at least two fields"),
        (lambda: op.ExactlyOneOf("a", "b.c"), "is a nested path"),
        (lambda: op.kind(group="", version="v1"), "group= must be a non-empty string"),
        (lambda: op.kind(group="a.b", version="v1", scope="Global"), "must be 'Namespaced' or 'Cluster'"),  # type: ignore[arg-type]
        (
            lambda: op.kind(group="a.b", version="v1", short_names="ab"),
            "give a list of names",
        ),
        (lambda: op.crd_metadata(labels={"a": 1}), "must map a string to a string"),  # type: ignore[dict-item]
        (lambda: op.Default(object()), "not JSON-serialisable"),
        (lambda: op.Example(object()), "op.Example.*not JSON-serialisable"),
        (lambda: op.MultipleOf(0), "must be greater than 0"),
        (lambda: op.MinItems(-1), "op.MinItems.*non-negative integer"),
        (lambda: op.Maximum(float("inf")), "op.Maximum.*must be finite"),
    ],
)
def test_bad_arguments(make: Any, message: str) -> None:
    with pytest.raises(MarkerError, match=message):
        make()


def test_display_is_how_the_marker_is_written() -> None:
    assert op.MinLength(3).display() == "op.MinLength(3)"
    assert op.Enum("a", 1).display() == "op.Enum('a', 1)"
    assert (
        op.Items(op.MinLength(1), op.Pattern("^a")).display()
        == "op.Items(op.MinLength(1), op.Pattern('^a'))"
    )
    assert op.Rule("true", message="m").display() == "op.Rule('true', 'm')"
    assert op.subresource_status().display() == "@op.subresource_status()"


def test_markers_are_hashable_values() -> None:
    assert op.Default({"a": [1]}) == op.Default({"a": [1]})
    assert hash(op.Default({"a": [1]})) == hash(op.Default({"a": [1]}))
    assert len({op.MinLength(1), op.MinLength(1), op.MaxLength(1)}) == 2
    assert op.Default(1) != op.Example(1)


def test_the_registry_lists_every_public_marker_once() -> None:
    registry = default_registry()
    public = {
        value
        for name in op.__all__
        if isinstance(value := getattr(op, name), type)
        and issubclass(value, Marker)
        and value is not Marker
    }
    assert public <= set(registry.markers)
    assert len(registry.where(Placement.KIND)) == 10
    assert registry.by_name("MinLength") is op.MinLength
    assert registry.help()["Minimum"].startswith("The value must be >=")
    assert op.MinLength(1) in registry
    with pytest.raises(ValueError, match="registered twice"):
        MarkerRegistry(markers=(op.MinLength, op.MinLength))


def test_decorators_record_in_source_order_and_are_not_inherited() -> None:
    @op.Rule("true", message="first")
    @op.Rule("true", message="second")
    class Base(op.Model):
        a: int = 0

    class Child(Base):
        pass

    assert [m.message for m in type_markers(Base)] == ["first", "second"]  # type: ignore[attr-defined]
    assert type_markers(Child) == ()


def test_class_decorators_need_a_model() -> None:
    with pytest.raises(MarkerError, match="decorates Pydantic models"):
        op.MinProperties(1)(int)
    with pytest.raises(MarkerError, match=r"decorates op\.CustomResource subclasses"):
        op.subresource_status()(op.Model)
