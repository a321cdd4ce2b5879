"""Kubernetes' built-in kinds, as the `op.k8s` module of their group/version defines them.

`create api --no-resource` scaffolds a controller for a built-in type; the
project stage names the module (`opgen.project.coregroups.k8s_module`) and
this reads the kinds it defines, with the facts the API server's discovery
gave them when `op.k8s` was generated: their plural and scope.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass

from opgen.engine.builtin import builtin_resource

__all__ = ["BuiltinKind", "builtin_kinds"]


@dataclass(frozen=True)
class BuiltinKind:
    """A built-in kind of `op.k8s` (a resource of the API server's discovery)."""

    module: str
    """The `op.k8s` module, e.g. `opgen.api.k8s.apps_v1`."""
    kind: str
    plural: str
    namespaced: bool


def builtin_kinds(module_name: str) -> Mapping[str, BuiltinKind] | None:
    """The kinds `module_name` defines, by name; None when there is no such module."""
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    kinds = {}
    for name, found in sorted(vars(module).items()):
        facts = builtin_resource(found)
        if facts is not None:
            kinds[name] = BuiltinKind(
                module=module_name,
                kind=name,
                plural=facts.plural,
                namespaced=facts.namespaced,
            )
    return kinds
