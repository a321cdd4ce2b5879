"""Kubernetes' built-in kinds, as the `op.k8s` module of their group/version defines them.

`create api --no-resource` scaffolds a controller for a built-in type; the
project stage names the module (`opgen.project.coregroups.k8s_module`) and
this reads the kinds it defines, with the facts the API server's discovery
gave them when `op.k8s` was generated: their plural and scope.
`k8s_modules()` names every `op.k8s` module and `builtin_resources(module)`
gives the whole facts of each kind one defines (the RBAC check's catalogue).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping

from opgen.engine.builtin import BuiltinResource, module_kinds

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
    kinds = sorted(module_kinds(module), key=lambda kind: kind[0])
    return {name: facts for name, _, facts in kinds}


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
    return [facts for _, _, facts in module_kinds(module)]
