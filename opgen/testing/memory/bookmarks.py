"""Watch bookmarks, as kube-apiserver's watch cache sends them.

A watch that asks for them (`allowWatchBookmarks=true`) gets `BOOKMARK`
events: an object of the watched kind holding only a `resourceVersion`, the
revision the client may resume from. Measured on kube-apiserver 1.36:

- a watch that starts with the current state (no resourceVersion, or "0")
  gets one right after its initial `ADDED` events, annotated
  `k8s.io/initial-events-end: "true"`, even when no object matched;
- then one every minute, and one two seconds before the watch's
  `timeoutSeconds` runs out, each only when the revision has moved past
  what the watch last told the client.

Without `allowWatchBookmarks=true` a watch gets none.
"""

from __future__ import annotations

from typing import Any

from opgen.testing.memory.kinds import Kind
from opgen.testing.memory.paths import Route

__all__ = [
    "BEFORE_TIMEOUT",
    "INITIAL_EVENTS_END",
    "PERIOD",
    "asks_bookmarks",
    "bookmark",
    "initial_events_end",
    "next_bookmark",
]

PERIOD = 60.0
"""Seconds between two periodic bookmarks of one watch (the watch cache's)."""

BEFORE_TIMEOUT = 2.0
"""How long before a watch's timeout its last bookmark is sent, in seconds."""

INITIAL_EVENTS_END = "k8s.io/initial-events-end"


def asks_bookmarks(route: Route) -> bool:
    return route.query.get("allowWatchBookmarks") == "true"


def bookmark(kind: Kind, revision: int) -> dict[str, Any]:
    """A `BOOKMARK` event at `revision`, in the watched version."""
    return {
        "type": "BOOKMARK",
        "object": {
            "kind": kind.kind,
            "apiVersion": kind.api_version,
            "metadata": {"resourceVersion": str(revision)},
        },
    }


def initial_events_end(kind: Kind, revision: int) -> dict[str, Any]:
    """The bookmark that ends a watch's initial events."""
    event = bookmark(kind, revision)
    event["object"]["metadata"]["annotations"] = {INITIAL_EVENTS_END: "true"}
    return event


def next_bookmark(now: float, deadline: float | None) -> float | None:
    """When a watch's next bookmark is due, on the loop's clock: a period from
    `now`, or two seconds before its deadline when that comes first; None once
    that last one is past."""
    due = now + PERIOD
    if deadline is None:
        return due
    last = deadline - BEFORE_TIMEOUT
    if now >= last:
        return None
    return min(due, last)
