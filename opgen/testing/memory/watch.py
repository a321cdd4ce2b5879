"""Watches of the memory server: the events a watch sends, as its selectors see them."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from opgen.runtime.selectors import fields_match, labels_match
from opgen.testing.memory.kinds import Kind
from opgen.testing.memory.paths import Route
from opgen.testing.memory.store import Event, Subscription, json_copy

__all__ = ["Watch", "matches"]


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
        now = matches(self.route, event.obj)
        before = event.previous is not None and matches(self.route, event.previous)
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


def matches(route: Route, obj: dict[str, Any]) -> bool:
    meta = obj.get("metadata", {})
    if route.namespace is not None and meta.get("namespace") != route.namespace:
        return False
    if not labels_match(route.query.get("labelSelector"), meta.get("labels") or {}):
        return False
    return fields_match(route.query.get("fieldSelector"), obj)
