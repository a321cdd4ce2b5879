"""The OpenAPI → IR → module stage: a CRD schema read, rendered and generated again.

`read_schema` reads an inline openAPIV3Schema (as `opgen import` will), the
renderer writes op.Model classes with markers, and opgen's own CRD generator
must give the schema back: every keyword survives the round trip.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

import opgen.api as op
from opgen.errors import SchemaError
from opgen.model.openapi import (
    FieldDecl,
    KnownType,
    ListOf,
    MapOf,
    ModelDecl,
    ModelRef,
    ModelSet,
    Node,
    Scalar,
)
from opgen.openapi import Placement, read_components, read_schema, snake_case
from opgen.render.models import render_module
from opgen.schema import build_version_schema

SCHEMA: dict[str, Any] = {
    "description": "Widget is the Schema for the widgets API.",
    "type": "object",
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": {
            "description": "What a widget wants.",
            "type": "object",
            "required": ["image", "ports"],
            "x-kubernetes-validations": [
                {
                    "rule": "self.minReplicas <= self.maxReplicas",
                    "message": "min must not exceed max",
                    "fieldPath": ".minReplicas",
                    "reason": "FieldValueInvalid",
                }
            ],
            "properties": {
                "image": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 255,
                    "pattern": "^[a-z0-9./:-]+$",
                },
                "minReplicas": {"type": "integer", "format": "int32", "minimum": 0},
                "maxReplicas": {
                    "type": "integer",
                    "format": "int64",
                    "maximum": 100,
                    "exclusiveMaximum": True,
                    "default": 10,
                },
                "mode": {"type": "string", "enum": ["Fast", "Safe"], "default": "Safe"},
                "hostIP": {"type": "string", "description": "The host's address."},
                "ports": {
                    "type": "array",
                    "maxItems": 16,
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name", "protocol"],
                    "items": {
                        "type": "object",
                        "required": ["name"],
                        "properties": {
                            "name": {"type": "string"},
                            "protocol": {"type": "string", "default": "TCP"},
                            "port": {
                                "anyOf": [{"type": "integer"}, {"type": "string"}],
                                "x-kubernetes-int-or-string": True,
                            },
                        },
                    },
                },
                "resources": {
                    "type": "object",
                    "additionalProperties": {
                        "anyOf": [{"type": "integer"}, {"type": "string"}],
                        "pattern": op.Quantity.__metadata__[1].schema["pattern"],  # type: ignore[attr-defined]
                        "x-kubernetes-int-or-string": True,
                    },
                },
                "labels": {
                    "type": "object",
                    "additionalProperties": {"type": "string"},
                    "x-kubernetes-map-type": "atomic",
                },
                "tags": {
                    "type": "array",
                    "items": {"type": "string", "minLength": 1},
                    "x-kubernetes-list-type": "set",
                },
                "since": {"type": "string", "format": "date-time"},
                "raw": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "anything": {"x-kubernetes-preserve-unknown-fields": True},
                "note": {"type": "string", "nullable": True},
                "target": {
                    "type": "object",
                    "x-kubernetes-map-type": "atomic",
                    "properties": {"name": {"type": "string", "default": ""}},
                },
            },
        },
    },
}


def _place(key: str) -> Placement:
    names = {
        "Widget": "Widget",
        "Widget.spec": "WidgetSpec",
        "Widget.spec.ports[*]": "WidgetPort",
        "Widget.spec.target": "WidgetTarget",
    }
    return Placement(module="widgets_v1", name=names[key])


def _load(source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    path = tmp_path / "widgets_v1.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("widgets_v1", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Forward references between the classes resolve through the module.
    monkeypatch.setitem(sys.modules, "widgets_v1", module)
    spec.loader.exec_module(module)
    return module


def test_the_ir_keeps_every_keyword() -> None:
    models = read_schema(SCHEMA["properties"]["spec"], "Widget.spec", place=_place)
    spec = models.models["Widget.spec"]
    fields = {f.wire_name: f for f in spec.fields}
    assert fields["hostIP"].name == "host_ip"
    assert fields["image"].required and not fields["mode"].required
    assert fields["image"].node.facts == (
        ("maxLength", 255),
        ("minLength", 1),
        ("pattern", "^[a-z0-9./:-]+$"),
    )
    assert fields["minReplicas"].node.shape == Scalar("integer", "int32")
    ports = fields["ports"].node
    assert isinstance(ports.shape, ListOf)
    assert isinstance(ports.shape.item.shape, ModelRef)
    assert ports.fact("x-kubernetes-list-map-keys") == ["name", "protocol"]
    resources = fields["resources"].node.shape
    assert isinstance(resources, MapOf) and resources.value.shape == KnownType(
        "Quantity"
    )
    assert fields["since"].node.shape == KnownType("Time")
    assert fields["raw"].node.shape == KnownType("RawExtension")
    assert fields["anything"].node.shape == KnownType("JSON")
    assert spec.fact("x-kubernetes-validations")[0]["reason"] == "FieldValueInvalid"


def test_read_render_generate_gives_the_schema_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    models = read_schema(SCHEMA["properties"]["spec"], "Widget.spec", place=_place)
    (module,) = models.modules()
    source = render_module(module, models, header="A round-trip test.")
    compile(source, "widgets_v1.py", "exec")
    widgets = _load(source, tmp_path, monkeypatch)
    widget_spec: Any = widgets.WidgetSpec

    @op.kind(group="widgets.opgen.dev", version="v1")
    class Widget(op.CustomResource[widget_spec, None]):
        """Widget is the Schema for the widgets API."""

    schema = build_version_schema(Widget).schema
    spec = SCHEMA["properties"]["spec"]
    assert schema["properties"]["spec"] == spec
    # The models validate like the schema says.
    good = widgets.WidgetSpec(
        image="nginx", min_replicas=1, ports=[{"name": "http", "port": "http"}]
    )
    assert good.mode == "Safe" and good.ports[0].protocol == "TCP"
    # The rule reads minReplicas unguarded: without it, the server (and the
    # models) answer "no such key".
    with pytest.raises(ValueError, match="no such key: minReplicas"):
        widgets.WidgetSpec(image="nginx", ports=[])
    with pytest.raises(ValueError):
        widgets.WidgetSpec(image="", ports=[])


def test_snake_case_names() -> None:
    assert [
        snake_case(n)
        for n in (
            "hostIP",
            "podIPs",
            "targetCPUUtilizationPercentage",
            "from",
            "Paused",
            "schema",
            "x-y",
            "v1beta1",
        )
    ] == [
        "host_ip",
        "pod_ips",
        "target_cpu_utilization_percentage",
        "from_",
        "paused",
        "schema_",
        "x_y",
        "v1beta1",
    ]


def test_components_follow_refs_and_known_types() -> None:
    definitions: dict[str, dict[str, Any]] = {
        "a.Outer": {
            "type": "object",
            "properties": {
                "inner": {
                    "allOf": [{"$ref": "#/components/schemas/a.Inner"}],
                    "description": "The inner one.",
                },
                "when": {"$ref": "#/components/schemas/a.Time"},
            },
        },
        "a.Inner": {
            "type": "object",
            "description": "Inner.",
            "properties": {"x": {"type": "boolean"}},
        },
        "a.Time": {"type": "string", "format": "date-time"},
    }
    models = read_components(
        definitions,
        ["a.Outer"],
        place=lambda key: Placement("m", key.split(".")[-1]),
        known={"a.Time": "Time"},
    )
    assert sorted(models.models) == ["a.Inner", "a.Outer"]
    inner, when = models.models["a.Outer"].fields
    assert inner.node.shape == ModelRef("a.Inner")
    assert inner.node.description == "The inner one."
    assert when.node.shape == KnownType("Time")


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        (
            {"type": "object", "properties": {"a": {"type": "array"}}},
            "an array without items",
        ),
        ({"type": "object", "properties": {"a": {"type": "thing"}}}, "unknown type"),
        (
            {
                "type": "object",
                "required": ["b"],
                "properties": {"a": {"type": "string"}},
            },
            "not properties",
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"$ref": "#/components/schemas/missing"}},
            },
            "not defined",
        ),
    ],
)
def test_bad_schemas_are_refused_with_the_path(
    schema: dict[str, Any], message: str
) -> None:
    with pytest.raises(SchemaError, match=message):
        read_schema(
            schema, "Bad", place=lambda key: Placement("m", key.replace(".", "_"))
        )


def test_a_keyword_without_a_marker_is_refused() -> None:
    models = read_schema(
        {"type": "object", "properties": {"a": {"type": "string", "x-unknown": 1}}},
        "Odd",
        place=lambda key: Placement("m", "Odd"),
    )
    (module,) = models.modules()
    with pytest.raises(SchemaError, match="no opgen marker writes 'x-unknown'"):
        render_module(module, models, header="")


def _tree_models() -> ModelSet:
    """`Tree` refers to `Leaf` and to itself; `Apple` refers to `Tree`."""

    def model(name: str, **fields: Node) -> ModelDecl:
        return ModelDecl(
            key=name,
            name=name,
            module="trees_v1",
            fields=tuple(
                FieldDecl(name=wire, wire_name=wire, node=node)
                for wire, node in fields.items()
            ),
        )

    apple = model("Apple", tree=Node(ModelRef("Tree")))
    tree = model(
        "Tree",
        leaves=Node(ListOf(Node(ModelRef("Leaf")))),
        branches=Node(ListOf(Node(ModelRef("Tree")))),
    )
    leaf = model("Leaf", color=Node(Scalar("string")))
    return ModelSet(models={m.key: m for m in (apple, tree, leaf)})


def test_evaluated_annotations_define_each_class_after_those_it_refers_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    models = _tree_models()
    (module,) = models.modules()
    source = render_module(module, models, header="", evaluated_annotations=True)

    assert "from __future__ import annotations" not in source
    classes = [line.split("(")[0] for line in source.splitlines() if "class " in line]
    assert classes == ["class Leaf", "class Tree", "class Apple"]
    # Only the cycle is a string, which Pydantic evaluates once the class exists.
    assert '    branches: "list[Tree] | None" = None' in source
    assert "    leaves: list[Leaf] | None = None" in source
    trees = _load(source, tmp_path, monkeypatch)
    apple = trees.Apple.model_validate({"tree": {"branches": [{"leaves": [{}]}]}})
    assert isinstance(apple.tree.branches[0].leaves[0], trees.Leaf)


def test_postponed_annotations_keep_the_name_order() -> None:
    models = _tree_models()
    (module,) = models.modules()
    source = render_module(module, models, header="")

    assert "from __future__ import annotations" in source
    classes = [line.split("(")[0] for line in source.splitlines() if "class " in line]
    assert classes == ["class Apple", "class Leaf", "class Tree"]
