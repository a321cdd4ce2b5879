"""The REST semantics of the memory server: what the API server answers to each request.

`MemoryApiServer.handle` answers one request (method, path with query, body)
with a status code and a JSON document, as kube-apiserver would;
`open_watch` starts a watch. `transport()` gives the `seams.Transport` a
`Manager`, `Client` or `RestClient` talks through. The requests are answered
by `reads` (routing, get, list, watch), `writes` (create, update, patch,
apply, scale) and `deletes`; this module routes them.

What it does, in the server's order: the route names a served kind (404
otherwise); a namespaced object's namespace exists (404); metadata the server
owns is set (`uid`, `creationTimestamp`, `generation`, `resourceVersion`) or
kept from the stored object; the object is pruned and defaulted by its CRD
schema and validated by its model (422 with causes); an update's
resourceVersion must be the stored one (409 Conflict); a write that changes
nothing is not written (its resourceVersion stays). `generation` grows when
anything but metadata changes, and with a status subresource only when
something but metadata and status does; status writes go through
`/status` alone. Deleting an object with finalizers marks it
(`deletionTimestamp`); it goes when an update empties them.
"""

from __future__ import annotations

import datetime
import json
import threading
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from opgen.testing.memory import answers
from opgen.testing.memory.admission import Admission
from opgen.testing.memory.answers import Refusal
from opgen.testing.memory.bodies import json_document
from opgen.testing.memory.collector import Collector
from opgen.testing.memory.conversion import Versions
from opgen.testing.memory.deletes import Deletes
from opgen.testing.memory.faults import Faults
from opgen.testing.memory.kinds import Kind, Kinds
from opgen.testing.memory.metadata import Clock
from opgen.testing.memory.patches import APPLY_PATCH
from opgen.testing.memory.paths import Route
from opgen.testing.memory.reads import NAMESPACES
from opgen.testing.memory.store import Store, json_copy
from opgen.testing.memory.watch import Watch

if TYPE_CHECKING:
    from opgen.testing.memory.handlers import Handlers, Setup
    from opgen.testing.memory.transport import MemoryTransport

__all__ = ["MemoryApiServer", "Watch"]


def _utc_now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


_SEEDS: dict[tuple[str, ...], list[dict[str, Any]]] = {}
"""The namespaces servers with the default clock start with, by their names:
each built once a process (`MemoryApiServer._create_namespaces`)."""


