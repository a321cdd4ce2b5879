"""A thin raw client for verdicts: send a body, get back what the API server said.

A typed client hides what these proofs need (`dryRun=All`,
`fieldValidation=Strict`, the `causes` of a 422), so requests go straight
through opgen's transport, on an event loop of its own in one worker thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import secrets
import urllib.parse
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from opgen.runtime.kubeconfig import KubeConfig
from opgen.runtime.transport import Answer, Transport

__all__ = ["CRD_PATH", "Cause", "RawApi", "Verdict", "opened", "scratch_namespace"]

CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


@dataclass(frozen=True)
class Cause:
    """One field error of a refusal: `spec.replicas` and what is wrong with it."""

    field: str
    message: str
    reason: str = ""

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


@dataclass(frozen=True)
class Verdict:
    """What the API server answered to one request."""

    status: int
    body: dict[str, Any]
    causes: tuple[Cause, ...] = field(default=())

    @property
    def accepted(self) -> bool:
        return 200 <= self.status < 300

    @property
    def message(self) -> str:
        return str(self.body.get("message", "")) if not self.accepted else ""

    def has_cause(self, field_path: str, fragment: str) -> bool:
        """Whether the refusal names `field_path` with a message containing `fragment`."""
        return any(
            cause.field == field_path and fragment in cause.message
            for cause in self.causes
        )

    def __str__(self) -> str:
        if self.accepted:
            return f"accepted ({self.status})"
        return f"refused ({self.status}): {self.message}"


def _causes(body: Mapping[str, Any]) -> tuple[Cause, ...]:
    details = body.get("details") or {}
    return tuple(
        Cause(
            field=str(cause.get("field", "")),
            message=str(cause.get("message", "")),
            reason=str(cause.get("reason", "")),
        )
        for cause in details.get("causes") or []
    )


class RawApi:
    """POST/PUT/GET/DELETE JSON bodies and return the server's verdict."""

    def __init__(self, kubeconfig: KubeConfig) -> None:
        self._worker = concurrent.futures.ThreadPoolExecutor(1)
        self._loop = asyncio.new_event_loop()
        self._transport = Transport.from_kubeconfig(kubeconfig)

    def close(self) -> None:
        try:
            self._worker.submit(
                self._loop.run_until_complete, self._transport.aclose()
            ).result()
        finally:
            self._loop.close()
            self._worker.shutdown()

    def _send(
        self,
        method: str,
        path: str,
        body: Mapping[str, Any] | None = None,
        *,
        dry_run: bool = False,
        strict: bool = False,
    ) -> Verdict:
        params: dict[str, str] = {}
        if dry_run:
            params["dryRun"] = "All"
        if strict:
            params["fieldValidation"] = "Strict"
        if params:
            path = f"{path}?{urllib.parse.urlencode(params)}"
        # UTF-8, as kubectl sends it: \u escapes would count six bytes a character
        # against the server's request limit.
        sent = None if body is None else json.dumps(body, ensure_ascii=False).encode()
        response: Answer = self._worker.submit(
            self._loop.run_until_complete,
            self._transport.send(method, path, body=sent),
        ).result()
        text = response.body.decode("utf-8", "replace")
        try:
            answer = json.loads(text)
        except ValueError:
            answer = {"message": text}
        if not isinstance(answer, dict):
            answer = {"message": str(answer)}
        return Verdict(response.status, answer, _causes(answer))

    def create(
        self,
        path: str,
        body: Mapping[str, Any],
        *,
        dry_run: bool = True,
        strict: bool = False,
    ) -> Verdict:
        return self._send("POST", path, body, dry_run=dry_run, strict=strict)

    def replace(
        self, path: str, body: Mapping[str, Any], *, dry_run: bool = False
    ) -> Verdict:
        return self._send("PUT", path, body, dry_run=dry_run)

    def get(self, path: str) -> Verdict:
        return self._send("GET", path)

    def delete(self, path: str) -> Verdict:
        return self._send("DELETE", path)


@contextmanager
def opened(kubeconfig: KubeConfig) -> Iterator[RawApi]:
    """A `RawApi` for the kubeconfig, closed afterwards."""
    api = RawApi(kubeconfig)
    try:
        yield api
    finally:
        api.close()


@contextmanager
def scratch_namespace(api: RawApi, prefix: str) -> Iterator[str]:
    """A namespace `<prefix>-<random>` for objects really created, deleted afterwards."""
    name = f"{prefix}-{secrets.token_hex(3)}"
    verdict = api.create(
        "/api/v1/namespaces",
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}},
        dry_run=False,
    )
    assert verdict.accepted, verdict
    try:
        yield name
    finally:
        api.delete(f"/api/v1/namespaces/{name}")
