"""The patch types a memory server applies: JSON merge patch (RFC 7386) and JSON patch (RFC 6902).

JSON patch is the `jsonpatch` library's; a merge patch is the RFC's few
lines. Server-side apply is `managed`'s; strategic merge patch
(built-ins only) is `strategic`'s.
"""

from __future__ import annotations

from typing import Any

import jsonpatch

from opgen.testing.memory.store import json_copy

__all__ = ["APPLY_PATCH", "JSON_PATCH", "MERGE_PATCH", "PatchError", "apply_patch"]

MERGE_PATCH = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"


class PatchError(Exception):
    """A patch that cannot be applied (the server answers 422 or 400)."""


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386: objects merge key by key, `null` removes, anything else replaces."""
    if not isinstance(patch, dict):
        return json_copy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def apply_patch(content_type: str, target: dict[str, Any], patch: Any) -> Any:
    """`target` with `patch` of `content_type` applied; `target` is not changed."""
    if content_type == MERGE_PATCH:
        return merge_patch(target, patch)
    if not isinstance(patch, list):
        raise PatchError(
            "json: cannot unmarshal object into Go value of type jsonpatch.Patch"
        )
    try:
        # on a copy of its own (json_copy's, quicker than jsonpatch's deepcopy)
        return jsonpatch.apply_patch(json_copy(target), patch, in_place=True)
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as error:
        raise PatchError(str(error)) from error
