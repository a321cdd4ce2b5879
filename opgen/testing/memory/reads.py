"""The memory server's reads: routing a path to its kind, get, list (selectors,
pagination) and watch, and the event history's compaction."""

from __future__ import annotations

import base64
import functools
import json
from typing import Any

from opgen.testing.memory import answers
from opgen.testing.memory.bookmarks import asks_bookmarks, initial_events_end
from opgen.testing.memory.conversion import Versions
from opgen.testing.memory.kinds import Kind, Kinds
from opgen.testing.memory.paths import Route, parse_route
from opgen.testing.memory.store import Store
from opgen.testing.memory.watch import Watch, matches

__all__ = ["NAMESPACES", "Reads", "check_field_selector", "list_position", "store_key"]

NAMESPACES = ("", "v1", "namespaces")
_FIELD_LABELS = ("metadata.name", "metadata.namespace")


class Reads:
    """Routing and reads (get, list, watch) over the server's store."""

    kinds: Kinds
    store: Store
    versions: Versions
    compacted: int

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

    def _current(
        self, kind: Kind, route: Route, *, copy: bool = True
    ) -> dict[str, Any]:
        """The object a route names, in its version (`copy=False`: the stored
        object itself, only to read)."""
        assert route.name is not None
        read = self.store.get if copy else self.store.peek
        found = read(store_key(kind), route.namespace or "", route.name)
        if found is None:
            raise answers.not_found(kind, route.name)
        return self.versions.to_served(kind, found)

    def _list(self, kind: Kind, route: Route) -> dict[str, Any]:
        check_field_selector(kind, route)
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
            if matches(route, obj) and list_position(obj) > start
        ]
        meta: dict[str, Any] = {"resourceVersion": str(revision)}
        limit = int(route.query.get("limit") or 0)
        if limit and len(items) > limit:
            rest = len(items) - limit
            items = items[:limit]
            position = {"rv": revision, "start": list_position(items[-1])}
            meta["continue"] = base64.urlsafe_b64encode(
                json.dumps(position).encode()
            ).decode()
            if not route.query.get("labelSelector") and not selector:
                meta["remainingItemCount"] = rest  # counted only without selectors
        if kind.builtin:  # typed lists leave out their items' apiVersion and kind
            items = [self.store.list_item(item) for item in items]
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
        check_field_selector(kind, route)
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
            subscription = self.store.subscribe(store_key(kind), after)
            return Watch(
                kind, route, [], subscription, served, asks_bookmarks(route), after
            )
        initial = [
            {"type": "ADDED", "object": obj}
            for obj in self._objects(kind, route.namespace)
            if matches(route, obj)
        ]
        revision = self.store.revision
        if asks_bookmarks(route):
            initial.append(initial_events_end(kind, revision))
        subscription = self.store.subscribe(store_key(kind), revision)
        return Watch(
            kind, route, initial, subscription, served, asks_bookmarks(route), revision
        )

    def compact(self) -> None:
        """Forget the event history, as etcd's compaction does: a watch from an
        older resourceVersion is answered 410 Gone (an ERROR event)."""
        self.compacted = self.store.revision
        self.store.history.clear()

    def _objects(self, kind: Kind, namespace: str | None) -> list[dict[str, Any]]:
        """The stored objects of `kind` (in `namespace`), in its version."""
        stored = self.store.objects(store_key(kind), namespace)
        return [self.versions.to_served(kind, obj) for obj in stored]


def check_field_selector(kind: Kind, route: Route) -> None:
    """A field selector names only labels the kind supports (400 otherwise)."""
    selector = route.query.get("fieldSelector")
    if not selector:
        return
    for requirement in selector.replace("!=", "=").split(","):
        label = requirement.split("=")[0].strip()
        if label not in (*_FIELD_LABELS, *kind.selectable_fields):
            raise answers.bad_request(f"field label not supported: {label}")


def store_key(kind: Kind) -> tuple[str, str, str]:
    return (kind.group, kind.stored_as, kind.plural)


def list_position(obj: dict[str, Any]) -> str:
    meta = obj["metadata"]
    return f"{meta.get('namespace', '')}/{meta['name']}"
