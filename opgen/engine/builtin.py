"""The resource facts of Kubernetes' built-in kinds (`op.k8s.Deployment`, ...).

`opgen.api.k8s` is generated from the API server: each class of a kind is
decorated with `@resource(...)`, which records what the server's discovery
says of it (group, version, plural, scope, subresources) on the class itself.
The runtime addresses the kind with it, and the loader looks built-in kinds up
by it; `builtin_resource(cls)` reads it back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from types import ModuleType
from typing import TypeVar

from opgen.engine.kinds import ResourceInfo
from opgen.model.kinds import (
    BuiltinResource,
    KindNames,
    KindVersion,
    ScaleSubresource,
    Scope,
    SourceRef,
)

__all__ = [
    "BuiltinResource",
    "builtin_info",
    "builtin_resource",
    "module_kinds",
    "resource",
]

C = TypeVar("C", bound=type)

_ATTR = "__opgen_builtin_resource__"


def resource(
    *,
    group: str,
    version: str,
    plural: str,
    scope: str = "Namespaced",
    subresources: tuple[str, ...] = (),
) -> Callable[[C], C]:
    """Record a built-in kind's resource facts on its class (generated code only)."""
    if scope not in ("Namespaced", "Cluster"):
        raise ValueError(f"scope must be Namespaced or Cluster, not {scope!r}")

    def decorate(cls: C) -> C:
        facts = BuiltinResource(
            group=group,
            version=version,
            kind=cls.__name__,
            plural=plural,
            namespaced=scope == "Namespaced",
            subresources=subresources,
        )
        setattr(cls, _ATTR, facts)
        return cls

    return decorate


def builtin_resource(cls: object) -> BuiltinResource | None:
    """The facts `@resource` recorded on `cls` itself (not a subclass); None
    for any other class."""
    if not isinstance(cls, type):
        return None
    found = cls.__dict__.get(_ATTR)
    return found if isinstance(found, BuiltinResource) else None


def module_kinds(module: ModuleType) -> Iterator[tuple[str, type, BuiltinResource]]:
    """The kinds an `op.k8s` module exports: (name, class, facts), by its
    `__all__` (core/v1 loads each name from its part module on first use, so
    its namespace holds only the names read so far); a module without one
    (`patch_strategies`), by its namespace."""
    for name in getattr(module, "__all__", None) or list(vars(module)):
        value = getattr(module, name)
        facts = builtin_resource(value)
        if facts is not None:
            yield name, value, facts


def builtin_info(cls: type, facts: BuiltinResource) -> ResourceInfo:
    """A built-in kind's facts in the shape a custom kind's class declares
    (`ResourceInfo`), so the runtime reads every kind one way."""
    kind_version = KindVersion(
        version=facts.version,
        source=SourceRef(file="", module=cls.__module__, cls=cls.__qualname__),
        status_subresource="status" in facts.subresources,
        scale=(
            ScaleSubresource(".spec.replicas", ".status.replicas")
            if "scale" in facts.subresources
            else None
        ),
    )
    names = KindNames(
        kind=facts.kind,
        plural=facts.plural,
        singular=facts.kind.lower(),
        list_kind=f"{facts.kind}List",
    )
    scope: Scope = "Namespaced" if facts.namespaced else "Cluster"
    return ResourceInfo(facts.group, names, scope, kind_version)
