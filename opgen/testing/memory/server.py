"""The REST semantics of the memory server: what the API server answers to each request.

`MemoryApiServer.handle` answers one request (method, path with query, body)
with a status code and a JSON document, as kube-apiserver would;
`open_watch` starts a watch. `transport()` gives the `seams.Transport` a
`Manager`, `Client` or `RestClient` talks through.

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

import base64
import dataclasses
import datetime
import functools
import json
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import yaml

from opgen.runtime.selectors import fields_match, labels_match
from opgen.testing.memory import answers
from opgen.testing.memory.admission import Admission, Request
from opgen.testing.memory.answers import Cause, Refusal
from opgen.testing.memory.bookmarks import asks_bookmarks, initial_events_end
from opgen.testing.memory.collector import (
    Collector,
    check_options,
    deletion_finalizers,
    returns_deleted_object,
)
from opgen.testing.memory.conversion import Versions
from opgen.testing.memory.faults import Faults
from opgen.testing.memory.fields import numeric_problem
from opgen.testing.memory.kinds import Kind, Kinds
from opgen.testing.memory.managed import (
    Entry,
    Write,
    apply,
    read_entries,
    record_update,
    write_entries,
)
from opgen.testing.memory.metadata import (
    SERVER_OWNED,
    Clock,
    generated_name,
    label_causes,
    name_causes,
    new_uid,
    timestamp,
)
from opgen.testing.memory.patches import (
    APPLY_PATCH,
    JSON_PATCH,
    MERGE_PATCH,
    PatchError,
    apply_patch,
)
from opgen.testing.memory.paths import Route, parse_route
from opgen.testing.memory.scale import to_scale, with_replicas
from opgen.testing.memory.schema import prune_and_default, scale_causes
from opgen.testing.memory.store import Event, Store, Subscription, json_copy
from opgen.testing.memory.strategic import STRATEGIC_PATCH, strategic_patched
from opgen.testing.memory.validation import object_causes

if TYPE_CHECKING:
    from opgen.testing.memory.handlers import Handlers, Setup
    from opgen.testing.memory.transport import MemoryTransport

__all__ = ["MemoryApiServer", "Watch"]

NAMESPACES = ("", "v1", "namespaces")
DEFAULT_MANAGER = "opgen-runtime"
"""The manager of a write without `fieldManager`: the server takes the client's
User-Agent up to its first `/`, and the runtime's transport says `opgen-runtime`."""
_FIELD_LABELS = ("metadata.name", "metadata.namespace")


_PRECONDITIONS = (
    ("uid", "UID", "The object might have been deleted and then recreated"),
    ("resourceVersion", "ResourceVersion", "The object might have been modified"),
)
"""A delete's preconditions: field, how the server names it, what it suspects."""


def _utc_now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


@dataclass
class Watch:
    """An opened watch: the events to send first, then its subscription's."""

    kind: Kind
    route: Route
    initial: list[dict[str, Any]]
    subscription: Subscription | None
    """None when the watch ends after `initial` (a too old resourceVersion)."""
    served: Callable[[dict[str, Any]], dict[str, Any]] = lambda obj: obj
    """A stored object in the watched version (`Versions.to_served`)."""
    bookmarks: bool = False
    """`allowWatchBookmarks=true`: `BOOKMARK` events (`opgen.testing.memory.bookmarks`)."""
    since: int = 0
    """The revision the client has seen: the watch's resourceVersion, or the
    revision its initial events end at."""

    def line(self, event: Event) -> dict[str, Any] | None:
        """The line a watch sends for `event`; None when its selectors filter it out.
        An object that stops (starts) matching is sent as DELETED (ADDED)."""
        event = dataclasses.replace(
            event,
            obj=self.served(event.obj),
            previous=None if event.previous is None else self.served(event.previous),
        )
        now = _matches(self.route, event.obj)
        before = event.previous is not None and _matches(self.route, event.previous)
        kind, obj = event.type, event.obj
        if kind == "MODIFIED" and now != before:
            kind = "ADDED" if now else "DELETED"
            if not now and event.previous is not None:
                # the state it was watched in, at the revision it left
                obj = json_copy(event.previous)
                obj["metadata"]["resourceVersion"] = str(event.revision)
        elif not (now or (kind == "DELETED" and before)):
            return None
        return {"type": kind, "object": obj}


