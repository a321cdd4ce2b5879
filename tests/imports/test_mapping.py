"""Nodes of a CRD typed as opgen's types: when the schema is one, and when not."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from opgen.schema.catalogue import TypeMatcher
from opgen.schema.options import EMBEDDED_OBJECT_META_SCHEMA
from tests.imports.crds import (
    k8s_item,
    k8s_schema,
    obj,
    older_pod_template,
    string,
    without_descriptions,
)


def _match(node: dict[str, Any], where: str = "K.spec.field") -> tuple[str | None, Any]:
    matcher = TypeMatcher()
    found = matcher(node, where)
    return (found.name if found else None), (
        matcher.mapped[0] if matcher.mapped else None
    )


def _undocumented(node: dict[str, Any]) -> dict[str, Any]:
    crd = {"spec": {"versions": [{"schema": node}]}}
    result: dict[str, Any] = without_descriptions(crd)["spec"]["versions"][0]["schema"]
    return result


@pytest.mark.parametrize(
    ("type_name", "expected"),
    [
        ("PodTemplateSpec", "k8s.PodTemplateSpec"),
        ("LabelSelector", "k8s.LabelSelector"),
        ("ResourceRequirements", "k8s.ResourceRequirements"),
        ("Affinity", "k8s.Affinity"),
        ("LocalObjectReference", "LocalObjectReference"),
        ("Condition", "Condition"),
    ],
)
def test_the_schema_of_a_type_is_the_type_with_or_without_descriptions(
    type_name: str, expected: str
) -> None:
    node = k8s_schema(type_name, "A field's own documentation.")
    assert _match(node)[0] == expected
    # A small type without descriptions is the type where the field says so.
    assert _match(_undocumented(node), "K.spec.templateRef")[0] == expected
    mapped = _match(node)[1]
    assert mapped.newer_only == () and not mapped.embedded_object_meta


def test_what_a_field_adds_to_its_type_stays_with_the_field() -> None:
    node = k8s_schema("LabelSelector")
    node["x-kubernetes-validations"] = [{"rule": "has(self.matchLabels)"}]
    matcher = TypeMatcher()
    found = matcher(node, "K.spec.selector")
    assert found is not None and found.name == "k8s.LabelSelector"
    assert "x-kubernetes-validations" not in found.consumed
    assert "x-kubernetes-map-type" in found.consumed


def test_an_older_release_is_the_type_with_what_the_release_adds_listed() -> None:
    name, mapped = _match(older_pod_template())
    assert name == "k8s.PodTemplateSpec"
    assert ".spec.hostUsers" in mapped.newer_only
    assert ".spec.containers[*].resizePolicy" in mapped.newer_only
    assert ".spec.containers[*].args x-kubernetes-list-type" in mapped.newer_only


def test_shapes_that_are_not_the_type_are_not_taken_for_it() -> None:
    # One field only: a CRD's own `{name}` is not a LocalObjectReference.
    assert _match(obj({"name": string()}))[0] is None
    # Nor, by shape alone, PodOS or HTTPHeader: the field's name or the
    # descriptions must say so.
    reference = obj({"name": string("Name of the Secret.")}, "A secret.")
    assert _match(reference, "K.spec.secretRef")[0] is None
    assert _match(_undocumented(reference), "K.spec.os")[0] is None
    variable = obj(
        {
            "name": string("Name is the name of the variable."),
            "value": string("Value is the value of the variable."),
        }
    )
    assert _match(variable, "K.spec.env[*]")[0] is None
    assert _match(_undocumented(variable), "K.spec.info[*]")[0] is None
    # A condition of the project's own (reason and message optional) is not
    # metav1.Condition, whose schema requires them and bounds them.
    own_condition = k8s_item("Condition")
    own_condition["required"] = ["status", "type"]
    for field in own_condition["properties"].values():
        for constraint in ("maxLength", "minLength", "pattern", "minimum"):
            field.pop(constraint, None)
    assert _match(own_condition)[0] is None
    # A constraint the type does not have.
    tighter = k8s_schema("LabelSelector")
    tighter["properties"]["matchLabels"]["maxProperties"] = 4
    assert _match(tighter)[0] is None
    # A different constraint's value, deep inside.
    pod = k8s_schema("PodTemplateSpec")
    pod = copy.deepcopy(pod)
    ports = pod["properties"]["spec"]["properties"]["containers"]["items"]
    ports["properties"]["ports"]["items"]["properties"]["containerPort"][
        "format"
    ] = "int64"
    assert _match(pod)[0] is None


def test_types_of_the_same_shape_are_told_apart() -> None:
    by_doc = k8s_schema("SecretKeySelector", "The password.")
    assert _match(by_doc, "K.spec.password")[0] == "k8s.SecretKeySelector"
    assert _match(k8s_schema("ConfigMapKeySelector"), "K.spec.x")[0] == (
        "k8s.ConfigMapKeySelector"
    )
    # Without descriptions, by the field's name.
    bare = _undocumented(k8s_schema("SecretKeySelector"))
    assert _match(bare, "K.spec.secretKeyRef")[0] == "k8s.SecretKeySelector"
    assert _match(bare, "K.spec.configMapKeyRef")[0] == "k8s.ConfigMapKeySelector"


def test_nested_metadata_is_object_meta_in_both_of_controller_gens_forms() -> None:
    plain = _match({"type": "object"}, "K.spec.template.metadata")
    assert plain[0] == "ObjectMeta" and not plain[1].embedded_object_meta
    embedded = _match(
        copy.deepcopy(EMBEDDED_OBJECT_META_SCHEMA), "K.spec.template.metadata"
    )
    assert embedded[0] == "ObjectMeta" and embedded[1].embedded_object_meta
    partial = {"type": "object", "properties": {"labels": {"type": "object"}}}
    assert _match(partial, "K.spec.template.metadata")[0] is None
    assert _match({"type": "object"}, "K.spec.other")[0] is None
