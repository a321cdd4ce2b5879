"""What a CRD's schemas may be asked to leave out or spell out (controller-gen's options).

- `max_description_length` (`crd:maxDescLen`): descriptions longer than this
  are cut at the last sentence end before the limit (or the last space, with
  `...`); 0 drops every description. CRDs that embed pod templates are large,
  and descriptions are most of their size.
- `embedded_object_meta` (`crd:generateEmbeddedObjectMeta=true`): nested
  `ObjectMeta` (a pod template's `metadata`) describes name, namespace,
  labels, annotations and finalizers, so the API server keeps them instead of
  pruning them. The root `metadata` is always `{type: object}`. Below a field
  or type marked `op.EmbeddedObjectMeta(...)`, the marker's form holds instead.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from opgen.engine.markers import OBJECT_META_DESCRIBED, OBJECT_META_FLAG, SchemaNode

__all__ = [
    "DEFAULT_OPTIONS",
    "EMBEDDED_OBJECT_META_SCHEMA",
    "CrdOptions",
    "apply_options",
    "truncate_description",
]

_STRING_MAP: SchemaNode = {"type": "object", "additionalProperties": {"type": "string"}}

EMBEDDED_OBJECT_META_SCHEMA: SchemaNode = {
    "type": "object",
    "properties": {
        "annotations": _STRING_MAP,
        "finalizers": {"type": "array", "items": {"type": "string"}},
        "labels": _STRING_MAP,
        "name": {"type": "string"},
        "namespace": {"type": "string"},
    },
}
"""Nested ObjectMeta with the embedded-object-meta option (controller-gen's
`generateEmbeddedObjectMeta`)."""

# Unicode's Sentence_Terminal characters that appear in API documentation.
_SENTENCE_ENDS = frozenset(
    ".!?\u0589\u061f\u06d4\u0964\u0965\u203c\u203d\u3002\uff01\uff0e\uff1f\uff61"
)


@dataclass(frozen=True)
class CrdOptions:
    """Options for every CRD of one generation run."""

    max_description_length: int | None = None
    embedded_object_meta: bool = False

    def __post_init__(self) -> None:
        if self.max_description_length is not None and self.max_description_length < 0:
            raise ValueError("max_description_length must be 0 or more")


DEFAULT_OPTIONS = CrdOptions()
"""controller-gen's defaults: every description in full, nested ObjectMeta as `{type: object}`."""


def truncate_description(text: str, limit: int) -> str:
    """controller-gen's cut: at most `limit` bytes (UTF-8), ending at the last
    sentence end inside the limit, else at the last space followed by `...`."""
    encoded = text.encode("utf-8")
    if len(encoded) <= limit:
        return text
    cut = encoded[:limit].decode("utf-8", errors="ignore")
    for position in range(len(cut) - 1, 0, -1):
        if cut[position] in _SENTENCE_ENDS:
            return cut[: position + 1]
    for position in range(len(cut) - 1, 0, -1):
        if cut[position].isspace():
            return cut[:position] + "..."
    return cut + "..."


def apply_options(node: dict[str, Any], options: CrdOptions) -> None:
    """Apply `options` to one schema node, in place (the caller walks the tree
    and drops `OBJECT_META_FLAG` afterwards)."""
    form = node.get(OBJECT_META_FLAG)
    if form == OBJECT_META_DESCRIBED or (form is True and options.embedded_object_meta):
        node["properties"] = copy.deepcopy(EMBEDDED_OBJECT_META_SCHEMA["properties"])
    limit = options.max_description_length
    description = node.get("description")
    if limit is not None and isinstance(description, str):
        if limit == 0:
            del node["description"]
        else:
            node["description"] = truncate_description(description, limit)
