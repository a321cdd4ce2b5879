"""Differences between two CRD schemas, path by path, for the controller-gen comparisons.

`compare_schemas(ours, theirs)` walks both structural schemas and reports each
schema path where they differ: a keyword with different values (descriptions
compared modulo whitespace, since the API server's OpenAPI joins the Go
comment lines that controller-gen keeps), or a property only one side has.
Properties one side has inside a Kubernetes type (under `core_subtrees`) are
listed apart: they exist in one Kubernetes release and not the other.

`theirs_name` names the second side in the entries ("controller-gen", or
"the original" for an import's round trip).

`newer_subtrees` are nodes an import typed as `op.k8s` types when the source
had an older release of them: inside them (the node itself included) what
only opgen's side has (fields, and keywords such as a list type newer
releases added) and descriptions (an older release's wording) are listed
apart as well; whatever the source has and opgen's side lacks or changes is
counted.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["SchemaDiff", "compare_crds", "compare_schemas"]

_CHILDREN = ("properties", "items", "additionalProperties")


@dataclass
class SchemaDiff:
    differences: list[str] = field(default_factory=list)
    """Counted: `path keyword: ours ≠ theirs`, or `path: only in ...`."""
    version_only: list[str] = field(default_factory=list)
    """Listed, not counted: fields of Kubernetes types only one release has."""

    def summary(self, name: str) -> str:
        lines = [
            f"{name}: {len(self.differences)} differing schema paths, "
            f"{len(self.version_only)} fields only in one Kubernetes release"
        ]
        lines += [f"  differs: {line}" for line in self.differences]
        lines += [f"  release: {line}" for line in self.version_only]
        return "\n".join(lines)


def _normal(keyword: str, value: Any) -> Any:
    if keyword == "description" and isinstance(value, str):
        return " ".join(value.split())
    return value


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _inside(path: str, subtrees: tuple[str, ...]) -> bool:
    return any(
        path == s or path.startswith((s + ".", s + "[", s + "{")) for s in subtrees
    )


def compare_schemas(
    ours: dict[str, Any],
    theirs: dict[str, Any],
    *,
    core_subtrees: Iterable[str] = (),
    newer_subtrees: Iterable[str] = (),
    theirs_name: str = "controller-gen",
    path: str = "",
    diff: SchemaDiff | None = None,
) -> SchemaDiff:
    diff = diff if diff is not None else SchemaDiff()
    subtrees = tuple(core_subtrees)
    newer = tuple(newer_subtrees)
    for keyword in sorted(set(ours) | set(theirs)):
        if keyword == "properties":
            mine, other = ours.get(keyword, {}), theirs.get(keyword, {})
            for name in sorted(set(mine) | set(other)):
                child = f"{path}.{name}" if path else name
                if name not in mine or name not in other:
                    side = theirs_name if name not in mine else "opgen"
                    entry = f"{child}: only in {side}'s"
                    inside = any(child.startswith(s + ".") for s in subtrees) or (
                        name not in other and _inside(child, newer)
                    )
                    (diff.version_only if inside else diff.differences).append(entry)
                    continue
                compare_schemas(
                    mine[name],
                    other[name],
                    core_subtrees=subtrees,
                    newer_subtrees=newer,
                    theirs_name=theirs_name,
                    path=child,
                    diff=diff,
                )
        elif keyword in ("items", "additionalProperties") and all(
            isinstance(side.get(keyword), dict) for side in (ours, theirs)
        ):
            suffix = "[*]" if keyword == "items" else "{*}"
            compare_schemas(
                ours[keyword],
                theirs[keyword],
                core_subtrees=subtrees,
                newer_subtrees=newer,
                theirs_name=theirs_name,
                path=path + suffix,
                diff=diff,
            )
        else:
            mine, other = ours.get(keyword), theirs.get(keyword)
            if _normal(keyword, mine) != _normal(keyword, other):
                entry = (
                    f"{path or '(root)'} {keyword}: opgen {_shown(mine)}, "
                    f"{theirs_name} {_shown(other)}"
                )
                release = _inside(path, newer) and (
                    keyword == "description" or keyword not in theirs
                )
                (diff.version_only if release else diff.differences).append(entry)
    return diff


def compare_crds(
    ours: dict[str, Any],
    theirs: dict[str, Any],
    *,
    core_subtrees: Iterable[str] = (),
    newer_subtrees: Iterable[str] = (),
    theirs_name: str = "controller-gen",
) -> SchemaDiff:
    """Both CRDs: every version's schema, and the rest of each version entry and
    of `spec` (names, scope, printer columns, subresources, ...)."""
    diff = SchemaDiff()
    mine = {v["name"]: v for v in ours["spec"]["versions"]}
    other = {v["name"]: v for v in theirs["spec"]["versions"]}
    for name in sorted(set(mine) | set(other)):
        if name not in mine or name not in other:
            diff.differences.append(f"version {name}: only in one CRD")
            continue
        rest = [k for k in set(mine[name]) | set(other[name]) if k != "schema"]
        for key in sorted(rest):
            if mine[name].get(key) != other[name].get(key):
                diff.differences.append(f"version {name} {key} differs")
        compare_schemas(
            mine[name]["schema"]["openAPIV3Schema"],
            other[name]["schema"]["openAPIV3Schema"],
            core_subtrees=core_subtrees,
            newer_subtrees=newer_subtrees,
            theirs_name=theirs_name,
            diff=diff,
        )
    for key in sorted((set(ours["spec"]) | set(theirs["spec"])) - {"versions"}):
        if ours["spec"].get(key) != theirs["spec"].get(key):
            diff.differences.append(f"spec.{key} differs")
    return diff
