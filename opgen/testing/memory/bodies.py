"""Request bodies as the memory server reads them: JSON documents, patches,
apply configurations."""

from __future__ import annotations

from typing import Any

import yaml

from opgen.testing.memory import answers
from opgen.testing.memory.patches import (
    JSON_PATCH,
    MERGE_PATCH,
    PatchError,
    apply_patch,
)
from opgen.testing.memory.store import decode

__all__ = ["json_document", "json_or_yaml", "patched"]


def patched(
    content_type: str | None, body: bytes | None, document: dict[str, Any]
) -> dict[str, Any]:
    """`document` with the request's patch applied."""
    if content_type not in (MERGE_PATCH, JSON_PATCH):
        raise answers.unsupported_media_type(content_type)
    try:
        patch = decode(body or b"null")
    except ValueError as error:
        raise answers.bad_request(f"invalid JSON in the patch: {error}") from error
    try:
        result = apply_patch(content_type, document, patch)
    except PatchError as error:
        raise answers.status(
            422,
            "Invalid",
            "the server rejected our request due to an error in our request",
        ) from error
    if not isinstance(result, dict):
        raise answers.bad_request("the patched object is not a JSON object")
    return result


def json_or_yaml(body: bytes) -> Any:
    try:
        return decode(body)
    except ValueError:
        return yaml.load(body, Loader=_YAML_LOADER)


_YAML_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def json_document(body: bytes | None) -> dict[str, Any]:
    try:
        document = decode(body or b"")
    except ValueError as error:
        raise answers.bad_request(
            f"the request body is not valid JSON: {error}"
        ) from error
    if not isinstance(document, dict):
        raise answers.bad_request("the request body is not a JSON object")
    return document
