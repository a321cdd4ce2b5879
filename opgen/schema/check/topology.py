"""List and map topology rules (`x-kubernetes-list-type`, `-list-map-keys`, `-map-type`).

From apiextensions' `ValidateCustomResourceDefinitionOpenAPISchema` and
`validateMapListKeysMapSet`: topology keys need the matching type, `set`
lists need atomic items, `map` lists need object items keyed by required (or
defaulted), non-nullable scalar properties, and set/map items cannot be null.
"""

from __future__ import annotations

from typing import Any

from opgen.schema.check.report import Report, child, key

__all__ = ["check_topology"]


def check_topology(report: Report, node: dict[str, Any], path: str) -> None:
    """Check the list and map topology keys of one node."""
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
            "Required value" if list_type is None else f"Invalid value: {list_type!r}"
        )
        report.error(
            child(path, "x-kubernetes-list-type"),
            f"{detail}: must be map if x-kubernetes-list-map-keys is non-empty",
            node,
        )
    if list_type == "map":
        _map_list(report, node, path, items, map_keys)
    if list_type in ("set", "map") and items is not None and items.get("nullable"):
        report.error(
            child(child(path, "items"), "nullable"),
            f"Forbidden: cannot be nullable when x-kubernetes-list-type is {list_type}",
            node,
        )


def _map_list(
    report: Report,
    node: dict[str, Any],
    path: str,
    items: dict[str, Any] | None,
    map_keys: list[Any],
) -> None:
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
