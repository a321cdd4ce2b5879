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

import re
from typing import Any

from opgen.api._cel import REASONS, uses_old_self
from opgen.api._validation import NUMBER_FORMATS, OPENAPI_TYPES, STRING_FORMATS
from opgen.schema.check.paths import resolve_field_path
from opgen.schema.check.report import Report, child, index, key

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
_NEWLINE = re.compile(r"[\n\r]")
_KNOWN_STRING_FORMATS = frozenset(f.replace("-", "") for f in STRING_FORMATS)


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
        self.topology(node, path)
        self.validations(node, path, uncorrelatable)
        self.format(node, path)

    def keys(self, node: dict[str, Any], path: str) -> None:
        for name, value in node.items():
            if name not in KNOWN_KEYS:
                self.report.error(
                    child(path, name),
                    "Forbidden: not a field of a Kubernetes schema (JSONSchemaProps)",
                    node,
                )
            elif name in _BOOL_KEYS and not isinstance(value, bool):
                self.report.error(
                    child(path, name),
                    f"Invalid value: {value!r}: must be a boolean",
                    node,
                )
            elif name in _INT_KEYS and (
                isinstance(value, bool) or not isinstance(value, int)
            ):
                self.report.error(
                    child(path, name),
                    f"Invalid value: {value!r}: must be an integer",
                    node,
                )
            elif name in _NUMBER_KEYS and (
                isinstance(value, bool) or not isinstance(value, int | float)
            ):
                self.report.error(
                    child(path, name),
                    f"Invalid value: {value!r}: must be a number",
                    node,
                )
            elif name in _STRING_KEYS and not isinstance(value, str):
                self.report.error(
                    child(path, name),
                    f"Invalid value: {value!r}: must be a string",
                    node,
                )
            elif name == "required" and not (
                isinstance(value, list) and all(isinstance(v, str) for v in value)
            ):
                self.report.error(
                    child(path, name),
                    f"Invalid value: {value!r}: must list field names",
                    node,
                )

    def topology(self, node: dict[str, Any], path: str) -> None:
        report = self.report
        kind = node.get("type") or ""
        map_type = node.get("x-kubernetes-map-type")
        if map_type is not None:
            if kind != "object":
                detail = "Required value" if not kind else f"Invalid value: {kind!r}"
                report.error(
                    child(path, "type"),
                    f"{detail}: must be object if x-kubernetes-map-type is specified",
                    node,
                )
            if map_type not in ("atomic", "granular"):
                report.error(
                    child(path, "x-kubernetes-map-type"),
                    f'Unsupported value: {map_type!r}: supported values: "atomic", "granular"',
                    node,
                )
        list_type = node.get("x-kubernetes-list-type")
        items = node.get("items") if isinstance(node.get("items"), dict) else None
        if list_type is not None and kind != "array":
            detail = "Required value" if not kind else f"Invalid value: {kind!r}"
            report.error(
                child(path, "type"),
                f"{detail}: must be array if x-kubernetes-list-type is specified",
                node,
            )
        elif list_type == "set" and items is not None:
            item_kind = items.get("type")
            if item_kind == "array" and items.get("x-kubernetes-list-type") not in (
                None,
                "atomic",
            ):
                report.error(
                    child(child(path, "items"), "x-kubernetes-list-type"),
                    "Invalid value: must be atomic as item of a list with x-kubernetes-list-type=set",
                    node,
                )
            if item_kind == "object" and items.get("x-kubernetes-map-type") != "atomic":
                report.error(
                    child(child(path, "items"), "x-kubernetes-map-type"),
                    "Invalid value: must be atomic as item of a list with x-kubernetes-list-type=set",
                    node,
                    hint="give the item model op.StructType('atomic'), or use ListType('map')",
                )
        if list_type is not None and list_type not in ("atomic", "set", "map"):
            report.error(
                child(path, "x-kubernetes-list-type"),
                f'Unsupported value: {list_type!r}: supported values: "atomic", "map", "set"',
                node,
            )
        map_keys = node.get("x-kubernetes-list-map-keys") or []
        if map_keys and list_type != "map":
            detail = (
                "Required value"
                if list_type is None
                else f"Invalid value: {list_type!r}"
            )
            report.error(
                child(path, "x-kubernetes-list-type"),
                f"{detail}: must be map if x-kubernetes-list-map-keys is non-empty",
                node,
            )
        if list_type == "map":
            self.map_list(node, path, items, map_keys)
        if list_type in ("set", "map") and items is not None and items.get("nullable"):
            report.error(
                child(child(path, "items"), "nullable"),
                f"Forbidden: cannot be nullable when x-kubernetes-list-type is {list_type}",
                node,
            )

    def map_list(
        self,
        node: dict[str, Any],
        path: str,
        items: dict[str, Any] | None,
        map_keys: list[Any],
    ) -> None:
        report = self.report
        if not map_keys:
            report.error(
                child(path, "x-kubernetes-list-map-keys"),
                "Required value: must not be empty if x-kubernetes-list-type is map",
                node,
            )
        if items is None:
            report.error(
                child(path, "items"),
                "Required value: must have a schema if x-kubernetes-list-type is map",
                node,
            )
            return
        if items.get("type") != "object":
            report.error(
                child(child(path, "items"), "type"),
                f"Invalid value: {items.get('type')!r}: must be object if parent array's "
                "x-kubernetes-list-type is map",
                node,
            )
            return
        properties = items.get("properties") or {}
        required = set(items.get("required") or ())
        seen: set[str] = set()
        for map_key in map_keys:
            prop = properties.get(map_key)
            prop_path = key(child(child(path, "items"), "properties"), str(map_key))
            if prop is None:
                report.error(
                    child(path, "x-kubernetes-list-map-keys"),
                    f"Invalid value: {map_keys!r}: entries must all be names of item properties "
                    f"({map_key!r} is not)",
                    node,
                )
            else:
                if prop.get("type") in ("array", "object"):
                    report.error(
                        child(prop_path, "type"),
                        "Invalid value: must be a scalar type if parent array's "
                        "x-kubernetes-list-type is map",
                        node,
                    )
                if map_key not in required and "default" not in prop:
                    report.error(
                        child(prop_path, "default"),
                        "Required value: this property is in x-kubernetes-list-map-keys, so it "
                        "must have a default or be a required property",
                        node,
                        hint="make the key field required (no default) or give it a non-empty default",
                    )
                if prop.get("nullable"):
                    report.error(
                        child(prop_path, "nullable"),
                        "Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot "
                        "be nullable",
                        node,
                    )
            if map_key in seen:
                report.error(
                    child(path, "x-kubernetes-list-map-keys"),
                    f"Invalid value: {map_keys!r}: must not contain duplicate entries",
                    node,
                )
            seen.add(map_key)

    def validations(
        self, node: dict[str, Any], path: str, uncorrelatable: str | None
    ) -> None:
        report = self.report
        rules = node.get("x-kubernetes-validations")
        if rules is None:
            return
        if not isinstance(rules, list):
            report.error(
                child(path, "x-kubernetes-validations"),
                "Invalid value: must be a list",
                node,
            )
            return
        for position, rule in enumerate(rules):
            rule_path = index(child(path, "x-kubernetes-validations"), position)
            if not isinstance(rule, dict):
                report.error(rule_path, "Invalid value: must be an object", node)
                continue
            for name in rule:
                if name not in (
                    "rule",
                    "message",
                    "messageExpression",
                    "reason",
                    "fieldPath",
                    "optionalOldSelf",
                ):
                    report.error(
                        child(rule_path, name),
                        "Forbidden: not a field of a validation rule",
                        node,
                    )
            text = str(rule.get("rule") or "")
            message = rule.get("message")
            trimmed_message = str(message or "").strip()
            if not text.strip():
                report.error(
                    child(rule_path, "rule"),
                    "Required value: rule is not specified",
                    node,
                )
            elif message is not None and message != "" and not trimmed_message:
                report.error(
                    child(rule_path, "message"),
                    "Invalid value: must be non-empty if specified",
                    node,
                )
            elif _NEWLINE.search(trimmed_message):
                report.error(
                    child(rule_path, "message"),
                    "Invalid value: must not contain line breaks",
                    node,
                )
            elif _NEWLINE.search(text.strip()) and not trimmed_message:
                report.error(
                    child(rule_path, "message"),
                    "Required value: message must be specified if rule contains line breaks",
                    node,
                )
            expression = rule.get("messageExpression")
            if (
                expression is not None
                and expression != ""
                and not str(expression).strip()
            ):
                report.error(
                    child(rule_path, "messageExpression"),
                    "Required value: messageExpression must be non-empty if specified",
                    node,
                )
            reason = rule.get("reason")
            if reason is not None and reason not in REASONS:
                report.error(
                    child(rule_path, "reason"),
                    f"Unsupported value: {reason!r}: supported values: "
                    + ", ".join(f'"{r}"' for r in sorted(REASONS)),
                    node,
                )
            field_path = rule.get("fieldPath")
            if field_path is not None and field_path != "":
                if not str(field_path).strip() or _NEWLINE.search(str(field_path)):
                    report.error(
                        child(rule_path, "fieldPath"),
                        f"Invalid value: {field_path!r}: must be non-empty and one line",
                        node,
                    )
                elif resolve_field_path(str(field_path), node) is None:
                    report.error(
                        child(rule_path, "fieldPath"),
                        f"Invalid value: {field_path!r}: must be a valid path",
                        node,
                    )
            if uses_old_self(text):
                if uncorrelatable is not None:
                    report.error(
                        child(rule_path, "rule"),
                        f"Invalid value: {text!r}: oldSelf cannot be used on the uncorrelatable "
                        f"portion of the schema within {uncorrelatable}",
                        node,
                        hint="items of a list are only correlated between updates when the list "
                        "is op.ListType('map')",
                    )
            elif rule.get("optionalOldSelf") is not None:
                report.error(
                    child(rule_path, "optionalOldSelf"),
                    "Invalid value: may not be set if oldSelf is not used in rule",
                    node,
                )

    def format(self, node: dict[str, Any], path: str) -> None:
        fmt = node.get("format")
        if not isinstance(fmt, str) or not fmt:
            return
        kind = node.get("type") or ""
        if kind in NUMBER_FORMATS:
            known = fmt in NUMBER_FORMATS[kind]
        elif kind in ("", "string"):
            known = fmt.replace("-", "") in _KNOWN_STRING_FORMATS
        else:
            known = False
        if not known:
            self.report.warn(
                child(path, "format"),
                f"the API server does not recognise format {fmt!r} for {kind or 'untyped'} values "
                "and ignores it",
                node,
            )