def _matches(route: Route, obj: dict[str, Any]) -> bool:
    meta = obj.get("metadata", {})
    if route.namespace is not None and meta.get("namespace") != route.namespace:
        return False
    if not labels_match(route.query.get("labelSelector"), meta.get("labels") or {}):
        return False
    return fields_match(route.query.get("fieldSelector"), obj)


class MemoryApiServer:
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
        self._local = threading.local()
        """The request being answered, per thread (webhook handlers read the server
        from a thread of their own while a write waits for them)."""
        self.handlers: Handlers | None = None
        """The project's webhook handlers (`use_webhooks`)."""
        self.admission: Admission | None = None
        self.versions = Versions(self.kinds, lambda: self.handlers)
        """Conversion between a CRD's served versions."""
        """Answers to give instead of doing matching requests (`faults.Fault`)."""
        self.requests: list[tuple[str, str]] = []
        """Every request its transports sent: method (`WATCH` for a watch) and path."""
        self._dry_run = False
        """The request being answered is a dry run (`dryRun=All`): nothing is stored."""
        self.compacted = 0
        """Watches from a resourceVersion below this answer 410 Gone."""
        for namespace in namespaces:
            self.handle(
                "POST",
                "/api/v1/namespaces",
                json.dumps({"metadata": {"name": namespace}}).encode(),
            )

    @property
    def _dry_run(self) -> bool:
        return bool(getattr(self._local, "dry_run", False))

    @_dry_run.setter
    def _dry_run(self, value: bool) -> None:
        self._local.dry_run = value

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
        try:
            kind, route = self._route(path)
            self._dry_run = route.query.get("dryRun") == "All"
            self._local.subresource = route.subresource
            answer = self._dispatch(method, kind, route, body, content_type)
        except Refusal as refusal:
            return refusal.code, refusal.body
        finally:
            self._dry_run = False
        if method != "GET":
            self.collector.collect()
        return answer

    def _route(self, path: str) -> tuple[Kind, Route]:
        route = parse_route(path)
        kind = (
            None
            if route is None
            else self.kinds.lookup(route.group, route.version, route.plural)
        )
        if route is None or kind is None:
            raise answers.page_not_found()
        if route.namespace is not None and not kind.namespaced:
            raise answers.page_not_found()
        if kind.namespaced and route.namespace is None and route.name is not None:
            raise answers.page_not_found()
        served = {
            None: True,
            "status": kind.status_subresource,
            "scale": kind.scale is not None,
        }
        if route.name is not None and not served.get(route.subresource, False):
            if kind.builtin:
                raise answers.status(
                    404, "NotFound", "the server could not find the requested resource"
                )
            raise answers.not_found(kind, route.name)
        return kind, route

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
                options = _document(body) if body else {}
                return 200, self._delete_collection(kind, route, options)
            if method == "POST" and (
                route.namespace is not None or not kind.namespaced
            ):
                return 201, self._create(kind, route, _document(body))
            raise answers.method_not_allowed(method)
        if route.subresource == "scale":
            return 200, self._scale(method, kind, route, body, content_type)
        status_only = route.subresource == "status"
        if method == "GET":
            return 200, self._current(kind, route, copy=False)
        if method == "PUT":
            return 200, self._update(kind, route, _document(body), status_only)
        if method == "PATCH" and content_type == APPLY_PATCH:
            return self._apply(kind, route, body, status_only)
        if method == "PATCH":
            return 200, self._patch(kind, route, body, content_type, status_only)
        if method == "DELETE" and not status_only:
            options = _document(body) if body else {}
            return 200, self._delete(kind, route, options)
        raise answers.method_not_allowed(method)

    # -- reads --------------------------------------------------------------

    def _current(
        self, kind: Kind, route: Route, *, copy: bool = True
    ) -> dict[str, Any]:
        """The object a route names, in its version (`copy=False`: the stored
        object itself, only to read)."""
        assert route.name is not None
        read = self.store.get if copy else self.store.peek
        found = read(_key(kind), route.namespace or "", route.name)
        if found is None:
            raise answers.not_found(kind, route.name)
        return self.versions.to_served(kind, found)

    def _list(self, kind: Kind, route: Route) -> dict[str, Any]:
        _check_field_selector(kind, route)
        selector = route.query.get("fieldSelector")
        revision = self.store.revision
        start = ""
        token = route.query.get("continue")
        if token:
            position = json.loads(base64.urlsafe_b64decode(token))
            revision, start = position["rv"], position["start"]
        items = [
            obj
            for obj in self._objects(kind, route.namespace)
            if _matches(route, obj) and _position(obj) > start
        ]
        meta: dict[str, Any] = {"resourceVersion": str(revision)}
        limit = int(route.query.get("limit") or 0)
        if limit and len(items) > limit:
            rest = len(items) - limit
            items = items[:limit]
            position = {"rv": revision, "start": _position(items[-1])}
            meta["continue"] = base64.urlsafe_b64encode(
                json.dumps(position).encode()
            ).decode()
            if not route.query.get("labelSelector") and not selector:
                meta["remainingItemCount"] = rest  # counted only without selectors
        if kind.builtin:  # typed lists leave out their items' apiVersion and kind
            items = [
                {k: v for k, v in item.items() if k not in ("apiVersion", "kind")}
                for item in items
            ]
        else:
            meta.setdefault("continue", "")
        return {
            "apiVersion": kind.api_version,
            "kind": f"{kind.kind}List",
            "metadata": meta,
            "items": items,
        }

    def open_watch(self, path: str) -> Watch:
        """Start a watch (`path` as a watch request's); raises `Refusal` for a bad path."""
        kind, route = self._route(path)
        if route.name is not None:
            raise answers.method_not_allowed("WATCH")
        _check_field_selector(kind, route)
        served = functools.partial(self.versions.to_served, kind)
        since = route.query.get("resourceVersion", "")
        if since and since != "0":
            after = int(since)
            if after < self.compacted:
                gone = answers.status(
                    410,
                    "Expired",
                    f"too old resource version: {after} ({self.compacted})",
                )
                return Watch(
                    kind, route, [{"type": "ERROR", "object": gone.body or {}}], None
                )
            subscription = self.store.subscribe(_key(kind), after)
            return Watch(
                kind, route, [], subscription, served, asks_bookmarks(route), after
            )
        initial = [
            {"type": "ADDED", "object": obj}
            for obj in self._objects(kind, route.namespace)
            if _matches(route, obj)
        ]
        revision = self.store.revision
        if asks_bookmarks(route):
            initial.append(initial_events_end(kind, revision))
        subscription = self.store.subscribe(_key(kind), revision)
        return Watch(
            kind, route, initial, subscription, served, asks_bookmarks(route), revision
        )

    def compact(self) -> None:
        """Forget the event history, as etcd's compaction does: a watch from an
        older resourceVersion is answered 410 Gone (an ERROR event)."""
        self.compacted = self.store.revision
        self.store.history.clear()

    # -- writes -------------------------------------------------------------

    def _writer(self, kind: Kind, route: Route) -> Write:
        """Who a request writes as, for `managedFields`."""
        return Write(
            manager=route.query.get("fieldManager") or DEFAULT_MANAGER,
            api_version=kind.api_version,
            schema=kind.shape,
            subresource=route.subresource or "",
            status_subresource=kind.status_subresource,
            time=timestamp(self.clock),
        )

    def _create(
        self,
        kind: Kind,
        route: Route,
        obj: dict[str, Any],
        entries: list[Entry] | None = None,
    ) -> dict[str, Any]:
        """Create `obj`; `entries` are its managedFields when an apply creates it."""
        meta = dict(obj.get("metadata") or {})
        type_causes = _type_meta_causes(kind, obj)
        if kind.namespaced:
            assert route.namespace is not None
            if meta.get("namespace") and meta["namespace"] != route.namespace:
                raise answers.bad_request(
                    "the namespace of the provided object does not match the "
                    "namespace sent on the request"
                )
            meta["namespace"] = route.namespace
            namespace = self.store.peek(NAMESPACES, "", route.namespace)
            if namespace is None:
                raise answers.namespace_not_found(route.namespace)
            if namespace["metadata"].get("deletionTimestamp"):
                raise answers.namespace_terminating(
                    kind, meta.get("name", ""), route.namespace
                )
        else:
            meta.pop("namespace", None)
        if not meta.get("name") and meta.get("generateName"):
            meta["name"] = generated_name(meta["generateName"])
        for owned in (*SERVER_OWNED, "resourceVersion", "selfLink", "managedFields"):
            meta.pop(owned, None)
        meta["uid"] = new_uid()
        meta["creationTimestamp"] = timestamp(self.clock)
        if kind.tracks_generation:
            meta["generation"] = 1
        candidate = {**obj, "apiVersion": kind.api_version, "kind": kind.kind}
        candidate["metadata"] = meta
        if kind.status_subresource:
            candidate.pop("status", None)
        if kind.builtin and kind.status_subresource:
            candidate["status"] = {}  # a Go struct: never omitted
        if _key(kind) == NAMESPACES:
            meta["labels"] = {
                **(meta.get("labels") or {}),
                "kubernetes.io/metadata.name": meta.get("name", ""),
            }
            candidate["spec"] = {"finalizers": ["kubernetes"]}
            candidate["status"] = {"phase": "Active"}
        name_problems = name_causes(meta, dns_label=kind.kind == "Namespace")
        name_problems += label_causes(meta)
        stored = self._admit(kind, candidate, None, type_causes + name_problems)
        if entries is None:
            nothing: dict[str, Any] = {"metadata": {}}
            if _key(kind) == NAMESPACES:  # the spec is the server's
                nothing["spec"] = stored.get("spec")
            entries = record_update(
                [], nothing, self._requested(stored), self._writer(kind, route)
            )
        _set_managed_fields(stored, entries)
        existing = self.store.peek(_key(kind), meta.get("namespace", ""), meta["name"])
        if existing is not None:
            deleting = bool(existing["metadata"].get("deletionTimestamp"))
            raise answers.already_exists(kind, meta["name"], deleting=deleting)
        return self._write(kind, stored, None)

    def _write(
        self, kind: Kind, obj: dict[str, Any], previous: dict[str, Any] | None
    ) -> dict[str, Any]:
        """Store `obj`; a dry run answers it as it would be stored (a create
        without a resourceVersion, an update at the stored one)."""
        if not self._dry_run:
            if kind.stored_as == kind.version:
                return self.store.write(_key(kind), obj, previous)
            meta = obj["metadata"]
            raw = self.store.peek(_key(kind), meta.get("namespace", ""), meta["name"])
            stored = self.versions.to_storage(kind, obj)
            return self.versions.to_served(
                kind, self.store.write(_key(kind), stored, previous and raw)
            )
        answer = json_copy(obj)
        if previous is None:
            answer["metadata"].pop("resourceVersion", None)
        else:
            answer["metadata"]["resourceVersion"] = previous["metadata"][
                "resourceVersion"
            ]
        return answer

    def _remove(self, kind: Kind, obj: dict[str, Any]) -> dict[str, Any]:
        if self._dry_run:
            return json_copy(obj)
        meta = obj["metadata"]
        raw = self.store.peek(_key(kind), meta.get("namespace", ""), meta["name"])
        return self.versions.to_served(kind, self.store.remove(_key(kind), raw or obj))

    def _requested(self, stored: dict[str, Any]) -> dict[str, Any]:
        """What a write asked for, before mutating webhooks changed it: the fields
        `managedFields` give its manager (the server records them before admission)."""
        unmutated = getattr(self._local, "unmutated", None)
        return stored if unmutated is None else dict(unmutated)

    def _objects(self, kind: Kind, namespace: str | None) -> list[dict[str, Any]]:
        """The stored objects of `kind` (in `namespace`), in its version."""
        stored = self.store.objects(_key(kind), namespace)
        return [self.versions.to_served(kind, obj) for obj in stored]

    def _admission(
        self, kind: Kind, obj: dict[str, Any] | None, old: dict[str, Any] | None
    ) -> Request:
        operation = "DELETE" if obj is None else "CREATE" if old is None else "UPDATE"
        subresource = getattr(self._local, "subresource", None)
        return Request(kind, operation, obj, old, subresource, self._dry_run)

    def _admit(
        self,
        kind: Kind,
        candidate: dict[str, Any],
        old: dict[str, Any] | None,
        causes: list[Cause] | None = None,
    ) -> dict[str, Any]:
        """`candidate` as it would be stored: pruned and defaulted by the CRD schema,
        validated by the kind's model (a `Refusal` with the server's causes)."""
        # ObjectMeta's fields are all omitempty: empty ones are not stored
        meta = {
            k: v
            for k, v in candidate["metadata"].items()
            if v not in ("", [], {}, None)
        }
        candidate["metadata"] = meta
        if kind.schema is not None:
            candidate = prune_and_default(kind.schema, candidate)
        self._local.unmutated = None
        if self.admission is not None:
            mutated = self.admission.mutate(self._admission(kind, candidate, old))
            if mutated is not candidate and mutated is not None:
                self._local.unmutated = candidate
                candidate = mutated
                if kind.schema is not None:
                    candidate = prune_and_default(kind.schema, candidate)
                meta = {
                    k: v
                    for k, v in candidate["metadata"].items()
                    if v not in ("", [], {}, None)
                }
        problems = list(causes or [])
        if kind.model is not None:
            problems += object_causes(
                kind.model, candidate, old, has_rules=kind.has_rules
            )
        problems += scale_causes(kind, candidate)
        undecodable = [c for c in problems if c.reason == "FieldValueTypeInvalid"]
        if kind.builtin and undecodable:
            # a built-in's body is decoded into Go structs before any validation
            raise answers.undecodable(
                kind, undecodable[0], _go_parent(kind, undecodable[0])
            )
        if problems:
            named = str(candidate.get("kind") or kind.kind)
            raise answers.invalid(kind, meta.get("name", ""), problems, named)
        if kind.schema is None and kind.model is not None:
            pruned = kind.model.model_validate(candidate).model_dump(
                mode="json", by_alias=True, exclude_unset=True, exclude_none=True
            )
            candidate = {**pruned, "metadata": meta}
        candidate["metadata"] = meta
        if self.admission is not None:
            self.admission.validate(self._admission(kind, candidate, old))
        return candidate

    def _update(
        self,
        kind: Kind,
        route: Route,
        obj: dict[str, Any],
        status_only: bool,
        *,
        patched: bool = False,
        entries: list[Entry] | None = None,
    ) -> dict[str, Any]:
        """Replace the object (or its status); `entries` are its managedFields
        when an apply writes it."""
        current = self._current(kind, route)
        assert route.name is not None
        meta = dict(obj.get("metadata") or {})
        if meta.get("name", route.name) != route.name:
            raise answers.bad_request(
                f"the name of the object ({meta['name']}) does not match the name "
                f"on the URL ({route.name})"
            )
        type_causes = [] if patched else _type_meta_causes(kind, obj)
        version = meta.get("resourceVersion")
        if not version and not kind.builtin and not patched:
            raise answers.invalid(
                kind,
                route.name,
                [
                    Cause(
                        "metadata.resourceVersion",
                        "FieldValueInvalid",
                        "Invalid value: 0: must be specified for an update",
                    )
                ],
                kind.plural,
            )
        if version and version != current["metadata"]["resourceVersion"]:
            raise answers.conflict(kind, route.name, answers.STALE)
        if status_only:
            candidate = json_copy(current)
            if "status" in obj:
                candidate["status"] = obj["status"]
            else:
                candidate.pop("status", None)
        else:
            candidate = {**obj, "apiVersion": kind.api_version, "kind": kind.kind}
            for owned in (*SERVER_OWNED, "namespace", "name", "resourceVersion"):
                if owned in current["metadata"]:
                    meta[owned] = current["metadata"][owned]
                else:
                    meta.pop(owned, None)
            meta.pop("managedFields", None)
            candidate["metadata"] = meta
            if kind.status_subresource:
                if "status" in current:
                    candidate["status"] = current["status"]
                else:
                    candidate.pop("status", None)
        causes = type_causes + self._finalizer_causes(current, candidate)
        # an update checks labels several times over, and says so each time:
        # three for a custom resource, four for a ConfigMap (measured by the
        # agreement tests; other built-ins are taken to repeat as a ConfigMap)
        causes += label_causes(candidate["metadata"]) * (4 if kind.builtin else 3)
        stored = self._admit(kind, candidate, current, causes)
        if kind.tracks_generation and _spec_changed(kind, current, stored):
            stored["metadata"]["generation"] = (
                current["metadata"].get("generation", 0) + 1
            )
        if entries is None and not read_entries(current["metadata"]):
            entries = []  # an object nobody manages stays so until an apply
        if entries is None:
            entries = record_update(
                read_entries(current["metadata"]),
                current,
                self._requested(stored),
                self._writer(kind, route),
            )
        _set_managed_fields(stored, entries)
        if current["metadata"].get("deletionTimestamp") and not stored["metadata"].get(
            "finalizers"
        ):
            self._remove(kind, current)
            return stored
        if stored == current:
            return current
        return self._write(kind, stored, current)

    @staticmethod
    def _finalizer_causes(
        current: dict[str, Any], candidate: dict[str, Any]
    ) -> list[Cause]:
        if not current["metadata"].get("deletionTimestamp"):
            return []
        before = set(current["metadata"].get("finalizers") or [])
        added = [
            f for f in candidate["metadata"].get("finalizers") or [] if f not in before
        ]
        if not added:
            return []
        listed = ", ".join(f'"{f}"' for f in added)
        forbidden = Cause(
            "metadata.finalizers",
            "FieldValueForbidden",
            "Forbidden: no new finalizers can be added if the object is being "
            f"deleted, found new finalizers []string{{{listed}}}",
        )
        return [forbidden, forbidden]  # the server checks it twice, and says so twice

    def _patch(
        self,
        kind: Kind,
        route: Route,
        body: bytes | None,
        content_type: str | None,
        status_only: bool,
    ) -> dict[str, Any]:
        if content_type == STRATEGIC_PATCH:
            strategic_patched(kind, body, None)  # a custom resource: 415 first
            result = strategic_patched(kind, body, self._current(kind, route))
        elif content_type not in (MERGE_PATCH, JSON_PATCH):
            raise answers.unsupported_media_type(content_type)
        else:
            result = _patched(content_type, body, self._current(kind, route))
        return self._update(kind, route, result, status_only, patched=True)

    def _apply(
        self, kind: Kind, route: Route, body: bytes | None, status_only: bool
    ) -> tuple[int, dict[str, Any]]:
        """Server-side apply: 201 when it creates the object, 200 otherwise."""
        assert route.name is not None
        if not route.query.get("fieldManager"):
            raise answers.status(
                422,
                "Invalid",
                'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required '
                "value: is required for apply patch",
                {
                    "group": "meta.k8s.io",
                    "kind": "PatchOptions",
                    "causes": [
                        Cause(
                            "fieldManager",
                            "FieldValueRequired",
                            "Required value: is required for apply patch",
                        ).body()
                    ],
                },
            )
        try:
            # the runtime sends its configurations as JSON, a subset of YAML
            # that the json module reads a hundred times as fast
            config = _json_or_yaml(body or b"")
        except yaml.YAMLError as error:
            raise answers.bad_request(f"error decoding YAML: {error}") from error
        if not isinstance(config, dict):
            raise answers.bad_request("the apply configuration is not an object")
        if not config.get("kind") or not config.get("apiVersion"):
            group, _, version = str(config.get("apiVersion") or "").rpartition("/")
            raise answers.bad_request(
                f"invalid object type: {group}/{version}, Kind={config.get('kind') or ''}"
            )
        type_causes = _type_meta_causes(kind, config)
        if type_causes:
            raise answers.invalid(kind, route.name, type_causes, kind.kind)
        meta = config.get("metadata") or {}
        if meta.get("name", route.name) != route.name:
            raise answers.bad_request(
                f"the name of the object ({meta['name']}) does not match the name "
                f"on the URL ({route.name})"
            )
        problem = numeric_problem(kind.schema, config)
        if problem is not None:
            raise answers.Refusal(
                500,
                {
                    "kind": "Status",
                    "apiVersion": "v1",
                    "metadata": {},
                    "status": "Failure",
                    "message": "failed to create typed patch object "
                    f"({meta.get('namespace', '')}/{route.name}; {kind.api_version}, "
                    f"Kind={kind.kind}): {problem}",
                    "code": 500,
                },
            )
        force = route.query.get("force") == "true"
        write = self._writer(kind, route)
        current = self.store.get(_key(kind), route.namespace or "", route.name)
        if current is not None:
            current = self.versions.to_served(kind, current)
        if current is None:
            if status_only:
                raise answers.not_found(kind, route.name)
            live: dict[str, Any] = {
                "apiVersion": kind.api_version,
                "kind": kind.kind,
                "metadata": {"name": route.name},
            }
            merged, entries = apply([], live, config, write, force)
            return 201, self._create(kind, route, merged, entries)
        live = json_copy(current)
        live["metadata"].pop("managedFields", None)
        merged, entries = apply(
            read_entries(current["metadata"]), live, config, write, force
        )
        if "resourceVersion" not in meta:
            merged["metadata"].pop("resourceVersion", None)
        written = self._update(
            kind, route, merged, status_only, patched=True, entries=entries
        )
        return 200, written

    def _scale(
        self,
        method: str,
        kind: Kind,
        route: Route,
        body: bytes | None,
        content_type: str | None,
    ) -> dict[str, Any]:
        """The scale subresource: read, replaced (PUT) or patched as a Scale."""
        assert kind.scale is not None and route.name is not None
        current = self._current(kind, route)
        if method == "GET":
            return to_scale(kind.scale, current)
        if method == "PUT":
            wanted = _document(body)
        elif method == "PATCH":
            wanted = _patched(content_type, body, to_scale(kind.scale, current))
        else:
            raise answers.method_not_allowed(method)
        version = (wanted.get("metadata") or {}).get("resourceVersion")
        if version and version != current["metadata"]["resourceVersion"]:
            raise answers.conflict(kind, route.name, answers.STALE)
        replicas = (wanted.get("spec") or {}).get("replicas")
        scaled = with_replicas(kind.scale, current, replicas)
        whole = dataclasses.replace(route, subresource="scale")
        written = self._update(kind, whole, scaled, False, patched=True)
        return to_scale(kind.scale, written)

    def _terminate(self, kind: Kind, namespace: dict[str, Any]) -> dict[str, Any]:
        """A deleted Namespace turns Terminating and stays: its `kubernetes`
        finalizer is the namespace controller's, which does not run here (nor in
        envtest without kube-controller-manager)."""
        if namespace["metadata"].get("deletionTimestamp"):
            return namespace
        marked = json_copy(namespace)
        marked["metadata"]["deletionTimestamp"] = timestamp(self.clock)
        marked["status"] = {**(marked.get("status") or {}), "phase": "Terminating"}
        return self._write(kind, marked, namespace)

    def _delete_collection(
        self, kind: Kind, route: Route, options: dict[str, Any]
    ) -> dict[str, Any]:
        """Delete every object a list with the same selectors returns; answers
        that list (the objects as they were before)."""
        selectors = {
            key: value
            for key, value in route.query.items()
            if key in ("labelSelector", "fieldSelector")
        }
        listed = self._list(kind, dataclasses.replace(route, query=selectors))
        for item in listed["items"]:
            meta = item["metadata"]
            one = Route(
                kind.group,
                kind.version,
                kind.plural,
                meta.get("namespace"),
                meta["name"],
            )
            self._delete(kind, one, options)
        return listed

    def _delete(
        self, kind: Kind, route: Route, options: dict[str, Any]
    ) -> dict[str, Any]:
        check_options(options)
        current = self._current(kind, route)
        assert route.name is not None
        meta = current["metadata"]
        preconditions = options.get("preconditions") or {}
        for field, label, why in _PRECONDITIONS:
            wanted = preconditions.get(field)
            if wanted is not None and wanted != meta.get(field):
                raise answers.conflict(
                    kind,
                    route.name,
                    f"the {label} in the precondition ({wanted}) does not match the "
                    f"{label} in record ({meta.get(field)}). {why}",
                    kind.kind,
                )
        if self.admission is not None:
            request = self._admission(kind, None, current)
            self.admission.mutate(request)
            self.admission.validate(request)
        if _key(kind) == NAMESPACES:
            return self._terminate(kind, current)
        before = list(meta.get("finalizers") or [])
        finalizers = deletion_finalizers(kind, before, options)
        if not finalizers:
            gone = self._remove(kind, current)
            return gone if returns_deleted_object(kind) else _deleted_status(kind, gone)
        if meta.get("deletionTimestamp"):
            if finalizers == before:
                return current
            changed = json_copy(current)
            changed["metadata"]["finalizers"] = finalizers
            return self._write(kind, changed, current)
        marked = json_copy(current)
        marked["metadata"]["finalizers"] = finalizers
        marked["metadata"]["deletionTimestamp"] = timestamp(self.clock)
        marked["metadata"]["deletionGracePeriodSeconds"] = 0
        if kind.tracks_generation:
            marked["metadata"]["generation"] = meta.get("generation", 0) + 1
        return self._write(kind, marked, current)


