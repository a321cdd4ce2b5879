"""The API server's structural-schema rules (apiextensions `schema.ValidateStructural`).

A structural schema specifies a non-empty `type` on every node (unless
int-or-string or preserve-unknown-fields), `items` on every array, keeps
`additionalProperties` away from the root, keeps junctors (`anyOf`, `allOf`,
`oneOf`, `not`) free of types, defaults, descriptions and Kubernetes
extensions (the int-or-string `anyOf` excepted), restricts root `metadata`, and
describes structurally every field a junctor mentions.
"""

from __future__ import annotations

from typing import Any

from opgen.engine.goregex import re2_problem
from opgen.schema.check.report import Report, child, index, key

__all__ = ["check_structural"]

_INT_OR_STRING_ANY_OF = [{"type": "integer"}, {"type": "string"}]
_ROOT, _ITEM, _FIELD = "root", "item", "field"

_FORBIDDEN_IN_JUNCTOR = (
    ("type", "must be empty to be structural"),
    ("additionalProperties", "must be undefined to be structural"),
    ("default", "must be undefined to be structural"),
    ("title", "must be empty to be structural"),
    ("description", "must be empty to be structural"),
    ("nullable", "must be false to be structural"),
    ("x-kubernetes-preserve-unknown-fields", "must be false to be structural"),
    ("x-kubernetes-embedded-resource", "must be false to be structural"),
    ("x-kubernetes-int-or-string", "must be false to be structural"),
    ("x-kubernetes-list-map-keys", "must be empty to be structural"),
    ("x-kubernetes-list-type", "must be undefined to be structural"),
    ("x-kubernetes-map-type", "must be undefined to be structural"),
    ("x-kubernetes-validations", "must be empty to be structural"),
)


def check_structural(schema: dict[str, Any], path: str, report: Report) -> None:
    """Check one version's openAPIV3Schema; problems go to `report`."""
    _invariants(schema, _ROOT, path, report)
    _completeness(schema, schema, path, path, report)


def _is_set(node: dict[str, Any], name: str) -> bool:
    value = node.get(name)
    return value not in (None, False, "", [], {})


def _invariants(node: dict[str, Any], level: str, path: str, report: Report) -> None:
    kind = node.get("type") or ""
    if kind == "array" and not isinstance(node.get("items"), dict):
        report.error(child(path, "items"), "Required value: must be specified", node)
    if isinstance(node.get("items"), dict):
        _invariants(node["items"], _ITEM, child(path, "items"), report)
    for name, value in (node.get("properties") or {}).items():
        if isinstance(value, dict):
            _invariants(value, _FIELD, key(child(path, "properties"), name), report)
    if "additionalProperties" in node:
        if level == _ROOT:
            report.error(
                child(path, "additionalProperties"),
                "Forbidden: must not be used at the root",
                node,
            )
        if isinstance(node["additionalProperties"], dict):
            _invariants(
                node["additionalProperties"],
                _FIELD,
                child(path, "additionalProperties"),
                report,
            )

    int_or_string = bool(node.get("x-kubernetes-int-or-string"))
    preserve = bool(node.get("x-kubernetes-preserve-unknown-fields"))
    embedded = bool(node.get("x-kubernetes-embedded-resource"))
    if int_or_string and preserve:
        report.error(
            child(path, "x-kubernetes-preserve-unknown-fields"),
            "Invalid value: true: must be false if x-kubernetes-int-or-string is true",
            node,
        )
    if int_or_string and embedded:
        report.error(
            child(path, "x-kubernetes-embedded-resource"),
            "Invalid value: true: must be false if x-kubernetes-int-or-string is true",
            node,
        )

    skip_any_of = node.get("anyOf") == _INT_OR_STRING_ANY_OF
    all_of = node.get("allOf")
    skip_first_all_of = (
        isinstance(all_of, list)
        and bool(all_of)
        and isinstance(all_of[0], dict)
        and all_of[0].get("anyOf") == _INT_OR_STRING_ANY_OF
    )
    _value_validation(node, skip_any_of, skip_first_all_of, path, report)

    check_meta = level == _ROOT or embedded
    if embedded and kind != "object":
        detail = "Required value" if not kind else f"Invalid value: {kind!r}"
        report.error(
            child(path, "type"),
            f"{detail}: must be object if x-kubernetes-embedded-resource is true",
            node,
        )
    elif not kind and not int_or_string and not preserve:
        where = {
            _ROOT: "must not be empty at the root",
            _ITEM: "must not be empty for specified array items",
            _FIELD: "must not be empty for specified object fields",
        }[level]
        report.error(child(path, "type"), f"Required value: {where}", node)
    if embedded and "additionalProperties" in node:
        report.error(
            child(path, "additionalProperties"),
            "Forbidden: must not be used if x-kubernetes-embedded-resource is set",
            node,
        )
    if level == _ROOT and kind and kind != "object":
        report.error(
            child(path, "type"),
            f"Invalid value: {kind!r}: must be object at the root",
            node,
        )

    properties = node.get("properties") or {}
    for meta_field in ("kind", "apiVersion"):
        value = properties.get(meta_field)
        if check_meta and isinstance(value, dict) and value.get("type") != "string":
            report.error(
                child(key(child(path, "properties"), meta_field), "type"),
                f"Invalid value: {value.get('type')!r}: must be string",
                value,
            )
    metadata = properties.get("metadata")
    if isinstance(metadata, dict):
        _metadata(
            metadata,
            check_meta,
            level,
            key(child(path, "properties"), "metadata"),
            report,
        )

    if embedded and not preserve and not properties:
        report.error(
            child(path, "properties"),
            "Required value: must not be empty if x-kubernetes-embedded-resource is true "
            "without x-kubernetes-preserve-unknown-fields",
            node,
        )


