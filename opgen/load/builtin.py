"""Kubernetes' built-in kinds, as the `op.k8s` module of their group/version defines them.

`create api --no-resource` scaffolds a controller for a built-in type; the
project stage names the module (`opgen.project.coregroups.k8s_module`) and
this reads the kinds it defines, with the facts the API server's discovery
gave them when `op.k8s` was generated: their plural and scope.
`k8s_modules()` names every `op.k8s` module and `builtin_resources(module)`
gives the whole facts of each kind one defines (the RBAC check's catalogue).
A module's kinds are the names it exports: `opgen.api.k8s.core_v1` loads each
from a private part module on first use (docs/core-types.md), so its namespace
holds them only once read.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from types import ModuleType

from opgen.engine.builtin import BuiltinResource, builtin_resource

__all__ = [
    "K8S_PACKAGE",
    "builtin_kinds",
    "builtin_resources",
    "k8s_modules",
]

K8S_PACKAGE = "opgen.api.k8s"


def builtin_kinds(module_name: str) -> Mapping[str, BuiltinResource] | None:
    """The discovery facts of the kinds `module_name` defines, by kind; None
    when there is no such module."""
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    kinds = {}
    for name, found in sorted(_exported(module).items()):
        facts = builtin_resource(found)
        if facts is not None:
            kinds[name] = facts
    return kinds


def k8s_modules() -> list[str]:
    """Every public `op.k8s` module's full name (`opgen.api.k8s.apps_v1`, ...),
    sorted: not core/v1's parts, whose names `core_v1` exports."""
    package = importlib.import_module(K8S_PACKAGE)
    return sorted(
        f"{K8S_PACKAGE}.{info.name}"
        for info in pkgutil.iter_modules(package.__path__)
        if not info.name.startswith("_")
    )


def builtin_resources(module_name: str) -> list[BuiltinResource]:
    """The facts of every kind `module_name` (an `op.k8s` module) defines."""
    module = importlib.import_module(module_name)
    return [
        facts
        for found in _exported(module).values()
        if (facts := builtin_resource(found)) is not None
    ]


def _exported(module: ModuleType) -> dict[str, object]:
    """What `module` exports by name (its `__all__`), else its namespace."""
    names = getattr(module, "__all__", None)
    if names is None:
        return dict(vars(module))
    return {name: getattr(module, name) for name in names}
