"""ConversionReview v1: every object converted through its kind's hub version.

A converter (declared with `@op.conversion(hub=H, spoke=S)`) has
`convert_to_hub(spoke) -> hub` and `convert_from_hub(hub) -> spoke`, plain
functions of typed objects. The API server sends `objects` and the
`desiredAPIVersion`; each object is converted on its own:

- already in the desired version: returned exactly as sent;
- spoke → hub: `convert_to_hub`; hub → spoke: `convert_from_hub`; spoke →
  spoke: through the hub, both;
- `metadata` is the object's own, as sent (the API server refuses any change
  but labels and annotations), so names, UIDs and resourceVersions stay;
- the answer lists the converted objects in the request's order, under the
  request's UID; any object that cannot be converted fails the whole review
  with its message (the API server then fails the client's request).

Fields a spoke cannot express survive a round trip through it: converting
hub → spoke also converts the result back, and every place where that round
trip differs from the hub is recorded on the spoke, in the annotation
`conversion.opgen.dev/hub-fields` (a JSON list of `{path, hub, spoke}`).
Converting that spoke back to the hub restores each recorded hub value unless
the spoke's own conversion now gives another value there than it did (the
client changed that field through the spoke: its change wins), and drops the
annotation. With the hub as the storage version, the annotation only ever
exists in spoke views: nothing of it is stored.

The objects are decoded into their Python classes: whatever those do not hold
(fields of a CRD newer than the running operator) is not carried over.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from pydantic import ValidationError

from opgen.engine.cel.rules import rules_skipped
from opgen.model.webhooks import Conversion
from opgen.runtime.metrics import Metrics
from opgen.runtime.resources import resource_type
from opgen.runtime.webhook import jsonpatch
from opgen.runtime.webhook.review import (
    Answer,
    BadReview,
    read_json,
    review_request,
)

__all__ = [
    "CONVERSION_API_VERSION",
    "PRESERVED_ANNOTATION",
    "ConversionHandler",
    "Converter",
]

log = logging.getLogger("opgen.runtime.webhook")

CONVERSION_API_VERSION = "apiextensions.k8s.io/v1"
PRESERVED_ANNOTATION = "conversion.opgen.dev/hub-fields"
_WIRE_ONLY = ("apiVersion", "kind", "metadata")
_ABSENT: Any = object()

S = TypeVar("S")
H = TypeVar("H")


class Converter(Protocol[S, H]):
    """Converts one spoke version of a kind to and from the hub version."""

    def convert_to_hub(self, spoke: S) -> H: ...

    def convert_from_hub(self, hub: H) -> S: ...


class ConversionFailure(Exception):
    """An object the review cannot convert; the review fails with this message."""


@dataclass(frozen=True)
class _Spoke:
    cls: type
    converter: Any


@dataclass
class _Route:
    """The conversions of one (group, kind)."""

    hub_version: str
    hub_cls: type
    spokes: dict[str, _Spoke] = field(default_factory=dict)


class ConversionHandler:
    """Answers the ConversionReviews sent to `/convert`, for every registered kind."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        self.routes: dict[tuple[str, str], _Route] = {}

    def add(self, declaration: Conversion, converter: object) -> None:
        """Register `converter` for its declared spoke; one hub per kind."""
        key = (declaration.group, declaration.kind)
        route = self.routes.setdefault(
            key, _Route(declaration.hub_version, declaration.hub)
        )
        if route.hub_version != declaration.hub_version:
            raise ValueError(
                f"{declaration.kind}.{declaration.group} has two hubs: "
                f"{route.hub_version} and {declaration.hub_version}"
            )
        if declaration.spoke_version in route.spokes:
            raise ValueError(
                f"{declaration.kind}.{declaration.group} {declaration.spoke_version} "
                "already has a converter"
            )
        route.spokes[declaration.spoke_version] = _Spoke(declaration.spoke, converter)

    def refusal(self, status: int, reason: str, message: str) -> Answer:
        """A failed ConversionReview for a request the server could not read."""
        return Answer(status, _review("", _failure(message)))

    async def review(self, body: bytes) -> Answer:
        """The ConversionReview answering `body`: 200 with a response, or 400 when
        the body is no ConversionReview."""
        try:
            document = read_json(body)
        except BadReview as bad:
            log.warning("/convert: bad request: %s", bad.message)
            return Answer(400, _review(bad.uid, _failure(bad.message)))
        return await self.answer(document)

    async def answer(self, document: object) -> Answer:
        """The ConversionReview answering a review document already read (`review`
        after the JSON; the memory server's in-process call)."""
        try:
            request = review_request(
                document,
                kind="ConversionReview",
                api_versions=(CONVERSION_API_VERSION,),
            )
            desired, objects = _request_parts(request)
        except BadReview as bad:
            log.warning("/convert: bad request: %s", bad.message)
            return Answer(400, _review(bad.uid, _failure(bad.message)))
        uid = str(request["uid"])
        try:
            with rules_skipped():  # see _decode
                converted = [self._convert(obj, desired) for obj in objects]
        except ConversionFailure as failure:
            log.warning("/convert: %s", failure)
            return Answer(200, _review(uid, _failure(str(failure))))
        except Exception as error:
            log.exception("a converter raised while answering request %s", uid)
            self.metrics.conversion_panics.inc()
            message = str(error) or type(error).__name__
            return Answer(200, _review(uid, _failure(f"conversion failed: {message}")))
        response = {"convertedObjects": converted, "result": {"status": "Success"}}
        return Answer(200, _review(uid, response))

    def convert(self, raw: Mapping[str, Any], desired: str) -> dict[str, Any]:
        """`raw` (wire JSON) as `desired` (`group/version`), as a review converts it;
        ConversionFailure when it cannot be converted."""
        with rules_skipped():  # see _decode
            return self._convert(copy.deepcopy(dict(raw)), desired)

    def _convert(self, raw: object, desired: str) -> dict[str, Any]:
        if not isinstance(raw, dict):
            raise ConversionFailure(f"an object to convert is a {type(raw).__name__}")
        api_version, kind = raw.get("apiVersion"), raw.get("kind")
        if not isinstance(api_version, str) or not isinstance(kind, str):
            raise ConversionFailure("an object to convert has no apiVersion or kind")
        group, _, version = api_version.rpartition("/")
        desired_group, _, desired_version = desired.rpartition("/")
        if group != desired_group:
            raise ConversionFailure(
                f"cannot convert {kind} from {api_version} to another group ({desired})"
            )
        if version == desired_version:
            return raw
        route = self.routes.get((group, kind))
        if route is None:
            raise ConversionFailure(f"no conversions are registered for {kind}.{group}")
        for wanted in (version, desired_version):
            if wanted != route.hub_version and wanted not in route.spokes:
                known = ", ".join(sorted({route.hub_version, *route.spokes}))
                raise ConversionFailure(
                    f"{kind}.{group} has no conversion for version {wanted} "
                    f"(it converts {known})"
                )
        hub = raw if version == route.hub_version else self._to_hub(route, version, raw)
        if desired_version == route.hub_version:
            return hub
        return self._from_hub(route, desired_version, hub)

    def _to_hub(
        self, route: _Route, version: str, raw: dict[str, Any]
    ) -> dict[str, Any]:
        spoke = route.spokes[version]
        metadata = _metadata(raw)
        annotations = dict(metadata.get("annotations") or {})
        preserved = _entries(annotations.pop(PRESERVED_ANNOTATION, None))
        obj = _decode(spoke.cls, raw)
        hub = _checked(
            spoke.converter.convert_to_hub(obj), route.hub_cls, "convert_to_hub"
        )
        document = resource_type(route.hub_cls).encode_obj(hub)
        for entry in preserved:
            _restore(document, entry)
        _set_annotations(metadata, annotations)
        document["metadata"] = metadata
        return document

    def _from_hub(
        self, route: _Route, version: str, raw: dict[str, Any]
    ) -> dict[str, Any]:
        spoke = route.spokes[version]
        hub = _decode(route.hub_cls, raw)
        obj = _checked(
            spoke.converter.convert_from_hub(hub), spoke.cls, "convert_from_hub"
        )
        document = resource_type(spoke.cls).encode_obj(obj)
        back = _checked(
            spoke.converter.convert_to_hub(obj), route.hub_cls, "convert_to_hub"
        )
        lost = _differences(
            _body(resource_type(route.hub_cls).encode_obj(hub)),
            _body(resource_type(route.hub_cls).encode_obj(back)),
            "",
        )
        metadata = _metadata(raw)
        annotations = dict(metadata.get("annotations") or {})
        annotations.pop(PRESERVED_ANNOTATION, None)
        if lost:
            annotations[PRESERVED_ANNOTATION] = json.dumps(
                lost, sort_keys=True, separators=(",", ":")
            )
        _set_annotations(metadata, annotations)
        document["metadata"] = metadata
        return document


