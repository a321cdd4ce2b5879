"""`AdminApi`: synchronous calls as the admin, for setting a control plane up.

Installing webhook configurations, pointing CRDs at a local server and applying
a project's RBAC happen while an `Environment` starts, which is synchronous and
may be called from inside a running event loop. These calls go through opgen's
own REST client on an event loop of their own, in one worker thread, so one
connection pool serves every call. Bodies are wire-form dicts (the documents as
read from YAML); kinds are `op.k8s` classes, which give the REST coordinates.
Refusals raise `opgen.runtime`'s `ApiError` subclasses (`NotFound`, ...).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from collections.abc import Coroutine, Mapping
from types import TracebackType
from typing import Any, TypeVar

from opgen.runtime.kubeconfig import ConfigSource
from opgen.runtime.resources import resource_type
from opgen.runtime.rest import ClientOptions, RestClient

__all__ = ["AdminApi"]

T = TypeVar("T")

APPLY_PATCH = "application/apply-patch+yaml"
MERGE_PATCH = "application/merge-patch+json"


class AdminApi:
    """Raw-JSON requests as the user of `config` (a kubeconfig file or loaded
    credentials; None: $KUBECONFIG, else ~/.kube/config) in `context`, else its
    current one; close it (or use `with`)."""

    def __init__(
        self, config: ConfigSource, *, field_manager: str, context: str | None = None
    ) -> None:
        self._worker = concurrent.futures.ThreadPoolExecutor(1)
        self._loop = asyncio.new_event_loop()
        self._rest = RestClient.from_kubeconfig(
            config, ClientOptions(qps=0, field_manager=field_manager), context=context
        )

    def _call(self, work: Coroutine[Any, Any, T]) -> T:
        return self._worker.submit(self._loop.run_until_complete, work).result()

    def get(self, kind: type, name: str, namespace: str | None = None) -> Any:
        body = self._call(
            self._rest.request(
                "get", resource_type(kind), name=name, namespace=namespace
            )
        )
        return json.loads(body)

    def create(
        self,
        kind: type,
        body: Mapping[str, Any],
        *,
        name: str | None = None,
        namespace: str | None = None,
        subresource: str | None = None,
        dry_run: bool = False,
    ) -> Any:
        """POST `body`; with `name` and `subresource`, to that object's subresource."""
        answer = self._call(
            self._rest.request(
                "create",
                resource_type(kind),
                name=name,
                namespace=namespace,
                subresource=subresource,
                params={"dryRun": "All"} if dry_run else None,
                body=json.dumps(body).encode(),
            )
        )
        return json.loads(answer)

    def apply(self, kind: type, body: Mapping[str, Any], *, force: bool) -> Any:
        """Server-side apply `body` (its `metadata` names the object)."""
        metadata = body.get("metadata") or {}
        answer = self._call(
            self._rest.request(
                "patch",
                resource_type(kind),
                name=str(metadata["name"]),
                namespace=metadata.get("namespace"),
                params={"force": "true"} if force else None,
                body=json.dumps(body).encode(),
                content_type=APPLY_PATCH,
            )
        )
        return json.loads(answer)

    def merge_patch(self, kind: type, name: str, patch: Mapping[str, Any]) -> Any:
        answer = self._call(
            self._rest.request(
                "patch",
                resource_type(kind),
                name=name,
                body=json.dumps(patch).encode(),
                content_type=MERGE_PATCH,
            )
        )
        return json.loads(answer)

    def delete(self, kind: type, name: str, namespace: str | None = None) -> None:
        self._call(
            self._rest.request(
                "delete", resource_type(kind), name=name, namespace=namespace
            )
        )

    def close(self) -> None:
        try:
            self._call(self._rest.aclose())
        finally:
            self._loop.close()
            self._worker.shutdown()

    def __enter__(self) -> AdminApi:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
