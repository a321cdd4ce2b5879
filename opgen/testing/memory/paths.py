"""A request's path and query, read as the API server routes them."""

from __future__ import annotations

import functools
import urllib.parse
from dataclasses import dataclass, field

__all__ = ["Route", "parse_route"]

_NAMESPACE_SUBRESOURCES = ("status", "finalize")


@dataclass(frozen=True)
class Route:
    """What a path names: a kind's group, version and plural; a namespace, an
    object and its subresource when it names them; the query (read only: a
    route is shared by every request of its path)."""

    group: str
    version: str
    plural: str
    namespace: str | None = None
    name: str | None = None
    subresource: str | None = None
    query: dict[str, str] = field(default_factory=dict)


@functools.lru_cache(maxsize=1024)
def parse_route(path: str) -> Route | None:
    """The route of `path` (with its query), or None when it names no resource
    (read once a path: a test's requests name the same objects again and again)."""
    raw, _, query_text = path.partition("?")
    query = _query(query_text)
    parts = raw.strip("/").split("/")
    if "%" in raw:
        parts = [urllib.parse.unquote(p) for p in parts]
    if parts[:1] == ["api"] and len(parts) >= 3:
        group, version, rest = "", parts[1], parts[2:]
    elif parts[:1] == ["apis"] and len(parts) >= 4:
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        return None
    namespace = None
    if (
        rest[0] == "namespaces"
        and len(rest) >= 3
        and rest[2] not in _NAMESPACE_SUBRESOURCES
    ):
        namespace, rest = rest[1], rest[2:]
    if len(rest) > 3 or not all(rest):
        return None
    return Route(
        group=group,
        version=version,
        plural=rest[0],
        namespace=namespace,
        name=rest[1] if len(rest) > 1 else None,
        subresource=rest[2] if len(rest) > 2 else None,
        query=query,
    )


def _query(text: str) -> dict[str, str]:
    """A query's parameters, the last value of each, as `parse_qs` reads them
    (blank values left out); split by hand unless something is escaped (a
    test's paths are new in every test: its namespace's name is)."""
    if "%" in text or "+" in text:
        return {k: v[-1] for k, v in urllib.parse.parse_qs(text).items()}
    query = {}
    for pair in text.split("&"):
        key, _, value = pair.partition("=")
        if value:
            query[key] = value
    return query