def _go_parent(kind: Kind, cause: Cause) -> str:
    """The Go type holding the field a cause names (`DeploymentSpec` for
    `spec.replicas`): `op.k8s` classes are named after their Go types."""
    model: Any = kind.model
    for part in cause.field.split(".")[:-1]:
        fields = getattr(model, "model_fields", {})
        found = next(
            (f for name, f in fields.items() if (f.alias or name) == part), None
        )
        if found is None:
            break
        annotation = found.annotation
        model = next(
            (
                a
                for a in (annotation, *getattr(annotation, "__args__", ()))
                if isinstance(a, type) and hasattr(a, "model_fields")
            ),
            None,
        )
    return model.__name__ if isinstance(model, type) else kind.kind


def _set_managed_fields(obj: dict[str, Any], entries: list[Entry]) -> None:
    if entries:
        obj["metadata"]["managedFields"] = write_entries(entries)
    else:
        obj["metadata"].pop("managedFields", None)


def _check_field_selector(kind: Kind, route: Route) -> None:
    """A field selector names only labels the kind supports (400 otherwise)."""
    selector = route.query.get("fieldSelector")
    if not selector:
        return
    for requirement in selector.replace("!=", "=").split(","):
        label = requirement.split("=")[0].strip()
        if label not in (*_FIELD_LABELS, *kind.selectable_fields):
            raise answers.bad_request(f"field label not supported: {label}")


