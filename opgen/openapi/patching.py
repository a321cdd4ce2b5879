"""The strategic-merge-patch facts of Kubernetes' built-in types, from their OpenAPI.

Kubernetes declares on its Go types how a strategic merge patch merges each
field (the `patchStrategy` and `patchMergeKey` struct tags) and publishes
them in its OpenAPI as `x-kubernetes-patch-strategy` and
`x-kubernetes-patch-merge-key`. `patch_strategies` reads them from the
`/openapi/v3` documents `make core-types` reads, and
`opgen.render.core_types.patch_strategies_file` writes them as
`opgen/api/k8s/patch_strategies.py`: plain data the memory
API server loads on its first strategic merge patch (so importing `op.k8s`
does not pay for it).

Only what a patch needs is kept: the types a kind reaches, and of those the
fields that have a strategy, or whose value (a struct, or a list's or a
map's items) is a type that has some further down. Any other field merges as in a JSON merge patch (maps key by
key, lists replaced), which is also what the server does without a strategy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["PatchFacts", "patch_strategies"]

Field = tuple[str, str, str]
"""(strategy, merge key, the type of the value or its items; `map:` before a
map's item type)."""


class PatchFacts:
    """Each kind's type and the patch facts of every type that has some."""

    def __init__(
        self, kinds: Mapping[str, str], types: Mapping[str, Mapping[str, Field]]
    ) -> None:
        self.kinds = dict(sorted(kinds.items()))
        self.types = {
            name: dict(sorted(f.items())) for name, f in sorted(types.items())
        }


def _reference(schema: Mapping[str, Any]) -> str:
    if "$ref" in schema:
        return str(schema["$ref"]).rpartition("/")[2]
    for part in schema.get("allOf", ()):
        if "$ref" in part:
            return str(part["$ref"]).rpartition("/")[2]
    return ""


def _target(schema: Mapping[str, Any]) -> str:
    """The type a property's value is, or its items are (`map:` for a map's)."""
    items = schema.get("items")
    if isinstance(items, Mapping):
        return _reference(items)
    values = schema.get("additionalProperties")
    if isinstance(values, Mapping) and _reference(values):
        return "map:" + _reference(values)
    return _reference(schema)


def patch_strategies(documents: Mapping[str, Mapping[str, Any]]) -> PatchFacts:
    """The patch facts the `/openapi/v3` `documents` declare (by their paths)."""
    schemas: dict[str, Mapping[str, Any]] = {}
    kinds: dict[str, str] = {}
    for _, document in sorted(documents.items()):
        for name, schema in document.get("components", {}).get("schemas", {}).items():
            schemas.setdefault(name, schema)
            for tag in schema.get("x-kubernetes-group-version-kind", ()):
                group = tag.get("group", "")
                key = f"{group}/{tag['version']}" if group else tag["version"]
                kinds.setdefault(f"{key}/{tag['kind']}", name)
    fields: dict[str, dict[str, Field]] = {
        name: {
            prop: (
                str(value.get("x-kubernetes-patch-strategy", "")),
                str(value.get("x-kubernetes-patch-merge-key", "")),
                _target(value),
            )
            for prop, value in (schema.get("properties") or {}).items()
        }
        for name, schema in schemas.items()
    }
    relevant = {
        name for name, props in fields.items() if any(f[0] for f in props.values())
    }
    while True:
        more = {
            name
            for name, props in fields.items()
            if name not in relevant
            and any(f[2].removeprefix("map:") in relevant for f in props.values())
        }
        if not more:
            break
        relevant |= more
    types = {
        name: {
            prop: (
                strategy,
                key,
                target if target.removeprefix("map:") in relevant else "",
            )
            for prop, (strategy, key, target) in fields[name].items()
            if strategy or target.removeprefix("map:") in relevant
        }
        for name in relevant
    }
    served = {
        kind: name
        for kind, name in kinds.items()
        if name in relevant and not kind.endswith("List")
    }
    reached: set[str] = set()
    waiting = list(served.values())
    while waiting:
        name = waiting.pop()
        if name in reached:
            continue
        reached.add(name)
        waiting += [t.removeprefix("map:") for _, _, t in types[name].values() if t]
    types = {name: types[name] for name in reached}
    return PatchFacts(served, types)
