"""The API server's schema rules beyond structure (apiextensions `validation.go`).

Known keys only and of the right JSON type (the server decodes the schema into
`JSONSchemaProps`), supported `type`s, no `uniqueItems`, no
`additionalProperties` next to `properties`, list and map topology
(`x-kubernetes-list-type`, `-list-map-keys`, `-map-type`), CEL rule metadata,
no defaults in the root's metadata, no `nullable` root, and the fields allowed
at the root when the status subresource is on. CEL expressions themselves are
compiled by the server; only their use of `oldSelf` is checked here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from opgen.engine.openapi import OPENAPI_TYPES, is_known_format
from opgen.schema.check.report import Report, child, index, key
from opgen.schema.check.rules import check_rules
from opgen.schema.check.topology import check_topology

__all__ = ["check_openapi"]

_BOOL_KEYS = frozenset(
    {
        "exclusiveMaximum",
        "exclusiveMinimum",
        "uniqueItems",
        "nullable",
        "x-kubernetes-preserve-unknown-fields",
        "x-kubernetes-embedded-resource",
        "x-kubernetes-int-or-string",
    }
)
_INT_KEYS = frozenset(
    {"maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties"}
)
_NUMBER_KEYS = frozenset({"maximum", "minimum", "multipleOf"})
_STRING_KEYS = frozenset(
    {
        "id",
        "$schema",
        "$ref",
        "description",
        "type",
        "format",
        "title",
        "pattern",
        "x-kubernetes-list-type",
        "x-kubernetes-map-type",
    }
)
_OTHER_KEYS = frozenset(
    {
        "default",
        "enum",
        "required",
        "items",
        "allOf",
        "oneOf",
        "anyOf",
        "not",
        "properties",
        "additionalProperties",
        "patternProperties",
        "dependencies",
        "additionalItems",
        "definitions",
        "externalDocs",
        "example",
        "x-kubernetes-list-map-keys",
        "x-kubernetes-validations",
    }
)
KNOWN_KEYS = _BOOL_KEYS | _INT_KEYS | _NUMBER_KEYS | _STRING_KEYS | _OTHER_KEYS


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_name_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


_VALUE_TYPES: tuple[tuple[frozenset[str], Callable[[object], bool], str], ...] = (
    (_BOOL_KEYS, lambda v: isinstance(v, bool), "must be a boolean"),
    (_INT_KEYS, _is_int, "must be an integer"),
    (_NUMBER_KEYS, _is_number, "must be a number"),
    (_STRING_KEYS, lambda v: isinstance(v, str), "must be a string"),
    (frozenset({"required"}), _is_name_list, "must list field names"),
)
"""How the server decodes some keys: the keys, the test, and the message."""
_UNSUPPORTED = (
    ("id", "id is not supported"),
    ("$ref", "$ref is not supported"),
    ("definitions", "definitions is not supported"),
    ("patternProperties", "patternProperties is not supported"),
    ("dependencies", "dependencies is not supported"),
    ("additionalItems", "additionalItems is not supported"),
)
_ROOT_ALLOWED_WITH_STATUS = frozenset(
    {
        "description",
        "type",
        "format",
        "title",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "maxItems",
        "minItems",
        "uniqueItems",
        "multipleOf",
        "required",
        "items",
        "properties",
        "externalDocs",
        "example",
        "x-kubernetes-preserve-unknown-fields",
        "x-kubernetes-validations",
    }
)
_META_FIELDS = ("metadata", "kind", "apiVersion")


def check_openapi(
    schema: dict[str, Any], path: str, status: bool, report: Report
) -> None:
    """Check one version's openAPIV3Schema; `status` tells whether /status is enabled."""
    if status:
        for name, value in schema.items():
            if name == "type" and value != "object":
                report.error(
                    child(path, "type"),
                    f'Invalid value: {value!r}: only "object" is allowed as the type at the '
                    "root of the schema if the status subresource is enabled",
                    schema,
                )
            elif name not in _ROOT_ALLOWED_WITH_STATUS and value not in (
                None,
                False,
                [],
                {},
            ):
                report.error(
                    path,
                    f"Invalid value: only the fields {', '.join(sorted(_ROOT_ALLOWED_WITH_STATUS))} "
                    f"are allowed at the root of the schema if the status subresource is "
                    f"enabled (found {name})",
                    schema,
                )
    if schema.get("nullable"):
        report.error(
            child(path, "nullable"),
            "Forbidden: nullable cannot be true at the root",
            schema,
        )
    _Walker(report).walk(
        schema,
        path,
        is_root=True,
        defaults_forbidden=None,
        inside_meta=False,
        uncorrelatable=None,
    )