def _request_parts(request: Mapping[str, Any]) -> tuple[str, list[Any]]:
    uid = str(request["uid"])
    desired = request.get("desiredAPIVersion")
    if not isinstance(desired, str) or "/" not in desired:
        raise BadReview("the request has no desiredAPIVersion (group/version)", uid=uid)
    objects = request.get("objects")
    if not isinstance(objects, list):
        raise BadReview("the request's objects are not a list", uid=uid)
    return desired, objects


def _decode(cls: type, raw: dict[str, Any]) -> Any:
    try:
        # Converting is not validating: the server checks a write's CEL rules
        # in the version it was made in, never a converted copy's (the
        # converters' own objects included: every conversion runs so).
        return resource_type(cls).decode_dict(raw)
    except (ValidationError, ValueError, TypeError) as error:
        name = _metadata(raw).get("name", "")
        raise ConversionFailure(
            f"{raw.get('kind')} {name!r} is not a valid {raw.get('apiVersion')} object: "
            f"{error}"
        ) from None


def _checked(obj: object, cls: type, method: str) -> Any:
    if not isinstance(obj, cls):
        raise ConversionFailure(
            f"{method} returned {type(obj).__name__}, expected {cls.__module__}.{cls.__name__}"
        )
    return obj


def _metadata(raw: Mapping[str, Any]) -> dict[str, Any]:
    metadata = raw.get("metadata")
    return copy.deepcopy(metadata) if isinstance(metadata, dict) else {}