def _key(kind: Kind) -> tuple[str, str, str]:
    return (kind.group, kind.stored_as, kind.plural)


def _position(obj: dict[str, Any]) -> str:
    meta = obj["metadata"]
    return f"{meta.get('namespace', '')}/{meta['name']}"


def _patched(
    content_type: str | None, body: bytes | None, document: dict[str, Any]
) -> dict[str, Any]:
    """`document` with the request's patch applied."""
    if content_type not in (MERGE_PATCH, JSON_PATCH):
        raise answers.unsupported_media_type(content_type)
    try:
        patch = json.loads(body or b"null")
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


def _json_or_yaml(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return yaml.load(body, Loader=_YAML_LOADER)


_YAML_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _document(body: bytes | None) -> dict[str, Any]:
    try:
        document = json.loads(body or b"")
    except ValueError as error:
        raise answers.bad_request(
            f"the request body is not valid JSON: {error}"
        ) from error
    if not isinstance(document, dict):
        raise answers.bad_request("the request body is not a JSON object")
    return document


def _type_meta_causes(kind: Kind, obj: dict[str, Any]) -> list[Cause]:
    """A custom resource's body names its apiVersion and kind, and they are its
    own (400 for a missing kind or another version, a cause for another kind)."""
    if kind.builtin:
        return []
    if not obj.get("kind") or not obj.get("apiVersion"):
        missing = "Kind" if not obj.get("kind") else "Version"
        raise answers.bad_request(
            f"the object provided is unrecognized (must be of type {kind.kind}): "
            f"Object '{missing}' is missing in '{json.dumps(obj)}'"
        )
    if obj["apiVersion"] != kind.api_version:
        raise answers.bad_request(
            f"the API version in the data ({obj['apiVersion']}) does not match the "
            f"expected API version ({kind.api_version})"
        )
    if obj["kind"] != kind.kind:
        return [
            Cause(
                "kind",
                "FieldValueInvalid",
                f'Invalid value: "{obj["kind"]}": must be {kind.kind}',
            )
        ]
    return []


def _spec_changed(kind: Kind, old: dict[str, Any], new: dict[str, Any]) -> bool:
    ignored = ("metadata", "status") if kind.status_subresource else ("metadata",)
    return {k: v for k, v in old.items() if k not in ignored} != {
        k: v for k, v in new.items() if k not in ignored
    }


def _deleted_status(kind: Kind, gone: dict[str, Any]) -> dict[str, Any]:
    details: dict[str, Any] = {"name": gone["metadata"]["name"]}
    if kind.group:
        details["group"] = kind.group
    details["kind"] = kind.plural
    details["uid"] = gone["metadata"]["uid"]
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": details,
    }
