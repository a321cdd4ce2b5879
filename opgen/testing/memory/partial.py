"""Metadata-only answers, as kube-apiserver 1.36 gives them to an `Accept` that asks
`as=PartialObjectMetadataList` (a list) or `as=PartialObjectMetadata` (a get, a
watch's events) in `meta.k8s.io/v1`, as controller-runtime's metadata client does.

Each object becomes `{"kind": "PartialObjectMetadata", "apiVersion":
"meta.k8s.io/v1", "metadata": ...}` with its whole `metadata` (managed fields
included); a list keeps its `resourceVersion`, `continue` and
`remainingItemCount`, and its `items` are null when there is none. Error answers
(`Status`) and a watch's ERROR events are sent as they are. Asking a list for
`PartialObjectMetadata` is refused (406), and a single object for the list form
fails (500), as on kube-apiserver. The server's `Content-Type` stays
`application/json`.
"""

from __future__ import annotations

import functools
from typing import Any, Literal

from opgen.testing.memory import answers

__all__ = ["Form", "asked_form", "metadata_answer", "metadata_event"]

Form = Literal["PartialObjectMetadata", "PartialObjectMetadataList"]
_FORMS: tuple[Form, ...] = ("PartialObjectMetadata", "PartialObjectMetadataList")
GROUP_VERSION = "meta.k8s.io/v1"


@functools.lru_cache(maxsize=64)
def asked_form(accept: str | None) -> Form | None:
    """The metadata-only form the first JSON media type of `accept` asks for (None:
    the objects whole). The memory server speaks JSON alone: other media types
    (protobuf) are passed over, as the API server passes over those it cannot give.
    Read once an `Accept` (a client sends the same few on every request)."""
    for media in (accept or "").split(","):
        kind, *parameters = (part.strip() for part in media.split(";"))
        if kind not in ("application/json", "application/*", "*/*"):
            continue
        named = dict(p.partition("=")[::2] for p in parameters)
        form = named.get("as")
        if form is None:
            return None
        if (
            form in _FORMS
            and named.get("g") == "meta.k8s.io"
            and named.get("v") == "v1"
        ):
            return "PartialObjectMetadata" if form == _FORMS[0] else _FORMS[1]
    return None


def _partial(obj: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": "PartialObjectMetadata",
        "apiVersion": GROUP_VERSION,
        "metadata": obj.get("metadata") or {},
    }


def _partial_list(document: dict[str, Any]) -> dict[str, Any]:
    meta = document.get("metadata") or {}
    kept = {
        key: meta[key]
        for key in ("resourceVersion", "continue", "remainingItemCount")
        if meta.get(key) not in (None, "")
    }
    items = [_partial(item) for item in document.get("items") or ()]
    return {
        "kind": "PartialObjectMetadataList",
        "apiVersion": GROUP_VERSION,
        "metadata": kept,
        "items": items or None,
    }


def metadata_answer(
    form: Form, code: int, document: dict[str, Any]
) -> tuple[int, dict[str, Any]]:
    """A successful answer's `document` in `form` (an error answer as it is)."""
    if code >= 400 or document.get("kind") == "Status":
        return code, document
    is_list = "items" in document
    if form == "PartialObjectMetadataList":
        if not is_list:
            refusal = answers.status(500, "", "content is not a list")
            assert refusal.body is not None
            del refusal.body["reason"]  # the API server names none
            return refusal.code, refusal.body
        return code, _partial_list(document)
    if is_list:
        refusal = answers.status(
            406,
            "NotAcceptable",
            "you requested PartialObjectMetadata, but the requested object is a list",
        )
        assert refusal.body is not None
        return refusal.code, refusal.body
    return code, _partial(document)


def metadata_event(event: dict[str, Any]) -> dict[str, Any]:
    """A watch event with its object as `PartialObjectMetadata` (an ERROR as it is)."""
    if event.get("type") == "ERROR":
        return event
    return {"type": event["type"], "object": _partial(event["object"])}
