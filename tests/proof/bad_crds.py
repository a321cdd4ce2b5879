"""Hand-made CRDs for the checker-versus-server proof, beyond tests/schema's table.

`tests/schema/test_check.py::CASES` holds one broken CRD per rule the checker
ports; this module adds the rules that table leaves out, opgen's own stricter
rules (which the server accepts) and valid CRDs that look suspicious (which
both must accept). Every case starts from the same small valid CRD
(`tests.schema.base_crd.base_crd`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.schema.base_crd import (
    Crd,
    base_crd,
    first_version,
    root_schema,
    spec_schema,
)
from tests.schema.test_check import CASES as SCHEMA_CASES

__all__ = ["ACCEPTED", "OPGEN_ONLY", "REFUSED", "Case", "build"]

Mutate = Callable[[Crd], object]


@dataclass(frozen=True)
class Case:
    """A mutation of the base CRD and how the server is asked about it."""

    mutate: Mutate
    strict: bool = False
    """Send with `fieldValidation=Strict` (kubectl's default since 1.27): unknown
    fields are refused instead of silently dropped."""
    stored: bool = False
    """Really create it (dry runs skip etcd, whose size limit is the rule)."""
    path_note: str | None = None
    """Why the server's message does not quote the checker's path, if it does not."""


def build(case: Case) -> Crd:
    crd = base_crd()
    case.mutate(crd)
    return crd


def _field(node: dict[str, Any], **more: dict[str, Any]) -> Mutate:
    def mutate(crd: Crd) -> None:
        spec_schema(crd)["properties"]["x"] = copy.deepcopy(node)
        for name, extra in more.items():
            spec_schema(crd)["properties"][name] = copy.deepcopy(extra)

    return mutate


def _items(node: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "array", "items": node, **extra}


def _map_list(item: dict[str, Any], keys: list[str]) -> dict[str, Any]:
    return _items(
        item, **{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": keys}
    )


def _in_junctor(key: str, value: Any) -> Mutate:
    return _field({"type": "string", "allOf": [{key: value}]})


def _scale(**paths: str) -> Mutate:
    return lambda crd: first_version(crd).update(subresources={"scale": dict(paths)})


def _columns(*columns: dict[str, Any]) -> Mutate:
    return lambda crd: first_version(crd).update(additionalPrinterColumns=list(columns))


def _selectable(*paths: str) -> Mutate:
    return lambda crd: first_version(crd).update(
        selectableFields=[{"jsonPath": path} for path in paths]
    )


def _rule(**rule: Any) -> Mutate:
    return _field({"type": "string", "x-kubernetes-validations": [rule]})


def _embedded(**node: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "x-kubernetes-embedded-resource": True,
        "x-kubernetes-preserve-unknown-fields": True,
        **node,
    }


def _rename(group: str | None = None, plural: str | None = None) -> Mutate:
    def mutate(crd: Crd) -> None:
        if group is not None:
            crd["spec"]["group"] = group
        if plural is not None:
            crd["spec"]["names"]["plural"] = plural
        crd["metadata"][
            "name"
        ] = f"{crd['spec']['names']['plural']}.{crd['spec']['group']}"

    return mutate


_DECODE = "a decode error names the Go struct field, not the schema path"
_KEYED: dict[str, Any] = {
    "type": "object",
    "properties": {"k": {"type": "string"}},
    "required": ["k"],
}

EXTRA_REFUSED: dict[str, Case] = {
    # structural schema
    "int-or-string embedded resource": Case(
        _field(
            {
                "x-kubernetes-int-or-string": True,
                "x-kubernetes-embedded-resource": True,
            }
        )
    ),
    "default inside a junctor": Case(_in_junctor("default", "a")),
    "title inside a junctor": Case(_in_junctor("title", "t")),
    "nullable inside a junctor": Case(_in_junctor("nullable", True)),
    "additionalProperties inside a junctor": Case(
        _in_junctor("additionalProperties", {"type": "string"})
    ),
    "preserve-unknown-fields inside a junctor": Case(
        _in_junctor("x-kubernetes-preserve-unknown-fields", True)
    ),
    "embedded resource inside a junctor": Case(
        _in_junctor("x-kubernetes-embedded-resource", True)
    ),
    "int-or-string inside a junctor": Case(
        _in_junctor("x-kubernetes-int-or-string", True)
    ),
    "list type inside a junctor": Case(_in_junctor("x-kubernetes-list-type", "set")),
    "list map keys inside a junctor": Case(
        _in_junctor("x-kubernetes-list-map-keys", ["k"])
    ),
    "map type inside a junctor": Case(_in_junctor("x-kubernetes-map-type", "atomic")),
    "validations inside a junctor": Case(
        _in_junctor("x-kubernetes-validations", [{"rule": "true"}])
    ),
    "metadata inside a nested junctor": Case(
        lambda c: root_schema(c).update(
            anyOf=[{"properties": {"metadata": {"properties": {"name": {}}}}}]
        )
    ),
    "root junctor naming a nested field that does not exist": Case(
        lambda c: root_schema(c).update(
            allOf=[{"properties": {"spec": {"properties": {"zzz": {"minLength": 1}}}}}]
        )
    ),
    "pattern with a back-reference": Case(
        _field({"type": "string", "pattern": "(a)\\1"})
    ),
    "pattern that is no regular expression": Case(
        _field({"type": "string", "pattern": "(unclosed"})
    ),
    "pattern with a look-ahead": Case(_field({"type": "string", "pattern": "a(?=b)"})),
    "embedded resource with additionalProperties": Case(
        _field(
            {
                "type": "object",
                "x-kubernetes-embedded-resource": True,
                "additionalProperties": {"type": "string"},
            }
        )
    ),
    "embedded resource kind that is not a string": Case(
        _field(_embedded(properties={"kind": {"type": "integer"}}))
    ),
    "embedded resource metadata that is not an object": Case(
        _field(_embedded(properties={"metadata": {"type": "string"}}))
    ),
    "root apiVersion that is not a string": Case(
        lambda c: root_schema(c)["properties"]["apiVersion"].update(type="boolean")
    ),
    "root metadata that is not an object": Case(
        lambda c: root_schema(c)["properties"]["metadata"].update(type="string")
    ),
    "root metadata with a labels schema": Case(
        lambda c: root_schema(c)["properties"]["metadata"].update(
            properties={"labels": {"type": "object"}}
        )
    ),
    "root without a type": Case(lambda c: root_schema(c).pop("type")),
    # OpenAPI rules
    "id": Case(_field({"type": "string", "id": "x"})),
    "definitions": Case(_field({"type": "object", "definitions": {"a": {}}})),
    "patternProperties": Case(
        _field({"type": "object", "patternProperties": {"^a": {"type": "string"}}})
    ),
    "dependencies": Case(
        _field(
            {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "dependencies": {"a": ["a"]},
            }
        )
    ),
    "additionalItems": Case(
        _field(_items({"type": "string"}, additionalItems={"type": "string"}))
    ),
    "items as a list": Case(
        _field({"type": "array", "items": [{"type": "string"}]}), path_note=_DECODE
    ),
    "embedded resource inside metadata": Case(
        _field(
            _embedded(
                properties={
                    "metadata": {
                        "type": "object",
                        "properties": {
                            "labels": _embedded(),
                        },
                    }
                }
            )
        )
    ),
    "length given as a string": Case(
        _field({"type": "string", "minLength": "3"}), path_note=_DECODE
    ),
    "required that is not a list": Case(
        _field(
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": "a"}
        ),
        path_note=_DECODE,
    ),
    "unknown key $defs (strict)": Case(
        _field({"type": "object", "$defs": {"A": {"type": "string"}}}),
        strict=True,
        path_note="strict field validation reports the JSON path of the CRD object",
    ),
    "unknown key const (strict)": Case(
        _field({"type": "string", "const": "a"}),
        strict=True,
        path_note="strict field validation reports the JSON path of the CRD object",
    ),
    "anyOf at the root with /status": Case(
        lambda c: (
            root_schema(c).update(anyOf=[{"required": ["spec"]}]),
            first_version(c).update(subresources={"status": {}}),
        )
    ),
    # list and map topology
    "set of granular lists": Case(
        _field(
            _items(
                _items({"type": "string"}, **{"x-kubernetes-list-type": "set"}),
                **{"x-kubernetes-list-type": "set"},
            )
        )
    ),
    "map list of strings": Case(_field(_map_list({"type": "string"}, ["k"]))),
    "map list key that is optional without default": Case(
        _field(
            _map_list(
                {"type": "object", "properties": {"k": {"type": "string"}}}, ["k"]
            )
        )
    ),
    "map list key named twice": Case(_field(_map_list(_KEYED, ["k", "k"]))),
    "nullable map list items": Case(
        _field(_map_list({**_KEYED, "nullable": True}, ["k"]))
    ),
    "map type on a list": Case(
        _field(_items({"type": "string"}, **{"x-kubernetes-map-type": "atomic"}))
    ),
    # CEL rule metadata
    "validations that are not a list": Case(
        _field({"type": "string", "x-kubernetes-validations": {"rule": "true"}}),
        path_note=_DECODE,
    ),
    "unknown key in a rule (strict)": Case(
        _rule(rule="true", severity="high"),
        strict=True,
        path_note="strict field validation reports the JSON path of the CRD object",
    ),
    "message of blanks": Case(_rule(rule="true", message="  ")),
    "messageExpression of blanks": Case(_rule(rule="true", messageExpression="  ")),
    "fieldPath that is no path": Case(
        lambda c: spec_schema(c).update(
            {"x-kubernetes-validations": [{"rule": "true", "fieldPath": "name"}]}
        )
    ),
    "oldSelf inside a set": Case(
        _field(
            _items(
                {
                    "type": "string",
                    "maxLength": 10,
                    "x-kubernetes-validations": [{"rule": "self == oldSelf"}],
                },
                maxItems=10,
                **{"x-kubernetes-list-type": "set"},
            )
        )
    ),
    # defaults
    "default breaking maxItems": Case(
        _field(_items({"type": "string"}, maxItems=1, default=["a", "b"]))
    ),
    "default breaking minLength": Case(
        _field({"type": "string", "minLength": 2, "default": "a"})
    ),
    "default breaking multipleOf": Case(
        _field({"type": "integer", "multipleOf": 5, "default": 7})
    ),
    "default breaking maxProperties": Case(
        _field(
            {
                "type": "object",
                "additionalProperties": {"type": "string"},
                "maxProperties": 1,
                "default": {"a": "1", "b": "2"},
            }
        )
    ),
    "default breaking exclusiveMaximum": Case(
        _field(
            {"type": "integer", "maximum": 3, "exclusiveMaximum": True, "default": 3}
        )
    ),
    "nested default of the wrong type": Case(
        _field(
            {
                "type": "object",
                "properties": {"a": {"type": "integer"}},
                "default": {"a": "one"},
            }
        )
    ),
    "default inside items breaking a bound": Case(
        _field(_items({"type": "integer", "minimum": 0, "default": -1}))
    ),
    "default that is null on a non-nullable field": Case(
        _field(
            {
                "type": "object",
                "properties": {"a": {"type": "string", "default": None}},
                "default": {"a": None},
            }
        )
    ),
    # the CRD object
    "group without a dot": Case(_rename(group="example")),
    "empty group": Case(_rename(group="")),
    "protected group without approval": Case(_rename(group="things.k8s.io")),
    "bad label value": Case(lambda c: c["metadata"].update(labels={"app": "-bad-"})),
    "singular with capitals": Case(
        lambda c: c["spec"]["names"].update(singular="Thing")
    ),
    "kind with an underscore": Case(lambda c: c["spec"]["names"].update(kind="Th_ing")),
    "bad category": Case(lambda c: c["spec"]["names"].update(categories=["All!"])),
    "no versions": Case(lambda c: c["spec"].update(versions=[])),
    "version name with capitals": Case(lambda c: first_version(c).update(name="V1")),
    "empty deprecation warning": Case(
        lambda c: first_version(c).update(deprecated=True, deprecationWarning="")
    ),
    "deprecation warning with a control character": Case(
        lambda c: first_version(c).update(deprecated=True, deprecationWarning="old\x07")
    ),
    "version without a schema": Case(lambda c: first_version(c).pop("schema")),
    "scale without specReplicasPath": Case(_scale(statusReplicasPath=".status.n")),
    "scale path without a dot": Case(
        _scale(specReplicasPath="spec.n", statusReplicasPath=".status.n")
    ),
    "printer column without a name": Case(
        _columns({"name": "", "type": "string", "jsonPath": ".spec.name"})
    ),
    "printer column of an unknown type": Case(
        _columns({"name": "N", "type": "date-time", "jsonPath": ".spec.name"})
    ),
    "selectable field without a path": Case(_selectable("")),
    "selectable field with an index": Case(_selectable(".spec.items[0]")),
    "selectable field that does not exist": Case(_selectable(".spec.nope")),
    "selectable field of object type": Case(_selectable(".spec")),
    "CRD over etcd's 1.5 MiB": Case(
        lambda c: spec_schema(c).update(description="x" * (1600 * 1024)),
        stored=True,
        path_note="etcd refuses the write; the message has no field path",
    ),
}
"""Broken CRDs the server refuses, for rules `tests/schema`'s table leaves out."""

OPGEN_ONLY: dict[str, Case] = {
    "nothing served": Case(lambda c: first_version(c).update(served=False)),
    "scale path to a missing field": Case(
        _scale(specReplicasPath=".spec.replicas", statusReplicasPath=".status.replicas")
    ),
    "scale path to a string": Case(
        _scale(specReplicasPath=".spec.name", statusReplicasPath=".status.ready")
    ),
}
"""opgen's stricter rules: the server accepts, the checker refuses with `opgen_only`."""

ACCEPTED: dict[str, Case] = {
    "the base CRD": Case(lambda c: None),
    # A warning only: the column is always empty.
    "printer column to a missing field": Case(
        _columns({"name": "N", "type": "string", "jsonPath": ".spec.nope"})
    ),
    "int-or-string with a pattern": Case(
        _field(
            {
                "anyOf": [{"type": "integer"}, {"type": "string"}],
                "x-kubernetes-int-or-string": True,
                "pattern": "^[0-9]+%?$",
            }
        )
    ),
    "int-or-string first in allOf": Case(
        _field(
            {
                "x-kubernetes-int-or-string": True,
                "allOf": [
                    {"anyOf": [{"type": "integer"}, {"type": "string"}]},
                    {"maxLength": 3},
                ],
            }
        )
    ),
    "nullable field defaulting to null": Case(
        _field({"type": "string", "nullable": True, "default": None})
    ),
    "root metadata describing name": Case(
        lambda c: root_schema(c)["properties"]["metadata"].update(
            properties={"name": {"type": "string", "maxLength": 20}}
        )
    ),
    "preserve-unknown-fields with properties": Case(
        _field(
            {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "x-kubernetes-preserve-unknown-fields": True,
            }
        )
    ),
    "embedded resource": Case(_field(_embedded())),
    "map list with a defaulted key": Case(
        _field(
            _map_list(
                {
                    "type": "object",
                    "properties": {"k": {"type": "string", "default": "a"}},
                },
                ["k"],
            )
        )
    ),
    "set of atomic objects": Case(
        _field(
            _items(
                {
                    "type": "object",
                    "properties": {"a": {"type": "string"}},
                    "x-kubernetes-map-type": "atomic",
                },
                **{"x-kubernetes-list-type": "set"},
            )
        )
    ),
    "oldSelf inside map list items": Case(
        _field(
            _map_list(
                {
                    "type": "object",
                    "properties": {"k": {"type": "string", "maxLength": 10}},
                    "required": ["k"],
                    "x-kubernetes-validations": [{"rule": "self.k == oldSelf.k"}],
                },
                ["k"],
            )
            | {"maxItems": 10}
        )
    ),
    "junctor below the root naming a missing item field": Case(
        # The server checks junctor completeness at the root only; so does opgen.
        _field(
            _items(
                {"type": "string"},
                allOf=[{"items": {"items": {"minLength": 1}}}],
            )
        )
    ),
    "unknown format": Case(_field({"type": "string", "format": "color"})),
    "default under additionalProperties breaking a pattern": Case(
        _field(
            {
                "type": "object",
                "additionalProperties": {
                    "type": "string",
                    "pattern": "^a",
                    "default": "b",
                },
            }
        )
    ),
    "default with every required field": Case(
        _field(
            {
                "type": "object",
                "properties": {
                    "a": {"type": "string"},
                    "b": {"type": "integer", "default": 1},
                },
                "required": ["a"],
                "default": {"a": "x"},
            }
        )
    ),
    "two versions, one served": Case(
        lambda c: c["spec"]["versions"].append(
            copy.deepcopy(first_version(c))
            | {"name": "v2", "storage": False, "served": False}
        )
    ),
    "a deprecated version with a warning": Case(
        lambda c: first_version(c).update(deprecated=True, deprecationWarning="use v2")
    ),
    "protected group with approval": Case(
        lambda c: (
            _rename(group="things.k8s.io")(c),
            c["metadata"].update(
                annotations={"api-approved.kubernetes.io": "unapproved, testing"}
            ),
        )
    ),
}
"""Valid CRDs that look suspicious: the server accepts, the checker finds nothing."""

REFUSED: dict[str, Case] = {
    **{
        name: Case(mutate)
        for name, (mutate, _) in SCHEMA_CASES.items()
        if name not in OPGEN_ONLY
    },
    **EXTRA_REFUSED,
}
"""Every broken CRD: tests/schema's table plus the extra cases above."""
