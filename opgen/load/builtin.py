"""Kubernetes' built-in kinds, as the lightkube module of their group/version defines them.

`create api --no-resource` scaffolds a controller for a built-in type; the
project stage names the module (`opgen.project.coregroups.lightkube_module`)
and this reads the kinds it defines: their plural and scope.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["BuiltinKind", "builtin_kinds"]


@dataclass(frozen=True)
class BuiltinKind:
    """A top-level resource class of lightkube (not a subresource such as `Scale`)."""

    module: str
    """The lightkube module, e.g. `lightkube.resources.apps_v1`."""
    kind: str
    plural: str
    namespaced: bool


def builtin_kinds(module_name: str) -> Mapping[str, BuiltinKind] | None:
    """The kinds `module_name` defines, by name; None when there is no such module."""
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    from lightkube.core import resource as lightkube_resource

    return {
        name: BuiltinKind(
            module=module_name,
            kind=name,
            plural=found._api_info.plural,
            namespaced=issubclass(found, lightkube_resource.NamespacedResource),
        )
        for name, found in vars(module).items()
        if inspect.isclass(found)
        and issubclass(found, lightkube_resource.Resource)
        and found._api_info.parent is None
    }