class MemoryApiServer(Deletes):
    """An API server in memory, serving `kinds` (built-ins of `op.k8s` are found
    without being added); the namespaces in `namespaces` exist from the start."""

    def __init__(
        self,
        kinds: Kinds | None = None,
        *,
        namespaces: tuple[str, ...] = ("default", "kube-system"),
        clock: Clock = _utc_now,
        garbage_collection: bool = True,
    ) -> None:
        self.kinds = kinds if kinds is not None else Kinds()
        self.collector = Collector(self, enabled=garbage_collection)
        """Collects dependents by owner references after every write (`collector`)."""
        self.store = Store()
        self.clock = clock
        self.faults = Faults()
        """Answers to give instead of doing matching requests (`faults.Fault`)."""
        self._local = threading.local()
        """The request being answered, per thread (a webhook handler's request is
        answered inside the write it reviews; other threads may send their own)."""
        self.handlers: Handlers | None = None
        """The project's webhook handlers (`use_webhooks`)."""
        self.admission: Admission | None = None
        self.versions = Versions(self.kinds, lambda: self.handlers)
        """Conversion between a CRD's served versions."""
        self.requests: list[tuple[str, str]] = []
        """Every request its transports sent: method (`WATCH` for a watch) and path."""
        self._dry_run = False
        """The request being answered is a dry run (`dryRun=All`): nothing is stored."""
        self.compacted = 0
        """Watches from a resourceVersion below this answer 410 Gone."""
        self._create_namespaces(namespaces)

    def _create_namespaces(self, names: tuple[str, ...]) -> None:
        """Create the namespaces a server starts with; with the default clock, as
        the first server of the process that started with them created them (the
        same objects, uid and creationTimestamp included, at the same revisions),
        as the namespaces of one envtest control plane are the same for every
        test of its session."""
        seeded = _SEEDS.get(names) if self.clock is _utc_now else None
        if seeded is not None:
            for obj in seeded:
                self.store.write(NAMESPACES, json_copy(obj), None)
            return
        for name in names:
            self.handle(
                "POST",
                "/api/v1/namespaces",
                json.dumps({"metadata": {"name": name}}).encode(),
            )
        created = [self.store.peek(NAMESPACES, "", name) for name in names]
        if self.clock is _utc_now and len(names) == self.store.revision:
            _SEEDS[names] = [json_copy(obj) for obj in created if obj is not None]

    def use_webhooks(
        self, configurations: Iterable[Mapping[str, Any]], setup: Setup
    ) -> None:
        """Call the webhooks of `configurations` (Mutating/ValidatingWebhookConfiguration
        documents) and the CRDs' conversion webhooks in process: the handlers `setup`
        registers on an `rt.Manager` (`main.setup_webhooks`), see `admission`."""
        from opgen.testing.memory.handlers import Handlers

        self.close()
        self.handlers = Handlers(self, setup)
        self.admission = Admission(self, configurations, self.handlers)

    def close(self) -> None:
        """Stop the webhook handlers' thread, if they run."""
        if self.handlers is not None:
            self.handlers.close()

    def transport(self, namespace: str = "default") -> MemoryTransport:
        """A `seams.Transport` to this server, whose default namespace is `namespace`."""
        from opgen.testing.memory.transport import MemoryTransport

        return MemoryTransport(self, namespace)

    # -- requests -----------------------------------------------------------

    def handle(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        content_type: str | None = None,
    ) -> tuple[int, dict[str, Any] | None]:
        """Answer one request: its status code and JSON document (None: the plain
        `404 page not found` of a path that names no served resource), the
        caller's to keep or change."""
        code, document = self.respond(method, path, body, content_type)
        return code, json_copy(document)

    def respond(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        content_type: str | None = None,
    ) -> tuple[int, dict[str, Any] | None]:
        """`handle`'s answer, whose document a read may share with the store:
        only to encode (the transport's), never to change."""
        # a webhook handler's own request is answered in the thread of the write
        # it reviews (`handlers`), inside that write: it must not lose its state
        outer = dict(vars(self._local))
        try:
            kind, route = self._route(path)
            self._dry_run = route.query.get("dryRun") == "All"
            self._local.subresource = route.subresource
            answer = self._dispatch(method, kind, route, body, content_type)
        except Refusal as refusal:
            return refusal.code, refusal.body
        finally:
            state = vars(self._local)
            state.clear()
            state.update(outer)
        if method != "GET":
            self.collector.collect()
        return answer

    def _dispatch(
        self,
        method: str,
        kind: Kind,
        route: Route,
        body: bytes | None,
        content_type: str | None,
    ) -> tuple[int, dict[str, Any]]:
        if route.name is None:
            if method == "GET":
                return 200, self._list(kind, route)
            if method == "DELETE":
                options = json_document(body) if body else {}
                return 200, self._delete_collection(kind, route, options)
            if method == "POST" and (
                route.namespace is not None or not kind.namespaced
            ):
                return 201, self._create(kind, route, json_document(body))
            raise answers.method_not_allowed(method)
        if route.subresource == "scale":
            return 200, self._scale(method, kind, route, body, content_type)
        status_only = route.subresource == "status"
        if method == "GET":
            return 200, self._current(kind, route, copy=False)
        if method == "PUT":
            return 200, self._update(kind, route, json_document(body), status_only)
        if method == "PATCH" and content_type == APPLY_PATCH:
            return self._apply(kind, route, body, status_only)
        if method == "PATCH":
            return 200, self._patch(kind, route, body, content_type, status_only)
        if method == "DELETE" and not status_only:
            options = json_document(body) if body else {}
            return 200, self._delete(kind, route, options)
        raise answers.method_not_allowed(method)
