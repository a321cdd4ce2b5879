"""JSON documents: what a defaulter changed, as a JSON patch (RFC 6902) on what was sent.

A defaulter changes a typed object; the API server needs a patch on the JSON
it sent, which may hold fields the Python model does not know and values the
model writes differently (`1` for a quantity the model dumps as `"1"`). So the
patch is found in two steps:

1. `carry_over(sent, before, after)`: `before` and `after` are the model's dumps
   before and after the defaulter ran; every place where they differ is
   carried onto `sent`, everything else of `sent` stays as it was;
2. `diff(sent, wanted)`: the JSON patch from `sent` to that result.

Equality is JSON's: `1`, `1.0` and `true` are three different values.
"""

from __future__ import annotations

import marshal
from typing import Any

__all__ = ["carry_over", "diff", "escape", "same"]

Patch = list[dict[str, Any]]


def same(a: Any, b: Any) -> bool:
    """Whether two JSON values are equal as JSON (no `True == 1` as in Python)."""
    if type(a) is not type(b) or a != b:
        return False  # unequal in Python: unequal as JSON too
    if isinstance(a, dict | list):
        return _same_types(a, b)
    return True


def _same_types(a: Any, b: Any) -> bool:
    """For two documents equal in Python: whether they are equal as JSON, where
    `1`, `1.0` and `true` differ. Their marshal forms (version 0: no interned
    strings or back-references to tell equal values apart) are equal when every
    value has the same type and the dicts the same key order, as a document
    compared with its own dump has; only otherwise are they walked, and when
    the text `nan` is in them (version 0 writes a float as its repr; a NaN
    held in both at once is equal in Python, as the same object, not in JSON)."""
    try:
        written = marshal.dumps(a, 0)
        if written == marshal.dumps(b, 0) and b"nan" not in written:
            return True
    except ValueError:  # a dict or str subclass marshal does not write
        pass
    return _walked_same(a, b)


def _walked_same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_walked_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(
            _walked_same(x, y) for x, y in zip(a, b, strict=True)
        )
    return bool(a == b)


def escape(token: str) -> str:
    """A key as a JSON pointer token (RFC 6901): `~` is `~0`, `/` is `~1`."""
    return token.replace("~", "~0").replace("/", "~1")


def carry_over(sent: Any, before: Any, after: Any) -> Any:
    """`sent` with every change from `before` to `after` applied (a new value)."""
    if same(before, after):
        return sent
    if isinstance(before, dict) and isinstance(after, dict) and isinstance(sent, dict):
        result = dict(sent)
        for key in [*after, *(k for k in before if k not in after)]:
            if key not in after:
                result.pop(key, None)
            elif key not in before or key not in sent:
                if key not in before or not same(before[key], after[key]):
                    result[key] = after[key]
            else:
                result[key] = carry_over(sent[key], before[key], after[key])
        return result
    if (
        isinstance(before, list)
        and isinstance(after, list)
        and isinstance(sent, list)
        and len(before) == len(after) == len(sent)
    ):
        return [
            carry_over(s, b, a) for s, b, a in zip(sent, before, after, strict=True)
        ]
    return after


def diff(source: Any, target: Any, path: str = "") -> Patch:
    """The JSON patch that turns `source` into `target` (empty when they are the same).

    A part of `target` that is the very object of `source`'s (what `carry_over`
    kept of `sent`) is not compared: nothing to patch there."""
    if source is target or same(source, target):
        return []
    return _changes(source, target, path)


def _changes(source: Any, target: Any, path: str) -> Patch:
    """`diff` of two values that differ; each path written only for a change."""
    if isinstance(source, dict) and isinstance(target, dict):
        ops: Patch = []
        for key in source:
            if key not in target:
                ops.append({"op": "remove", "path": f"{path}/{escape(key)}"})
        for key, value in target.items():
            if key not in source:
                where = f"{path}/{escape(key)}"
                ops.append({"op": "add", "path": where, "value": value})
                continue
            old = source[key]
            if old is not value and not same(old, value):
                ops.extend(_changes(old, value, f"{path}/{escape(key)}"))
        return ops
    if (
        isinstance(source, list)
        and isinstance(target, list)
        and len(source) == len(target)
    ):
        return [
            op
            for index, (old, new) in enumerate(zip(source, target, strict=True))
            if old is not new and not same(old, new)
            for op in _changes(old, new, f"{path}/{index}")
        ]
    return [{"op": "replace", "path": path, "value": target}]
