"""RBAC rules collected from `op.rbac` markers on reconciler classes."""

from __future__ import annotations

from dataclasses import dataclass

from opgen.model.kinds import SourceRef


@dataclass(frozen=True)
class RbacRule:
    """One `op.rbac(...)` marker, as written (normalisation happens at render time)."""

    verbs: tuple[str, ...]
    groups: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    custom_resources: tuple[str, ...] = ()
    """Those of `resources` given as `custom_resources=`: not checked against the
    resources opgen knows."""
    resource_names: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()
    namespace: str | None = None
    role_name: str | None = None
    source: SourceRef | None = None
