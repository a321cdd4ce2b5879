"""Inlining, memoisation, recursion, field-over-type precedence, marker placement and order."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import Field
from typing_extensions import TypeAliasType

import opgen.api as op
from opgen.errors import MarkerError, SchemaError
from opgen.schema import build_version_schema
from tests.schema.util import field, kind_of, spec_schema


class Shared(op.Model):
    """Shared type."""

    value: int = 0


def test_definitions_are_built_once_and_shared() -> None:
    class Spec(op.Model):
        a: Shared
        b: Shared

    props = spec_schema(Spec)["properties"]
    assert props["a"] is props["b"]


def test_a_field_with_its_own_docs_gets_a_copy() -> None:
    class Spec(op.Model):
        a: Shared
        b: Shared
        """Field doc."""

    props = spec_schema(Spec)["properties"]
    assert props["a"]["description"] == "Shared type."
    assert props["b"]["description"] == "Field doc."
    assert props["a"]["properties"] is props["b"]["properties"]


def test_no_internal_keys_or_refs_remain() -> None:
    class Spec(op.Model):
        a: Annotated[Shared, op.Nullable()] | None = None
        b: list[Shared] = []

    text = repr(build_version_schema(kind_of(Spec)).schema)
    assert "x-opgen" not in text
    assert "$ref" not in text and "$defs" not in text and "title" not in text


class Node(op.Model):
    name: str
    children: list[Node] = []


class Pair(op.Model):
    left: Branch | None = None


class Branch(op.Model):
    pair: Pair | None = None


def test_recursion_is_an_error_with_the_field_chain() -> None:
    class Spec(op.Model):
        tree: Node

    with pytest.raises(SchemaError) as raised:
        spec_schema(Spec)
    message = str(raised.value)
    assert "recursive type: Node.children refers back to Node" in message
    assert "Spec.tree → Node.children → Node)" in message
    assert "op.Schemaless()" in message
    assert (
        raised.value.location is not None and raised.value.location.field == "children"
    )


def test_mutual_recursion_is_found() -> None:
    class Spec(op.Model):
        start: Pair

    with pytest.raises(
        SchemaError, match=r"Spec.start → Pair.left → Branch.pair → Pair"
    ):
        spec_schema(Spec)


def test_schemaless_cuts_recursion() -> None:
    class Spec(op.Model):
        tree: Annotated[
            Node, op.Schemaless(), op.Type("object"), op.PreserveUnknownFields()
        ]
        """A tree."""

    assert field(Spec, "tree") == {
        "description": "A tree.",
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": True,
    }


Even = TypeAliasType(
    "Even",
    Annotated[str, op.Rule("self.size() % 2 == 0"), Field(description="Type doc.")],
)


def test_field_rules_come_before_type_rules() -> None:
    class Spec(op.Model):
        a: Annotated[Even, op.Rule("self.startsWith('x')"), op.Rule("true")] = ""

    rules = [rule["rule"] for rule in field(Spec, "a")["x-kubernetes-validations"]]
    assert rules == ["self.startsWith('x')", "true", "self.size() % 2 == 0"]


def test_type_description_shows_when_the_field_has_none() -> None:
    class Spec(op.Model):
        a: Even = ""
        b: Even = ""
        """Own doc."""

    props = spec_schema(Spec)["properties"]
    assert props["a"]["description"] == "Type doc."
    assert props["b"]["description"] == "Own doc."


def test_type_markers_run_before_the_others() -> None:
    class Spec(op.Model):
        # MaxLength is written first but needs the string type that Type sets.
        flag: Annotated[bool, op.MaxLength(5), op.Type("string")] | None = None

    assert field(Spec, "flag") == {"type": "string", "maxLength": 5}


def test_class_decorator_markers_apply_to_the_model() -> None:
    @op.MaxProperties(1)
    @op.Rule("true", message="first")
    @op.Rule("true", message="second")
    class Choice(op.Model):
        a: int | None = None

    class Spec(op.Model):
        choice: Choice

    node = field(Spec, "choice")
    assert node["maxProperties"] == 1
    assert [r["message"] for r in node["x-kubernetes-validations"]] == [
        "first",
        "second",
    ]


@pytest.mark.parametrize(
    ("annotation", "message"),
    [
        (
            Annotated[list[Annotated[int, op.Optional()]], op.MinItems(1)],
            "op.Optional() cannot stand on a type",
        ),
        (
            Annotated[int, op.AtMostOneOf("a", "b")],
            "op.AtMostOneOf('a', 'b') cannot stand on a model field",
        ),
        (Annotated[int, op.subresource_status()], "cannot stand on a model field"),
        (
            Annotated[str, op.ListType("set")],
            "op.ListType('set'): applies to lists, but this is string",
        ),
        (
            Annotated[list[str], op.ListMapKey("name")],
            "needs op.ListType('map') on the same list",
        ),
        (
            Annotated[dict[str, str], op.MinItems(1)],
            "applies to array values, but this is object",
        ),
        (
            Annotated[Shared, op.MapType("atomic"), op.Format("int32")],
            "formats apply to strings and numbers",
        ),
        (Annotated[int, op.Maximum(1.5)], "an integer field needs an integral bound"),
        (Annotated[str, op.Format("int32")], "is not a format for string values"),
        (
            Annotated[op.IntOrString, op.PreserveUnknownFields()],
            "cannot be combined with an int-or-string",
        ),
        (Annotated[str, op.EmbeddedResource()], "needs an object, but this is string"),
    ],
)
def test_marker_misuse_names_the_field(annotation: object, message: str) -> None:
    class Spec(op.Model):
        value: annotation  # type: ignore[valid-type]

    with pytest.raises(MarkerError) as raised:
        spec_schema(Spec)
    assert message in str(raised.value)
    assert raised.value.location is not None
    assert raised.value.location.cls is not None and raised.value.location.cls.endswith(
        "Spec"
    )
    assert raised.value.location.field == "value"


def test_unknown_metadata_is_refused() -> None:
    class Spec(op.Model):
        a: list[Annotated[int, "minimum=3"]] = []

    with pytest.raises(MarkerError, match="unknown marker 'minimum=3'"):
        spec_schema(Spec)


def test_immutable_on_an_optional_field_adds_a_parent_rule() -> None:
    class Spec(op.Model):
        namespace: Annotated[str, op.Immutable()] | None = None

    node = spec_schema(Spec)
    assert node["x-kubernetes-validations"] == [
        {
            "message": "field namespace is immutable once set",
            "rule": "!has(oldSelf.__namespace__) || has(self.__namespace__)",
        }
    ]


def test_required_and_optional_markers() -> None:
    class Spec(op.Model):
        a: Annotated[str | None, op.Required()] = None
        b: Annotated[str, op.Optional()]

    assert spec_schema(Spec)["required"] == ["a"]


def test_nullable_needs_a_type_that_admits_none() -> None:
    # The server would store null, which the model could not parse (tests/proof).
    class Spec(op.Model):
        note: Annotated[str, op.Nullable()] = "x"

    with pytest.raises(
        MarkerError, match=r"Spec\.note: op\.Nullable\(\): the API server"
    ):
        build_version_schema(kind_of(Spec))
