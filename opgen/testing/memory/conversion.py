"""Objects between the served versions of a CRD, as the API server converts them.

A CRD's objects are stored in its storage version (`storage: true`) whatever
version wrote them, and every read, list and watch answers in the version it
asked for. `Versions.convert` turns an object into another version of its
kind: with the CRD's conversion strategy `None` only `apiVersion` changes;
with `Webhook` the project's converter answers a ConversionReview in process
(`handlers.Handlers`, at the CRD's `clientConfig` path), and a failure is the
server's 500 (`conversion webhook for <group>/<version>, Kind=<kind>
failed: ...`). The result is pruned and defaulted by the target version's
schema, as the server does with what a webhook returns.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from opgen.testing.memory import answers
from opgen.testing.memory.kinds import Kind, Kinds
from opgen.testing.memory.schema import prune_and_default
from opgen.testing.memory.store import json_copy

if TYPE_CHECKING:
    from opgen.testing.memory.handlers import Handlers

__all__ = ["Versions"]

CONVERSION_API_VERSION = "apiextensions.k8s.io/v1"


class Versions:
    """Converts objects between the served versions of `kinds`."""

    def __init__(self, kinds: Kinds, handlers: Callable[[], Handlers | None]) -> None:
        self.kinds = kinds
        self._handlers = handlers

    def kind_of(self, kind: Kind, version: str) -> Kind:
        """The served `version` of `kind`."""
        if version == kind.version:
            return kind
        found = self.kinds.lookup(kind.group, version, kind.plural)
        if found is None:
            raise answers.status(
                500,
                "InternalError",
                f"{kind.group}/{version} {kind.kind} is not served",
            )
        return found

    def served(self, kind: Kind) -> list[Kind]:
        """The other served versions of `kind`'s resource."""
        return [
            other
            for other in self.kinds.served(kind.group, kind.plural)
            if other.version != kind.version
        ]

    def to_storage(self, kind: Kind, obj: dict[str, Any]) -> dict[str, Any]:
        """`obj` (of `kind`'s version) in the version it is stored in."""
        if kind.stored_as == kind.version:
            return obj
        return self.convert(obj, self.kind_of(kind, kind.stored_as))

    def to_served(self, kind: Kind, obj: dict[str, Any]) -> dict[str, Any]:
        """A stored object in `kind`'s version."""
        if kind.stored_as == kind.version:
            return obj
        return self.convert(obj, kind)

    def convert(self, obj: dict[str, Any], target: Kind) -> dict[str, Any]:
        """`obj` converted to `target`'s version (itself when already in it)."""
        if obj.get("apiVersion") == target.api_version or target.builtin:
            return obj
        strategy = (target.conversion or {}).get("strategy") or "None"
        if strategy == "None":
            converted = {**obj, "apiVersion": target.api_version}
        else:
            converted = self._by_webhook(obj, target)
        if target.schema is not None:
            converted = prune_and_default(target.schema, converted)
        return converted

    def _by_webhook(self, obj: dict[str, Any], target: Kind) -> dict[str, Any]:
        webhook = (target.conversion or {}).get("webhook") or {}
        client = webhook.get("clientConfig") or {}
        path = (client.get("service") or {}).get("path")
        if path is None:
            path = (
                "/" + str(client.get("url") or "").split("://", 1)[-1].partition("/")[2]
            )
        uid = str(uuid.uuid4())
        review = {
            "apiVersion": CONVERSION_API_VERSION,
            "kind": "ConversionReview",
            "request": {
                "uid": uid,
                "desiredAPIVersion": target.api_version,
                "objects": [json_copy(obj)],
            },
        }
        source = f"{obj.get('apiVersion')}, Kind={target.kind}"
        handlers = self._handlers()
        answer = None if handlers is None else handlers.review(str(path or "/"), review)
        if answer is None or answer.status != 200:
            why = (
                f"no conversion handler is served at {path}"
                if answer is None
                else f"the server responded with the status code {answer.status}"
            )
            raise _failed(source, why)
        response = answer.document.get("response") or {}
        result = response.get("result") or {}
        converted = response.get("convertedObjects") or []
        if result.get("status") != "Success" or len(converted) != 1:
            raise _failed(source, str(result.get("message") or "the webhook failed"))
        if response.get("uid") != uid:
            raise _failed(source, "the response is not for this request")
        document = converted[0]
        if not isinstance(document, dict):
            raise _failed(source, "the converted object is not an object")
        return document


def _failed(source: str, why: str) -> answers.Refusal:
    return answers.status(
        500, "InternalError", f"conversion webhook for {source} failed: {why}"
    )
