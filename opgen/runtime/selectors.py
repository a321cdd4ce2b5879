"""Label and field selectors: one form for the API server and the cache.

A selector is given either as a mapping (`{"app": "web"}`: equality on every
key) or as the API server's string syntax (`"app=web,tier!=db,env in (a,b),
!legacy,owner"`). `to_query` renders it for a request; `labels_match` and
`fields_match` evaluate it against cached entries so that a cached `list`
answers like the server would.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["Selector", "fields_match", "labels_match", "to_query"]

Selector = Mapping[str, str] | str

_SET_RE = re.compile(r"^\s*([^\s!=]+)\s+(in|notin)\s+\(([^)]*)\)\s*$")


def to_query(selector: Selector | None) -> str | None:
    if selector is None:
        return None
    if isinstance(selector, str):
        return selector or None
    return ",".join(f"{k}={v}" for k, v in sorted(selector.items())) or None


def _split(selector: str) -> list[str]:
    """Split on commas that are not inside parentheses."""
    if "(" not in selector and ")" not in selector:  # every comma splits
        return [p.strip() for p in selector.split(",") if p.strip()]
    parts: list[str] = []
    depth = 0
    current = ""
    for char in selector:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return [p.strip() for p in parts if p.strip()]


def labels_match(selector: Selector | None, labels: Mapping[str, str]) -> bool:
    """Whether `labels` satisfy a label selector."""
    if selector is None:
        return True
    if not isinstance(selector, str):
        return all(labels.get(k) == v for k, v in selector.items())
    for requirement in _split(selector):
        if not _requirement_matches(requirement, labels):
            return False
    return True


def _requirement_matches(requirement: str, labels: Mapping[str, str]) -> bool:
    set_match = _SET_RE.match(requirement)
    if set_match:
        key, op, values = set_match.groups()
        allowed = {v.strip() for v in values.split(",") if v.strip()}
        if op == "in":
            return key in labels and labels[key] in allowed
        return key not in labels or labels[key] not in allowed
    if "!=" in requirement:
        key, value = (s.strip() for s in requirement.split("!=", 1))
        return labels.get(key) != value
    if "==" in requirement:
        key, value = (s.strip() for s in requirement.split("==", 1))
        return labels.get(key) == value
    if "=" in requirement:
        key, value = (s.strip() for s in requirement.split("=", 1))
        return labels.get(key) == value
    if requirement.startswith("!"):
        return requirement[1:].strip() not in labels
    return requirement in labels


def _field_value(obj: Mapping[str, Any], path: str) -> str | None:
    value: Any = obj
    for part in path.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def fields_match(selector: Selector | None, obj: Mapping[str, Any]) -> bool:
    """Whether a decoded object satisfies a field selector (`=`, `==`, `!=`)."""
    if selector is None:
        return True
    if not isinstance(selector, str):
        return all(_field_value(obj, k) == v for k, v in selector.items())
    for requirement in _split(selector):
        if "!=" in requirement:
            key, value = (s.strip() for s in requirement.split("!=", 1))
            if (_field_value(obj, key) or "") == value:
                return False
            continue
        key, value = (s.strip() for s in re.split(r"==?", requirement, maxsplit=1))
        if (_field_value(obj, key) or "") != value:
            return False
    return True
