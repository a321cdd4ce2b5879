"""The checker refuses what the API server refuses (one case per rule), and accepts the rest."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from opgen.errors import Location, SchemaError
from opgen.schema.check import check_crd, inspect_crd
from tests.crd import golden
from tests.schema.base_crd import (
    Crd,
    base_crd,
    first_version,
    root_schema,
    spec_schema,
)


def _field(node: dict[str, Any]) -> Callable[[Crd], None]:
    def mutate(crd: Crd) -> None:
        spec_schema(crd)["properties"]["x"] = node

    return mutate


def _items(node: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "array", "items": node, **extra}


_KEYED = {"type": "object", "properties": {"k": {"type": "string"}}, "required": ["k"]}

CASES: dict[str, tuple[Callable[[Crd], object], str]] = {
    # structural schema (pkg/apiserver/schema/validation.go)
    "array without items": (
        _field({"type": "array"}),
        "properties[x].items: Required value: must be specified",
    ),
    "field without type": (
        _field({"description": "?"}),
        "must not be empty for specified object fields",
    ),
    "items without type": (
        _field(_items({})),
        "must not be empty for specified array items",
    ),
    "additionalProperties at the root": (
        lambda c: root_schema(c).update(additionalProperties={"type": "string"}),
        "must not be used at the root",
    ),
    "root of another type": (
        lambda c: root_schema(c).update(type="array", items={"type": "string"}),
        "must be object at the root",
    ),
    "type inside a junctor": (
        _field({"type": "string", "anyOf": [{"type": "string"}, {"type": "boolean"}]}),
        "anyOf[0].type: Forbidden: must be empty to be structural",
    ),
    "description inside a junctor": (
        _field({"type": "string", "allOf": [{"description": "no"}]}),
        "allOf[0].description: Forbidden: must be empty to be structural",
    ),
    "junctor property not described structurally": (
        lambda c: root_schema(c).update(
            anyOf=[{"properties": {"zzz": {"minLength": 1}}}]
        ),
        "properties[zzz]: Required value: because it is defined in",
    ),
    "int-or-string that preserves unknown fields": (
        _field(
            {
                "x-kubernetes-int-or-string": True,
                "x-kubernetes-preserve-unknown-fields": True,
            }
        ),
        "must be false if x-kubernetes-int-or-string is true",
    ),
    "embedded resource that is not an object": (
        _field({"type": "string", "x-kubernetes-embedded-resource": True}),
        "must be object if x-kubernetes-embedded-resource is true",
    ),
    "embedded resource with nothing inside": (
        _field({"type": "object", "x-kubernetes-embedded-resource": True}),
        "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
    ),
    "root metadata with a description": (
        lambda c: root_schema(c)["properties"]["metadata"].update(description="mine"),
        "must not specify anything other than name and generateName",
    ),
    "root kind that is not a string": (
        lambda c: root_schema(c)["properties"]["kind"].update(type="integer"),
        "properties[kind].type: Invalid value: 'integer': must be string",
    ),
    "pattern RE2 cannot compile": (
        _field({"type": "string", "pattern": "(?<=a)b"}),
        "invalid perl operator: (?<=",
    ),
    # OpenAPI schema rules (pkg/apis/apiextensions/validation)
    "type null": (
        _field({"type": "null"}),
        "type cannot be set to null, use nullable as an alternative",
    ),
    "unknown type": (_field({"type": "float"}), "Unsupported value: 'float'"),
    "a $ref": (_field({"type": "object", "$ref": "#/x"}), "$ref is not supported"),
    "uniqueItems": (
        _field(_items({"type": "string"}, uniqueItems=True)),
        "uniqueItems cannot be set to true",
    ),
    "properties and additionalProperties": (
        _field(
            {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "additionalProperties": {"type": "string"},
            }
        ),
        "additionalProperties and properties are mutual exclusive",
    ),
    "preserve-unknown-fields false": (
        _field({"type": "object", "x-kubernetes-preserve-unknown-fields": False}),
        "must be true or undefined",
    ),
    "map type on a string": (
        _field({"type": "string", "x-kubernetes-map-type": "atomic"}),
        "must be object if x-kubernetes-map-type is specified",
    ),
    "unknown map type": (
        _field({"type": "object", "x-kubernetes-map-type": "merge"}),
        "Unsupported value: 'merge'",
    ),
    "list type on an object": (
        _field({"type": "object", "x-kubernetes-list-type": "set"}),
        "must be array if x-kubernetes-list-type is specified",
    ),
    "unknown list type": (
        _field(_items({"type": "string"}, **{"x-kubernetes-list-type": "bag"})),
        "Unsupported value: 'bag'",
    ),
    "set of granular objects": (
        _field(
            _items(
                {"type": "object", "properties": {"a": {"type": "string"}}},
                **{"x-kubernetes-list-type": "set"},
            )
        ),
        "must be atomic as item of a list with x-kubernetes-list-type=set",
    ),
    "map keys without map list type": (
        _field(_items(_KEYED, **{"x-kubernetes-list-map-keys": ["k"]})),
        "must be map if x-kubernetes-list-map-keys is non-empty",
    ),
    "map list without keys": (
        _field(_items(_KEYED, **{"x-kubernetes-list-type": "map"})),
        "must not be empty if x-kubernetes-list-type is map",
    ),
    "map list key that is not a property": (
        _field(
            _items(
                _KEYED,
                **{
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["z"],
                },
            )
        ),
        "entries must all be names of item properties",
    ),
    "map list key of object type": (
        _field(
            _items(
                {
                    "type": "object",
                    "properties": {"k": {"type": "object"}},
                    "required": ["k"],
                },
                **{
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["k"],
                },
            )
        ),
        "must be a scalar type if parent array's x-kubernetes-list-type is map",
    ),
    "nullable map list key": (
        _field(
            _items(
                {
                    "type": "object",
                    "properties": {"k": {"type": "string", "nullable": True}},
                    "required": ["k"],
                },
                **{
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["k"],
                },
            )
        ),
        "so it cannot be nullable",
    ),
    "nullable set items": (
        _field(
            _items(
                {"type": "string", "nullable": True},
                **{"x-kubernetes-list-type": "set"},
            )
        ),
        "cannot be nullable when x-kubernetes-list-type is set",
    ),
    "empty rule": (
        _field({"type": "string", "x-kubernetes-validations": [{"rule": " "}]}),
        "rule is not specified",
    ),
    "multi-line rule without message": (
        _field(
            {"type": "string", "x-kubernetes-validations": [{"rule": "true &&\ntrue"}]}
        ),
        "message must be specified if rule contains line breaks",
    ),
    "message with a line break": (
        _field(
            {
                "type": "string",
                "x-kubernetes-validations": [{"rule": "true", "message": "a\nb"}],
            }
        ),
        "must not contain line breaks",
    ),
    "unknown reason": (
        _field(
            {
                "type": "string",
                "x-kubernetes-validations": [{"rule": "true", "reason": "Bad"}],
            }
        ),
        "Unsupported value: 'Bad'",
    ),
    "field path that does not exist": (
        lambda c: spec_schema(c).update(
            {"x-kubernetes-validations": [{"rule": "true", "fieldPath": ".nope"}]}
        ),
        "fieldPath: Invalid value: '.nope': must be a valid path",
    ),
    "optionalOldSelf without oldSelf": (
        _field(
            {
                "type": "string",
                "x-kubernetes-validations": [{"rule": "true", "optionalOldSelf": True}],
            }
        ),
        "may not be set if oldSelf is not used in rule",
    ),
    "oldSelf in atomic list items": (
        _field(
            _items(
                {
                    "type": "string",
                    "x-kubernetes-validations": [{"rule": "self == oldSelf"}],
                }
            )
        ),
        "oldSelf cannot be used on the uncorrelatable portion of the schema",
    ),
    "default in root metadata": (
        lambda c: root_schema(c)["properties"]["metadata"].update(default={}),
        "must not be set in top-level metadata",
    ),
    "nullable root": (
        lambda c: root_schema(c).update(nullable=True),
        "nullable cannot be true at the root",
    ),
    "root field not allowed with /status": (
        lambda c: (
            root_schema(c).update({"x-kubernetes-map-type": "atomic"}),
            first_version(c).update(subresources={"status": {}}),
        ),
        "are allowed at the root of the schema if the status subresource is enabled",
    ),
    "unknown schema key": (
        _field({"type": "string", "const": "x"}),
        "properties[x].const: Forbidden: not a field of a Kubernetes schema",
    ),
    "numeric exclusive bound": (
        _field({"type": "integer", "minimum": 0, "exclusiveMinimum": 0}),
        "exclusiveMinimum: Invalid value: 0: must be a boolean",
    ),
    # defaults (pkg/apiserver/schema/defaulting)
    "default with unknown fields": (
        _field(
            {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "default": {"a": "x", "b": "y"},
            }
        ),
        "must not have unknown fields",
    ),
    "default of the wrong type": (
        _field({"type": "integer", "default": "1"}),
        "default: must be of type integer",
    ),
    "default outside the enum": (
        _field({"type": "string", "enum": ["a"], "default": "b"}),
        "default: must be one of ['a']",
    ),
    "default missing a required field": (
        _field(
            {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "required": ["a"],
                "default": {},
            }
        ),
        "default.a: Required value",
    ),
    "default that breaks a bound": (
        _field({"type": "integer", "maximum": 3, "default": 4}),
        "must be less than or equal to 3",
    ),
    "default that breaks a pattern": (
        _field({"type": "string", "pattern": "^a", "default": "b"}),
        "should match '^a'",
    ),
    "default that breaks a format": (
        _field({"type": "string", "format": "date-time", "default": "soon"}),
        "must be a valid date-time",
    ),
    # the CRD object
    "name not plural.group": (
        lambda c: c["metadata"].update(name="thing.example.com"),
        'must be spec.names.plural+"."+spec.group',
    ),
    "group with capitals": (
        lambda c: (
            c["spec"].update(group="Example.com"),
            c["metadata"].update(name="things.Example.com"),
        ),
        "must be a lower-case DNS subdomain",
    ),
    "plural with capitals": (
        lambda c: (
            c["spec"]["names"].update(plural="Things"),
            c["metadata"].update(name="Things.example.com"),
        ),
        "spec.names.plural: Invalid value: 'Things'",
    ),
    "kind equals listKind": (
        lambda c: c["spec"]["names"].update(listKind="Thing"),
        "kind and listKind may not be the same",
    ),
    "bad short name": (
        lambda c: c["spec"]["names"].update(shortNames=["t_1"]),
        "spec.names.shortNames[0]: Invalid value: 't_1'",
    ),
    "bad scope": (
        lambda c: c["spec"].update(scope="Global"),
        "Unsupported value: 'Global'",
    ),
    "duplicate versions": (
        lambda c: c["spec"]["versions"].append(
            copy.deepcopy(first_version(c)) | {"storage": False}
        ),
        "must contain unique version names",
    ),
    "two storage versions": (
        lambda c: c["spec"]["versions"].append(
            copy.deepcopy(first_version(c)) | {"name": "v2"}
        ),
        "must have exactly one version marked as storage version",
    ),
    "nothing served": (
        lambda c: first_version(c).update(served=False),
        "must have at least one served version",
    ),
    "warning without deprecation": (
        lambda c: first_version(c).update(deprecationWarning="old"),
        "can only be set for deprecated versions",
    ),
    "warning too long": (
        lambda c: first_version(c).update(
            deprecated=True, deprecationWarning="x" * 257
        ),
        "must be <= 256 characters long",
    ),
    "printer column format": (
        lambda c: first_version(c).update(
            additionalPrinterColumns=[
                {
                    "name": "N",
                    "type": "string",
                    "format": "url",
                    "jsonPath": ".spec.name",
                }
            ]
        ),
        "must be one of byte,date,date-time,double,float,int32,int64,password",
    ),
    "printer column path without a dot": (
        lambda c: first_version(c).update(
            additionalPrinterColumns=[
                {"name": "N", "type": "string", "jsonPath": "spec.name"}
            ]
        ),
        "must be a simple json path starting with .",
    ),
    "scale path outside spec": (
        lambda c: first_version(c).update(
            subresources={
                "scale": {
                    "specReplicasPath": ".status.ready",
                    "statusReplicasPath": ".status.ready",
                }
            }
        ),
        "should be a json path under .spec",
    ),
    "selector path under metadata": (
        lambda c: first_version(c).update(
            subresources={
                "scale": {
                    "specReplicasPath": ".spec.name",
                    "statusReplicasPath": ".status.ready",
                    "labelSelectorPath": ".metadata.labels",
                }
            }
        ),
        "should be a json path under .spec or .status",
    ),
    "too many selectable fields": (
        lambda c: (
            spec_schema(c)["properties"].update(
                {f"f{i}": {"type": "string"} for i in range(9)}
            ),
            first_version(c).update(
                selectableFields=[{"jsonPath": f".spec.f{i}"} for i in range(9)]
            ),
        ),
        "Too many: 9: must have at most 8 items",
    ),
    "selectable field in metadata": (
        lambda c: first_version(c).update(
            selectableFields=[{"jsonPath": ".metadata.name"}]
        ),
        "must not point to fields in metadata",
    ),
    "duplicate selectable field": (
        lambda c: first_version(c).update(
            selectableFields=[{"jsonPath": ".spec.name"}, {"jsonPath": ".spec.name"}]
        ),
        "Duplicate value: '.spec.name'",
    ),
    "protected group with a bad approval": (
        lambda c: (
            c["spec"].update(group="x.k8s.io"),
            c["metadata"].update(
                name="things.x.k8s.io",
                annotations={"api-approved.kubernetes.io": "yes"},
            ),
        ),
        "must be a URL or start with 'unapproved'",
    ),
    "bad annotation key": (
        lambda c: c["metadata"].update(annotations={"bad key": "v"}),
        "metadata.annotations: Invalid value: 'bad key'",
    ),
}


def test_the_base_crd_is_valid() -> None:
    assert check_crd(base_crd(), {}, None) == []


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule(name: str) -> None:
    mutate, message = CASES[name]
    crd = base_crd()
    mutate(crd)
    found = inspect_crd(crd, {}, None).errors
    problems = [str(p) for p in found]
    assert any(message in problem for problem in problems), problems
    with pytest.raises(SchemaError) as raised:
        check_crd(crd, {}, Location(file="types.py", cls="Thing"))
    verdict = (
        "opgen refuses this CRD (the API server would accept it, but it would not "
        "work as written)"
        if found[0].opgen_only
        else "the API server would refuse this CRD"
    )
    assert str(raised.value).startswith(f"types.py: Thing: {verdict}: ")


def test_annotation_and_label_problems_name_the_map_as_the_server_does() -> None:
    crd = base_crd()
    crd["metadata"].update(annotations={"bad key": "v"}, labels={"app": "-bad-"})
    paths = sorted(problem.path for problem in inspect_crd(crd, {}, None).errors)
    assert paths == ["metadata.annotations", "metadata.labels"]


def test_errors_name_the_python_origin_of_the_node() -> None:
    crd = base_crd()
    bad = {"type": "array"}
    spec_schema(crd)["properties"]["x"] = bad
    with pytest.raises(SchemaError) as raised:
        check_crd(crd, {id(bad): Location(file="t.py", cls="Spec", field="x")}, None)
    assert str(raised.value).startswith("t.py: Spec.x: ")


def test_several_problems_are_counted() -> None:
    crd = base_crd()
    spec_schema(crd)["properties"]["x"] = {"type": "array"}
    spec_schema(crd)["properties"]["y"] = {"type": "null"}
    with pytest.raises(SchemaError, match=r"\(and 1 more problem\)"):
        check_crd(crd, {}, None)


def test_int_or_string_any_of_is_the_allowed_exception() -> None:
    crd = base_crd()
    spec_schema(crd)["properties"]["port"] = {
        "anyOf": [{"type": "integer"}, {"type": "string"}],
        "x-kubernetes-int-or-string": True,
        "pattern": "^[0-9]+$",
    }
    assert check_crd(crd, {}, None) == []


def test_unknown_format_is_a_warning() -> None:
    crd = base_crd()
    spec_schema(crd)["properties"]["x"] = {"type": "string", "format": "color"}
    (warning,) = check_crd(crd, {}, None)
    assert "does not recognise format 'color'" in str(warning)


def test_size_warning_and_error() -> None:
    crd = base_crd()
    spec_schema(crd)["description"] = "x" * (300 * 1024)
    (warning,) = check_crd(crd, {}, None)
    assert "over 256 KiB" in str(warning) and "--server-side" in str(warning)
    spec_schema(crd)["description"] = "x" * (1600 * 1024)
    with pytest.raises(SchemaError, match=r"over the 1\.5 MiB etcd limit"):
        check_crd(crd, {}, None)


@pytest.mark.parametrize(
    "path",
    [
        *golden.golden_crd_paths(),
        *sorted(
            (Path(__file__).parents[1] / "crd" / "cronjob" / "expected").glob("*.yaml")
        ),
    ],
    ids=lambda p: p.name,
)
def test_golden_crds_pass_the_checker(path: Path) -> None:
    crd = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert check_crd(crd, {}, None) == []


def test_opgen_only_rules_are_marked() -> None:
    crd = base_crd()
    first_version(crd).update(
        additionalPrinterColumns=[
            {"name": "N", "type": "string", "jsonPath": ".spec.nope"}
        ],
        subresources={
            "scale": {
                "specReplicasPath": ".spec.name",
                "statusReplicasPath": ".status.x",
            }
        },
        # A real API server accepts a CRD that serves nothing (tests/proof).
        served=False,
    )
    report = inspect_crd(crd, {}, None)
    problems = report.errors
    assert len(problems) == 3 and all(problem.opgen_only for problem in problems)
    # The server takes a column to a missing field too, and it does no harm
    # beyond an empty column: a warning.
    assert [w.path for w in report.warnings] == [
        "spec.versions[0].additionalPrinterColumns[0].JSONPath"
    ]
    _field({"type": "array"})(crd)
    assert any(not problem.opgen_only for problem in inspect_crd(crd, {}, None).errors)