def _set_annotations(metadata: dict[str, Any], annotations: dict[str, Any]) -> None:
    if annotations:
        metadata["annotations"] = annotations
    else:
        metadata.pop("annotations", None)


def _body(document: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in document.items() if k not in _WIRE_ONLY}


def _differences(hub: Any, back: Any, path: str) -> list[dict[str, Any]]:
    """Where the round trip `back` differs from `hub`: `{path, hub?, spoke?}` entries
    (a missing `hub` or `spoke` means the field is absent there)."""
    if jsonpatch.same(hub, back):
        return []
    if isinstance(hub, dict) and isinstance(back, dict):
        found = []
        for key in sorted({*hub, *back}):
            where = f"{path}/{jsonpatch.escape(key)}"
            if key in hub and key in back:
                found += _differences(hub[key], back[key], where)
            elif key in hub:
                found.append({"path": where, "hub": hub[key]})
            else:
                found.append({"path": where, "spoke": back[key]})
        return found
    return [{"path": path, "hub": hub, "spoke": back}]


def _entries(text: object) -> list[dict[str, Any]]:
    if text is None:
        return []
    try:
        entries = json.loads(str(text))
    except ValueError:
        entries = None
    if not isinstance(entries, list) or not all(
        isinstance(e, dict)
        and isinstance(e.get("path"), str)
        and e["path"].startswith("/")
        for e in entries
    ):
        log.warning("ignoring the malformed %s annotation", PRESERVED_ANNOTATION)
        return []
    return entries


def _tokens(pointer: str) -> list[str]:
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]


def _restore(document: dict[str, Any], entry: Mapping[str, Any]) -> None:
    """Put the hub's value back at `entry['path']` unless the spoke's value changed."""
    *parents, last = _tokens(entry["path"])
    node: Any = document
    for token in parents:
        if not isinstance(node, dict):
            return
        node = node.get(token, _ABSENT)
    current = node.get(last, _ABSENT) if isinstance(node, dict) else _ABSENT
    if not jsonpatch.same(current, entry.get("spoke", _ABSENT)):
        return
    node = document
    for token in parents:
        child = node.get(token)
        if child is None:
            if "hub" not in entry:
                return
            child = node[token] = {}
        if not isinstance(child, dict):
            return
        node = child
    if "hub" in entry:
        node[last] = entry["hub"]
    else:
        node.pop(last, None)


def _failure(message: str) -> dict[str, Any]:
    return {"result": {"status": "Failure", "message": message}}


def _review(uid: str, response: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": CONVERSION_API_VERSION,
        "kind": "ConversionReview",
        "response": {"uid": uid, **response},
    }
