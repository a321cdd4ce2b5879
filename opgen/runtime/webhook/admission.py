"""AdmissionReview v1: defaulting (mutating) and validating handlers for typed objects.

A defaulter receives the object decoded as its kind's Python class and
changes it in place; the answer carries a JSON patch of exactly those changes
on the JSON the API server sent (no patch at all when nothing changed). An
object that does not decode passes unchanged: the API server's schema
validation, which runs after the defaulters, refuses it with its own message.
A validator's `validate_create(obj)`, `validate_update(old, new)` and
`validate_delete(obj)` return warnings (shown by `kubectl`) and refuse by
raising `Denied`. Any other exception refuses the request with its message,
is logged with its traceback and counted in
`controller_runtime_webhook_panics_total`. A handler that runs past the
server's `handler_timeout` is refused too. While a handler runs,
`admission_request()` gives the request it answers (operation, user, dry run).
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import json
import logging
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from pydantic import ValidationError

from opgen.engine.cel.rules import rules_skipped
from opgen.model.webhooks import AdmissionWebhook
from opgen.runtime.metrics import Metrics
from opgen.runtime.resources import ResourceType, resource_type
from opgen.runtime.webhook import jsonpatch
from opgen.runtime.webhook.review import (
    Answer,
    BadReview,
    Denied,
    read_json,
    review_request,
)

__all__ = [
    "ADMISSION_API_VERSION",
    "AdmissionHandler",
    "AdmissionRequest",
    "Defaulter",
    "Validator",
    "admission_request",
]

log = logging.getLogger("opgen.runtime.webhook")

ADMISSION_API_VERSION = "admission.k8s.io/v1"

T_contra = TypeVar("T_contra", contravariant=True)


class Defaulter(Protocol[T_contra]):
    """Sets defaults: changes `obj` in place; raise `Denied` to refuse it instead."""

    async def default(self, obj: T_contra) -> None: ...


class Validator(Protocol[T_contra]):
    """Checks objects; each method returns warnings and raises `Denied` to refuse."""

    async def validate_create(self, obj: T_contra) -> Sequence[str]: ...

    async def validate_update(self, old: T_contra, new: T_contra) -> Sequence[str]: ...

    async def validate_delete(self, obj: T_contra) -> Sequence[str]: ...


@dataclass(frozen=True)
class AdmissionRequest:
    """The request a handler is answering (AdmissionReview's `request`)."""

    uid: str
    operation: str
    """CREATE, UPDATE, DELETE or CONNECT."""
    name: str
    namespace: str | None
    username: str
    groups: tuple[str, ...]
    dry_run: bool
    sub_resource: str | None
    raw: Mapping[str, Any] = field(repr=False)
    """The whole request as sent (`userInfo.extra`, `options`, `requestKind`, ...)."""

    @classmethod
    def from_wire(cls, request: Mapping[str, Any]) -> AdmissionRequest:
        user = request.get("userInfo")
        user = user if isinstance(user, dict) else {}
        groups = user.get("groups")
        return cls(
            uid=str(request.get("uid", "")),
            operation=str(request.get("operation", "")),
            name=str(request.get("name") or ""),
            namespace=_text(request.get("namespace")),
            username=str(user.get("username", "")),
            groups=(tuple(str(g) for g in groups) if isinstance(groups, list) else ()),
            dry_run=request.get("dryRun") is True,
            sub_resource=_text(request.get("subResource")),
            raw=request,
        )


_CURRENT: contextvars.ContextVar[AdmissionRequest] = contextvars.ContextVar(
    "opgen_admission_request"
)


def admission_request() -> AdmissionRequest:
    """The request the running admission handler answers; `LookupError` outside one."""
    return _CURRENT.get()


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


class _Undecodable(Exception):
    """The request's object does not fit the handler's Python class."""


class AdmissionHandler:
    """Answers the AdmissionReviews sent to one declared path."""

    def __init__(
        self,
        declaration: AdmissionWebhook,
        handler: object,
        metrics: Metrics,
        *,
        timeout: float,
    ) -> None:
        self.declaration = declaration
        self.handler = handler
        self.metrics = metrics
        self.timeout = timeout
        self.rtype: ResourceType[Any] = resource_type(declaration.model)
        self.what = f"{type(handler).__name__} ({declaration.path})"

    def refusal(self, status: int, reason: str, message: str) -> Answer:
        """An AdmissionReview refusing a request the server could not read."""
        return Answer(status, _review("", _refusal(status, reason, message)))

    async def review(self, body: bytes) -> Answer:
        """The AdmissionReview answering `body`: 200 with a response, or 400 when
        the body is no AdmissionReview."""
        try:
            document = read_json(body)
        except BadReview as bad:
            return self._bad(bad)
        return await self.answer(document)

    async def answer(self, document: object) -> Answer:
        """The AdmissionReview answering a review document already read (`review`
        after the JSON; the memory server's in-process call)."""
        try:
            request = review_request(
                document, kind="AdmissionReview", api_versions=(ADMISSION_API_VERSION,)
            )
        except BadReview as bad:
            return self._bad(bad)
        uid = str(request["uid"])
        token = _CURRENT.set(AdmissionRequest.from_wire(request))
        try:
            response = await self._within_timeout(request)
        except Denied as denied:
            response = {"allowed": False, "status": self._status(denied, request)}
        except _Undecodable as error:
            log.warning("%s: %s", self.what, error)
            response = _refusal(400, "BadRequest", str(error))
        except asyncio.TimeoutError:
            log.error("%s: no answer within %.0fs", self.what, self.timeout)
            message = f"{self.what} did not answer within {self.timeout:.0f}s"
            response = _refusal(500, "InternalError", message)
        except Exception as error:
            log.exception("%s raised while answering request %s", self.what, uid)
            self.metrics.webhook_panics.inc()
            response = _refusal(500, "InternalError", _message(error))
        finally:
            _CURRENT.reset(token)
        return Answer(200, _review(uid, response))

    def _bad(self, bad: BadReview) -> Answer:
        log.warning("%s: bad request: %s", self.declaration.path, bad.message)
        return Answer(400, _review(bad.uid, _refusal(400, "BadRequest", bad.message)))

    async def _within_timeout(self, request: Mapping[str, Any]) -> dict[str, Any]:
        if sys.version_info >= (3, 11):
            # in this task: wait_for's task of its own costs a loop step or two
            # a review (and 3.12's wait_for is this)
            async with asyncio.timeout(self.timeout):
                return await self._respond(request)
        return await asyncio.wait_for(self._respond(request), self.timeout)

    def _status(self, denied: Denied, request: Mapping[str, Any]) -> dict[str, Any]:
        name = str(request.get("name") or "")
        if not name:
            obj = request.get("object")
            meta = obj.get("metadata") if isinstance(obj, dict) else None
            name = str(meta.get("generateName") or "") if isinstance(meta, dict) else ""
        return denied.status(
            kind=self.declaration.kind, group=self.declaration.group, name=name
        )

    async def _respond(self, request: Mapping[str, Any]) -> dict[str, Any]:
        self._check_kind(request)
        operation = request.get("operation")
        # CEL rules are the API server's to check here: after the defaulters,
        # and before any validating webhook (in the version of the request).
        with rules_skipped():
            if self.declaration.mutating:
                return await self._default(request, operation)
            return await self._validate(request, operation)

    def _check_kind(self, request: Mapping[str, Any]) -> None:
        kind = request.get("kind")
        kind = kind if isinstance(kind, dict) else {}
        wanted = (
            self.declaration.group,
            self.declaration.version,
            self.declaration.kind,
        )
        got = (kind.get("group"), kind.get("version"), kind.get("kind"))
        if got != wanted:
            raise _Undecodable(
                f"this webhook admits {wanted[2]} ({wanted[0]}/{wanted[1]}), not "
                f"{got[2]} ({got[0]}/{got[1]}); check the webhook configuration's rules"
            )

    def _decode(self, request: Mapping[str, Any], key: str) -> Any:
        raw = request.get(key)
        if not isinstance(raw, dict):
            raise _Undecodable(f"the request has no {key}")
        try:
            return self.rtype.decode_dict(raw)
        except (ValidationError, ValueError, TypeError) as error:
            raise _Undecodable(
                f"the {key} is not a valid {self.declaration.kind}: {_brief(error)}"
            ) from None

    async def _default(
        self, request: Mapping[str, Any], operation: object
    ) -> dict[str, Any]:
        if operation not in ("CREATE", "UPDATE"):
            return {"allowed": True}
        sent = request.get("object")
        if isinstance(sent, dict):
            try:
                obj = self.rtype.decode_dict(sent)
            except (ValidationError, ValueError, TypeError) as error:
                # The schema's own check runs after the defaulters and says what
                # is wrong as the user wrote it; a refusal here would hide that.
                log.info(
                    "%s: not defaulting an object that is not a valid %s, for the "
                    "API server's validation to explain: %s",
                    self.what,
                    self.declaration.kind,
                    _brief(error),
                )
                return {"allowed": True}
        else:
            obj = self._decode(request, "object")
        before = self.rtype.encode_obj(obj)
        await self.handler.default(obj)  # type: ignore[attr-defined]
        after = self.rtype.encode_obj(obj)
        patch = jsonpatch.diff(sent, jsonpatch.carry_over(sent, before, after))
        if not patch:
            return {"allowed": True}
        log.debug("%s: %d patch operation(s)", self.what, len(patch))
        return {
            "allowed": True,
            "patchType": "JSONPatch",
            "patch": base64.b64encode(json.dumps(patch).encode()).decode(),
        }

    async def _validate(
        self, request: Mapping[str, Any], operation: object
    ) -> dict[str, Any]:
        validator: Any = self.handler
        if operation == "CREATE":
            warnings = await validator.validate_create(self._decode(request, "object"))
        elif operation == "UPDATE":
            old = self._decode(request, "oldObject")
            warnings = await validator.validate_update(
                old, self._decode(request, "object")
            )
        elif operation == "DELETE":
            warnings = await validator.validate_delete(
                self._decode(request, "oldObject")
            )
        else:
            return {"allowed": True}
        response: dict[str, Any] = {"allowed": True}
        listed = [str(w) for w in warnings or ()]
        if listed:
            response["warnings"] = listed
        return response


def _refusal(code: int, reason: str, message: str) -> dict[str, Any]:
    return {
        "allowed": False,
        "status": {"code": code, "reason": reason, "message": message},
    }


def _review(uid: str, response: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": ADMISSION_API_VERSION,
        "kind": "AdmissionReview",
        "response": {"uid": uid, **response},
    }


def _message(error: BaseException) -> str:
    return str(error) or type(error).__name__


def _brief(error: Exception) -> str:
    if isinstance(error, ValidationError):
        problems = [
            f"{'.'.join(str(p) for p in e['loc']) or '(object)'}: {e['msg']}"
            for e in error.errors()[:5]
        ]
        more = error.error_count() - len(problems)
        return "; ".join(problems) + (f" (and {more} more)" if more > 0 else "")
    return str(error)
