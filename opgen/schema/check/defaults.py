"""Default values must validate against their own schema and be pruned.

The API server (`defaulting.ValidateDefaults`) refuses a CRD whose `default`
would be refused as a value, or would lose fields to pruning. Defaults under
`additionalProperties` are not checked (the server does not either); defaults
inside embedded object metadata are refused earlier by the OpenAPI rules.
Values are validated by `opgen.engine.values`, the same port of the server's
validators that opgen's models use. CEL rules are not evaluated here.
"""

from __future__ import annotations

from typing import Any

from opgen.engine.values import validate_value
from opgen.schema.check.report import Report, child, key

__all__ = ["check_defaults", "prune"]

_META_FIELDS = frozenset({"apiVersion", "kind", "metadata"})


def check_defaults(schema: dict[str, Any], path: str, report: Report) -> None:
    """Check every `default` in one version's openAPIV3Schema."""
    _walk(schema, path, report, embedded=True, inside_meta=False)


def _walk(
    node: Any, path: str, report: Report, *, embedded: bool, inside_meta: bool
) -> None:
    if not isinstance(node, dict):
        return
    embedded = embedded or bool(node.get("x-kubernetes-embedded-resource"))
    if "default" in node and not inside_meta:
        value = node["default"]
        pruned = prune(
            value, node, embedded=bool(node.get("x-kubernetes-embedded-resource"))
        )
        if pruned != value:
            report.error(
                child(path, "default"),
                f"Invalid value: {value!r}: must not have unknown fields",
                node,
                hint="the default holds fields the schema does not describe",
            )
        else:
            for problem in validate_value(value, node, "default"):
                report.error(
                    child(path, "default"), f"Invalid value: {value!r}: {problem}", node
                )
    if isinstance(node.get("items"), dict):
        _walk(
            node["items"],
            child(path, "items"),
            report,
            embedded=False,
            inside_meta=inside_meta,
        )
    for name, value in (node.get("properties") or {}).items():
        sub_meta = inside_meta or (embedded and name in _META_FIELDS)
        _walk(
            value,
            key(child(path, "properties"), name),
            report,
            embedded=False,
            inside_meta=sub_meta,
        )


def prune(value: Any, schema: Any, *, embedded: bool = False) -> Any:
    """`value` without the fields `schema` does not describe (the server's pruning)."""
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict):
        if schema.get("x-kubernetes-int-or-string"):
            return value
        preserve = bool(schema.get("x-kubernetes-preserve-unknown-fields"))
        properties = schema.get("properties") or {}
        additional = schema.get("additionalProperties")
        result: dict[str, Any] = {}
        for name, item in value.items():
            if name in properties:
                result[name] = prune(item, properties[name])
            elif isinstance(additional, dict):
                result[name] = prune(item, additional)
            elif additional is True or preserve or (embedded and name in _META_FIELDS):
                result[name] = item
        return result
    if isinstance(value, list):
        items = schema.get("items")
        return (
            [prune(item, items) for item in value] if isinstance(items, dict) else value
        )
    return value
