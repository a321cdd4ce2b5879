"""The reverse renderer knows every registered marker from the registry alone:
it writes each back as the call that makes it, and reads each keyword a marker
stands for back into that marker."""

from __future__ import annotations

from typing import Any

import pytest

from opgen import api as op
from opgen.api.registry import default_registry
from opgen.engine.markers import Marker, MarkerContext, Placement, SchemaNode
from opgen.errors import Location, SchemaError
from opgen.openapi.parse import EMBEDDED_OBJECT_META, UNDESCRIBED
from opgen.render.spelling import BY_KEYWORD, markers_for, spell

SAMPLES: tuple[tuple[Marker, SchemaNode], ...] = (
    (op.Minimum(0), {"type": "integer"}),
    (op.Maximum(2.5), {"type": "number"}),
    (op.ExclusiveMinimum(1), {"type": "integer"}),
    (op.ExclusiveMaximum(9), {"type": "integer"}),
    (op.MultipleOf(3), {"type": "integer"}),
    (op.MinLength(1), {"type": "string"}),
    (op.MaxLength(63), {"type": "string"}),
    (op.Pattern(r"^[a-z]\d*$"), {"type": "string"}),
    (op.Format("date-time"), {"type": "string"}),
    (op.Enum("a", "b"), {"type": "string"}),
    (op.MinItems(1), {"type": "array"}),
    (op.MaxItems(4), {"type": "array"}),
    (op.UniqueItems(), {"type": "array"}),
    (op.MinProperties(1), {"type": "object"}),
    (op.MaxProperties(8), {"type": "object"}),
    (op.Type("number"), {}),
    (op.Nullable(), {"type": "string"}),
    (op.OneOf({"required": ["a"]}, {"required": ["b"]}), {"type": "object"}),
    (op.AnyOf({"minimum": 1}), {"type": "integer"}),
    (op.AllOf({"minimum": 1}), {"type": "integer"}),
    (op.Not({"enum": [0]}), {"type": "integer"}),
    (op.InapplicableKeywords(maxLength=3), {"type": "array"}),
    (op.Required(), {"type": "string"}),
    (op.Optional(), {"type": "string"}),
    (op.Default({"a": [1]}), {"type": "object"}),
    (op.Example("x"), {"type": "string"}),
    (op.Title("Name"), {"type": "string"}),
    (op.Undescribed(), {"type": "object"}),
    (op.ExternalDocs("https://example.com", description="more"), {"type": "string"}),
    (op.EmbeddedResource(), {"type": "object"}),
    (op.EmbeddedObjectMeta(described=False), {"type": "object"}),
    (op.PreserveUnknownFields(), {"type": "object"}),
    (op.Schemaless(), {}),
    (op.ListType("map"), {"type": "array"}),
    (
        op.ListMapKey("name"),
        {
            "type": "array",
            "x-kubernetes-list-type": "map",
            "items": {"type": "object", "properties": {"name": {"type": "string"}}},
        },
    ),
    (op.MapType("atomic"), {"type": "object"}),
    (op.StructType("granular"), {"type": "object"}),
    (op.Items(op.MinLength(1), op.Pattern("^a")), {"type": "array"}),
    (
        op.Rule("self > 0", message="positive", reason="FieldValueInvalid"),
        {"type": "integer"},
    ),
    (op.Immutable(), {"type": "string"}),
    (op.AtMostOneOf("a", "b"), {"type": "object"}),
    (op.ExactlyOneOf("a", "b"), {"type": "object"}),
    (op.AtLeastOneOf("a", "b"), {"type": "object"}),
    (
        op.kind(group="example.com", version="v1", scope="Cluster", short_names=["w"]),
        {},
    ),
    (op.subresource_status(), {}),
    (op.subresource_scale(".spec.replicas", ".status.replicas"), {}),
    (op.print_column("Age", "date", ".metadata.creationTimestamp", priority=1), {}),
    (op.storage_version(), {}),
    (op.unserved_version(), {}),
    (op.deprecated_version(warning="use v2"), {}),
    (op.skip_version(), {}),
    (op.selectable_field(".spec.color"), {}),
    (op.crd_metadata(annotations={"a": "b"}), {}),
)


def _source(name: str, value: Any) -> str:
    return repr(value)


def test_every_registered_marker_has_a_sample() -> None:
    assert {type(marker) for marker, _ in SAMPLES} == set(default_registry())


def test_the_writing_order_names_registered_keyword_markers() -> None:
    from opgen.render.models import _ORDER, _WRITING_ORDER

    assert set(_WRITING_ORDER) <= set(default_registry())
    assert len(_ORDER) == len(_WRITING_ORDER)
    assert list(_ORDER.values()) == sorted(_ORDER.values())


@pytest.mark.parametrize(
    "marker", [marker for marker, _ in SAMPLES], ids=lambda m: m.marker_name()
)
def test_every_marker_is_spelled_as_the_call_that_makes_it(marker: Marker) -> None:
    written = spell(marker, _source)
    assert written.startswith(f"op.{marker.marker_name()}(")
    assert eval(written, {"op": op}) == marker


def test_a_call_leaves_out_what_it_defaults_and_names_its_options() -> None:
    assert spell(op.kind(group="g", version="v1"), _source) == (
        "op.kind(group='g', version='v1')"
    )
    assert spell(op.print_column("A", "string", ".a"), _source) == (
        "op.print_column(name='A', type='string', json_path='.a')"
    )
    assert spell(op.Rule("self > 0"), _source) == "op.Rule('self > 0')"


def _applied(marker: Marker, node: SchemaNode) -> SchemaNode:
    context = MarkerContext(location=Location(), placement=Placement.FIELD)
    return marker.apply(dict(node), context)


@pytest.mark.parametrize(
    ("marker", "node"),
    [
        (marker, node)
        for marker, node in SAMPLES
        if isinstance(getattr(marker, "keyword", None), str)
        and marker.marker_name() not in ("Default", "Undescribed", "EmbeddedObjectMeta")
    ],
    ids=lambda item: item.marker_name() if isinstance(item, Marker) else "",
)
def test_the_keywords_a_marker_writes_read_back_into_markers_that_write_them(
    marker: Marker, node: SchemaNode
) -> None:
    written = _applied(marker, node)
    facts = {k: v for k, v in written.items() if k not in ("type", "items")}
    what = "map" if marker.marker_name() == "MapType" else "node"
    read = [
        made
        for key, value in facts.items()
        if key in BY_KEYWORD
        for made in markers_for(key, value, facts, what, "Sample.field")
    ]
    assert read
    again = node
    for made in read:
        again = _applied(made, again)
    assert again == written


def test_the_facts_the_parser_recognises_read_back_into_their_markers() -> None:
    assert op.EmbeddedObjectMeta.keyword == EMBEDDED_OBJECT_META
    assert op.Undescribed.keyword == UNDESCRIBED
    for fact, marker in (
        (EMBEDDED_OBJECT_META, op.EmbeddedObjectMeta()),
        (UNDESCRIBED, op.Undescribed()),
    ):
        assert markers_for(fact, True, {fact: True}, "node", "S.f") == [marker]
        assert markers_for(fact, False, {fact: False}, "node", "S.f") == []


def test_a_keyword_no_marker_writes_is_an_error_naming_the_field() -> None:
    with pytest.raises(SchemaError, match=r"Sample\.field: no opgen marker writes"):
        markers_for("x-unknown", 1, {}, "node", "Sample.field")
