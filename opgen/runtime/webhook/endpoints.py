"""Webhook endpoints by path: a JSON POST in, a review out, a refusal in the endpoint's format.

`Endpoints` is the webhook server's request handler (`serving.HttpServer`
parses the HTTP). A request that is not a JSON POST of a sane size is
answered with a 4xx and one log line, in the endpoint's own review format (a
`Status` for unknown paths), and the connection is closed:

| what | answer |
|---|---|
| unknown path | 404 |
| a method other than POST | 405 |
| `Transfer-Encoding` (chunked) or no `Content-Length` | 411 |
| a body over `max_request_bytes` (7 MiB, controller-runtime's limit) | 413, unread |
| a content type other than `application/json` | 415 |
| the body did not arrive within the body timeout | 408 |

A request aiohttp cannot parse (not HTTP/1.x, a line over 8 KiB, over 100
headers) gets aiohttp's plain-text 400.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from typing import Protocol

from opgen.runtime.metrics import Metrics
from opgen.runtime.serving import Refused, Request, Response
from opgen.runtime.webhook.review import Answer

__all__ = ["Endpoint", "Endpoints"]

log = logging.getLogger("opgen.runtime.webhook")

_REASONS = {
    400: "BadRequest",
    404: "NotFound",
    405: "MethodNotAllowed",
    408: "Timeout",
    411: "BadRequest",
    413: "RequestEntityTooLarge",
    415: "UnsupportedMediaType",
}


class Endpoint(Protocol):
    """What serves one path: reviews, and refusals in the same format."""

    async def review(self, body: bytes) -> Answer: ...

    async def answer(self, document: object) -> Answer:
        """The answer to a review already read from its JSON body (what `review`
        answers after reading it; in process, a caller hands its document over)."""
        ...

    def refusal(self, status: int, reason: str, message: str) -> Answer: ...


class Endpoints:
    """The webhook server's handler: routes by path, refuses what is no review."""

    def __init__(self, endpoints: Mapping[str, Endpoint], metrics: Metrics) -> None:
        self.endpoints = dict(endpoints)
        self.metrics = metrics
        for path in self.endpoints:
            # Present from the start, as controller-runtime initialises them.
            for code in ("200", "500"):
                metrics.webhook_requests.labels(path, code)

    async def __call__(self, request: Request) -> Response:
        endpoint = self.endpoints.get(request.path)
        try:
            if endpoint is None:
                raise Refused(404, f"no webhook is served at {request.path}")
            body = await self._body(request)
        except Refused as refused:
            log.warning(
                "webhook server: %d for %s %s from %s: %s",
                refused.status,
                request.method,
                request.path,
                request.peer,
                refused.message,
            )
            return self._refusal(request.path, endpoint, refused)
        labels = (request.path,)
        in_flight = self.metrics.webhook_in_flight.labels(*labels)
        started = time.perf_counter()
        in_flight.inc()
        try:
            answer = await endpoint.review(body)
        finally:
            in_flight.dec()
            self.metrics.webhook_latency.labels(*labels).observe(
                time.perf_counter() - started
            )
        self.metrics.webhook_requests.labels(request.path, str(answer.status)).inc()
        return _json(answer.status, answer.document)

    @staticmethod
    async def _body(request: Request) -> bytes:
        if request.method != "POST":
            raise Refused(405, f"{request.method} is not allowed; webhooks take POST")
        if request.chunked:
            raise Refused(411, "send the body with a Content-Length, not chunked")
        if request.content_length is None:
            raise Refused(411, "the request has no Content-Length")
        media_type = request.headers.get("Content-Type", "").split(";", 1)[0].strip()
        if media_type.lower() != "application/json":
            raise Refused(
                415,
                f"content type {media_type or '(none)'!r}; expected application/json",
            )
        return await request.body()

    def _refusal(
        self, path: str, endpoint: Endpoint | None, refused: Refused
    ) -> Response:
        reason = _REASONS.get(refused.status, "BadRequest")
        if endpoint is None:
            document: dict[str, object] = {
                "apiVersion": "v1",
                "kind": "Status",
                "status": "Failure",
                "code": refused.status,
                "reason": reason,
                "message": refused.message,
            }
            return _json(refused.status, document, close=True)
        answer = endpoint.refusal(refused.status, reason, refused.message)
        self.metrics.webhook_requests.labels(path, str(answer.status)).inc()
        return _json(answer.status, answer.document, close=True)


def _json(status: int, document: object, *, close: bool = False) -> Response:
    body = json.dumps(document, separators=(",", ":")).encode()
    return Response(status, "application/json", body, close=close)
