"""Merge the versions of one (group, kind) into one `Kind` with one storage version.

controller-gen's rules, with errors where it is silent: versions sorted by
name (as controller-gen does), `skip_version` drops a version, a single
version is the storage version, several versions need exactly one
`@op.storage_version()` (two is an error), at least one must be served, and
every version must agree on scope, plural, singular, short names and
categories. CRD metadata from all versions is merged; conflicting values are
an error.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from opgen.errors import Diagnostic, LoadError, Location
from opgen.load.discover import FoundKind
from opgen.model.kinds import Kind, KindVersion

__all__ = ["merge_kinds"]


def _where(found: FoundKind) -> str:
    source = found.version.source
    return f"{source.file}: {source.cls}"


def _location(found: FoundKind) -> Location:
    source = found.version.source
    return Location(file=source.file, cls=source.cls)


def merge_kinds(found: Sequence[FoundKind]) -> tuple[list[Kind], list[Diagnostic]]:
    """Group versions by (group, kind) and merge each group into a `Kind`."""
    groups: dict[tuple[str, str], list[FoundKind]] = {}
    for item in found:
        groups.setdefault((item.info.group, item.info.kind), []).append(item)
    kinds: list[Kind] = []
    diagnostics: list[Diagnostic] = []
    for (group, kind_name), items in sorted(groups.items()):
        merged = _merge_one(group, kind_name, items, diagnostics)
        if merged is not None:
            kinds.append(merged)
    return kinds, diagnostics


def _merge_one(
    group: str, kind_name: str, items: list[FoundKind], diagnostics: list[Diagnostic]
) -> Kind | None:
    by_version: dict[str, FoundKind] = {}
    for item in items:
        other = by_version.get(item.info.version)
        if other is not None:
            raise LoadError(
                f"{group}/{item.info.version} {kind_name} is defined twice: by {_where(other)} "
                f"and by {_where(item)}",
                location=_location(item),
                hint="each version of a kind must come from one class",
            )
        by_version[item.info.version] = item
    _check_same_names(kind_name, items)
    kept = [by_version[v] for v in sorted(by_version) if not by_version[v].markers.skip]
    if not kept:
        diagnostics.append(
            Diagnostic(
                f"every version of {kind_name}.{group} has @op.skip_version(); no CRD is written",
                location=_location(items[0]),
            )
        )
        return None
    versions = _storage(group, kind_name, kept)
    if not any(v.served for v in versions):
        raise LoadError(
            f"no version of {kind_name}.{group} is served (all have @op.unserved_version())",
            location=_location(kept[0]),
            hint="serve at least one version",
        )
    first = kept[0].info
    annotations, labels = _metadata(kind_name, group, kept)
    return Kind(
        group=group,
        names=first.names,
        scope=first.scope,
        versions=versions,
        annotations=annotations,
        labels=labels,
    )


def _check_same_names(kind_name: str, items: list[FoundKind]) -> None:
    first = items[0]
    for item in items[1:]:
        for label, attribute in (
            ("scope", "namespaced"),
            ("plural", "plural"),
            ("singular", "singular"),
            ("short_names", "short_names"),
            ("categories", "categories"),
        ):
            mine = getattr(first.info, attribute)
            theirs = getattr(item.info, attribute)
            if mine != theirs:
                if label == "scope":
                    mine = "Namespaced" if mine else "Cluster"
                    theirs = "Namespaced" if theirs else "Cluster"
                raise LoadError(
                    f"the versions of {kind_name} disagree on {label}: {first.info.version} "
                    f"({_where(first)}) has {mine!r}, {item.info.version} ({_where(item)}) "
                    f"has {theirs!r}",
                    location=_location(item),
                    hint="all versions of a kind share one CRD, so they need the same names and scope",
                )


def _storage(
    group: str, kind_name: str, kept: list[FoundKind]
) -> tuple[KindVersion, ...]:
    marked = [item for item in kept if item.version.storage]
    if len(kept) == 1:
        return (dataclasses.replace(kept[0].version, storage=True),)
    if len(marked) > 1:
        raise LoadError(
            f"{kind_name}.{group} has {len(marked)} storage versions ("
            + ", ".join(f"{m.info.version} in {_where(m)}" for m in marked)
            + ")",
            location=_location(marked[1]),
            hint="keep @op.storage_version() on exactly one version",
        )
    if not marked:
        raise LoadError(
            f"{kind_name}.{group} has versions "
            + ", ".join(item.info.version for item in kept)
            + " but none is the storage version",
            location=_location(kept[0]),
            hint="decorate the version stored in etcd with @op.storage_version()",
        )
    return tuple(item.version for item in kept)


def _metadata(
    kind_name: str, group: str, kept: list[FoundKind]
) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    merged: dict[str, dict[str, tuple[str, FoundKind]]] = {
        "annotations": {},
        "labels": {},
    }
    for item in kept:
        for entry in item.markers.metadata:
            for label, pairs in (
                ("annotations", entry.annotations),
                ("labels", entry.labels),
            ):
                for key, value in pairs:
                    known = merged[label].get(key)
                    if known is not None and known[0] != value:
                        raise LoadError(
                            f"@op.crd_metadata of {kind_name}.{group} sets {label[:-1]} {key!r} "
                            f"to {known[0]!r} ({_where(known[1])}) and to {value!r} ({_where(item)})",
                            location=_location(item),
                            hint="the versions share one CRD: give the key the same value "
                            "in each, or set it on one version only",
                        )
                    merged[label][key] = (value, item)
    return (
        tuple(sorted((k, v[0]) for k, v in merged["annotations"].items())),
        tuple(sorted((k, v[0]) for k, v in merged["labels"].items())),
    )