class _Walker:
    def __init__(self, report: Report) -> None:
        self.report = report

    def walk(
        self,
        node: Any,
        path: str,
        *,
        is_root: bool,
        defaults_forbidden: str | None,
        inside_meta: bool,
        uncorrelatable: str | None,
    ) -> None:
        report = self.report
        if not isinstance(node, dict):
            report.error(
                path, f"Invalid value: {node!r}: a schema must be an object", None
            )
            return
        self.keys(node, path)
        kind = node.get("type")
        if isinstance(kind, str) and kind:
            if kind == "null":
                report.error(
                    child(path, "type"),
                    "Forbidden: type cannot be set to null, use nullable as an alternative",
                    node,
                )
            elif kind not in OPENAPI_TYPES:
                report.error(
                    child(path, "type"),
                    f"Unsupported value: {kind!r}: supported values: "
                    + ", ".join(f'"{t}"' for t in sorted(OPENAPI_TYPES)),
                    node,
                )
        if "default" in node and defaults_forbidden is not None:
            report.error(
                child(path, "default"),
                f"Forbidden: must not be set {defaults_forbidden}",
                node,
            )
        for name, detail in _UNSUPPORTED:
            if name in node:
                report.error(child(path, name), f"Forbidden: {detail}", node)
        if isinstance(node.get("items"), list):
            report.error(
                child(path, "items"),
                "Forbidden: items must be a schema object and not an array",
                node,
            )
        if inside_meta and node.get("x-kubernetes-embedded-resource"):
            report.error(
                child(path, "x-kubernetes-embedded-resource"),
                "Forbidden: must not be used inside of resource meta",
                node,
            )
        if node.get("uniqueItems") is True:
            report.error(
                child(path, "uniqueItems"),
                "Forbidden: uniqueItems cannot be set to true since the runtime complexity "
                "becomes quadratic",
                node,
                hint="use op.ListType('set') (or a set[...] type)",
            )
        additional = node.get("additionalProperties")
        if additional is not None:
            if node.get("properties") and additional is not True:
                report.error(
                    child(path, "additionalProperties"),
                    "Forbidden: additionalProperties and properties are mutual exclusive",
                    node,
                )
            if isinstance(additional, dict):
                forbidden = (
                    "inside additionalProperties applying to object metadata"
                    if inside_meta
                    else defaults_forbidden
                )
                self.walk(
                    additional,
                    child(path, "additionalProperties"),
                    is_root=False,
                    defaults_forbidden=forbidden,
                    inside_meta=inside_meta,
                    uncorrelatable=uncorrelatable,
                )
        for name, value in (node.get("properties") or {}).items():
            sub_meta = inside_meta
            sub_forbidden = defaults_forbidden
            if (
                is_root or node.get("x-kubernetes-embedded-resource")
            ) and name in _META_FIELDS:
                sub_meta = True
                if is_root:
                    sub_forbidden = f"in top-level {name}"
            self.walk(
                value,
                key(child(path, "properties"), name),
                is_root=False,
                defaults_forbidden=sub_forbidden,
                inside_meta=sub_meta,
                uncorrelatable=uncorrelatable,
            )
        for junctor in ("allOf", "anyOf", "oneOf"):
            for position, branch in enumerate(node.get(junctor) or []):
                self.walk(
                    branch,
                    index(child(path, junctor), position),
                    is_root=False,
                    defaults_forbidden=defaults_forbidden,
                    inside_meta=inside_meta,
                    uncorrelatable=uncorrelatable,
                )
        if isinstance(node.get("not"), dict):
            self.walk(
                node["not"],
                child(path, "not"),
                is_root=False,
                defaults_forbidden=defaults_forbidden,
                inside_meta=inside_meta,
                uncorrelatable=uncorrelatable,
            )
        if isinstance(node.get("items"), dict):
            item_uncorrelatable = uncorrelatable
            if (
                node.get("x-kubernetes-list-type") != "map"
                and item_uncorrelatable is None
            ):
                item_uncorrelatable = path
            self.walk(
                node["items"],
                child(path, "items"),
                is_root=False,
                defaults_forbidden=defaults_forbidden,
                inside_meta=inside_meta,
                uncorrelatable=item_uncorrelatable,
            )
        if node.get("x-kubernetes-preserve-unknown-fields") is False:
            report.error(
                child(path, "x-kubernetes-preserve-unknown-fields"),
                "Invalid value: false: must be true or undefined",
                node,
            )
        check_topology(self.report, node, path)
        resource_root = is_root or bool(node.get("x-kubernetes-embedded-resource"))
        check_rules(self.report, node, path, uncorrelatable, resource_root)
        self.format(node, path)

    def keys(self, node: dict[str, Any], path: str) -> None:
        for name, value in node.items():
            if name not in KNOWN_KEYS:
                self.report.error(
                    child(path, name),
                    "Forbidden: not a field of a Kubernetes schema (JSONSchemaProps)",
                    node,
                )
                continue
            for keys, fits, expected in _VALUE_TYPES:
                if name in keys and not fits(value):
                    self.report.error(
                        child(path, name),
                        f"Invalid value: {value!r}: {expected}",
                        node,
                    )

    def format(self, node: dict[str, Any], path: str) -> None:
        fmt = node.get("format")
        if not isinstance(fmt, str) or not fmt:
            return
        kind = node.get("type") or ""
        if not is_known_format(fmt, kind):
            self.report.warn(
                child(path, "format"),
                f"the API server does not recognise format {fmt!r} for {kind or 'untyped'} values "
                "and ignores it",
                node,
            )
