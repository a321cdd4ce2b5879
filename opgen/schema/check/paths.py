"""Resolve field paths (`.spec.foo['bar']`) against a schema, as the API server does.

Used for CEL `fieldPath`s, selectable fields, scale paths and printer columns.
Following Kubernetes' `ValidFieldPath`: `.name` and `['name']` step into a
property, or into a map value when the node has no properties but
`additionalProperties`; array indexes are not allowed.
"""

from __future__ import annotations

from typing import Any

__all__ = ["resolve_field_path", "simple_path_problem", "tokens"]


def tokens(path: str) -> list[str] | None:
    """Split `.a['b.c'].d` into names, or None when the path is malformed."""
    names: list[str] = []
    position = 0
    while position < len(path):
        char = path[position]
        if char == ".":
            end = position + 1
            while end < len(path) and path[end] not in ".[]":
                end += 1
            name = path[position + 1 : end]
            if not name:
                return None
            names.append(name)
            position = end
        elif char == "[":
            if path[position + 1 : position + 2] != "'":
                return None
            end = position + 2
            while end < len(path) and not (path[end] == "'" and path[end - 1] != "\\"):
                end += 1
            if end >= len(path) or path[end + 1 : end + 2] != "]":
                return None
            names.append(
                path[position + 2 : end].replace("\\'", "'").replace("\\\\", "\\")
            )
            position = end + 2
        else:
            return None
    return names


def resolve_field_path(path: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    """The schema node `path` points at, or None when it does not exist."""
    names = tokens(path)
    if names is None:
        return None
    node: Any = schema
    for name in names:
        if not isinstance(node, dict):
            return None
        properties = node.get("properties")
        if properties:
            node = properties.get(name)
        elif isinstance(node.get("additionalProperties"), dict):
            node = node["additionalProperties"]
        else:
            return None
        if node is None:
            return None
    return node if isinstance(node, dict) else None


def simple_path_problem(path: str) -> str | None:
    """The API server's check for scale and printer-column paths (`validateSimpleJSONPath`)."""
    if not path:
        return "must not be empty"
    if not path.startswith("."):
        return "must be a simple json path starting with ."
    return None