def _metadata(
    node: dict[str, Any], check_meta: bool, level: str, path: str, report: Report
) -> None:
    if check_meta and node.get("type") != "object":
        report.error(
            child(path, "type"),
            f"Invalid value: {node.get('type')!r}: must be object",
            node,
        )
    if level != _ROOT:
        return
    rest = dict(node)
    properties = rest.get("properties") or {}
    if properties and set(properties) <= {"name", "generateName"}:
        rest.pop("properties")
    rest.pop("type", None)
    rest.pop("default", None)
    if any(_is_set(rest, name) for name in rest):
        report.error(
            path,
            "Forbidden: must not specify anything other than name and generateName, "
            "but metadata is implicitly specified",
            node,
            hint="the root metadata schema belongs to the API server",
        )


def _value_validation(
    node: dict[str, Any],
    skip_any_of: bool,
    skip_first_all_of: bool,
    path: str,
    report: Report,
) -> None:
    if not skip_any_of:
        for position, branch in enumerate(node.get("anyOf") or []):
            _nested(branch, False, index(child(path, "anyOf"), position), report)
    for position, branch in enumerate(node.get("allOf") or []):
        _nested(
            branch,
            skip_first_all_of and position == 0,
            index(child(path, "allOf"), position),
            report,
        )
    for position, branch in enumerate(node.get("oneOf") or []):
        _nested(branch, False, index(child(path, "oneOf"), position), report)
    if isinstance(node.get("not"), dict):
        _nested(node["not"], False, child(path, "not"), report)
    pattern = node.get("pattern")
    if isinstance(pattern, str) and pattern:
        problem = re2_problem(pattern)
        if problem:
            report.error(
                child(path, "pattern"), f"Invalid value: {pattern!r}: {problem}", node
            )


def _nested(node: Any, skip_any_of: bool, path: str, report: Report) -> None:
    if not isinstance(node, dict):
        return
    _value_validation(node, skip_any_of, False, path, report)
    if isinstance(node.get("items"), dict):
        _nested(node["items"], False, child(path, "items"), report)
    for name, value in (node.get("properties") or {}).items():
        _nested(value, False, key(child(path, "properties"), name), report)
    for name, detail in _FORBIDDEN_IN_JUNCTOR:
        if _is_set(node, name):
            report.error(child(path, name), f"Forbidden: {detail}", node)
    if isinstance(node.get("additionalProperties"), dict):
        _nested(
            node["additionalProperties"],
            False,
            child(path, "additionalProperties"),
            report,
        )
    if "metadata" in (node.get("properties") or {}):
        report.error(
            key(child(path, "properties"), "metadata"),
            "Forbidden: must not be specified in a nested context",
            node,
        )


def _completeness(
    value_node: dict[str, Any],
    structural: dict[str, Any] | None,
    s_path: str,
    v_path: str,
    report: Report,
) -> None:
    """Every field or item a junctor mentions must exist in the structural part."""
    for junctor in ("allOf", "anyOf", "oneOf"):
        for position, branch in enumerate(value_node.get(junctor) or []):
            if isinstance(branch, dict):
                _nested_completeness(
                    branch,
                    structural,
                    s_path,
                    index(child(v_path, junctor), position),
                    report,
                )
    if isinstance(value_node.get("not"), dict):
        _nested_completeness(
            value_node["not"], structural, s_path, child(v_path, "not"), report
        )


def _nested_completeness(
    branch: dict[str, Any],
    structural: dict[str, Any] | None,
    s_path: str,
    v_path: str,
    report: Report,
) -> None:
    if structural is None:
        report.error(
            s_path, f"Required value: because it is defined in {v_path}", branch
        )
        return
    _completeness(branch, structural, s_path, v_path, report)
    if isinstance(branch.get("items"), dict):
        items = structural.get("items")
        _nested_completeness(
            branch["items"],
            items if isinstance(items, dict) else None,
            child(s_path, "items"),
            child(v_path, "items"),
            report,
        )
    structural_properties = structural.get("properties") or {}
    for name, value in (branch.get("properties") or {}).items():
        if name not in structural_properties:
            report.error(
                key(child(s_path, "properties"), name),
                f"Required value: because it is defined in {key(child(v_path, 'properties'), name)}",
                branch,
            )
        elif isinstance(value, dict):
            _nested_completeness(
                value,
                structural_properties[name],
                key(child(s_path, "properties"), name),
                key(child(v_path, "properties"), name),
                report,
            )
