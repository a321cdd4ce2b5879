"""The kinds a memory server serves: CRDs from their YAML, built-ins from `op.k8s`.

A CRD (the project's generated YAML, or an imported one) gives the REST facts
of each served version (group, plural, scope, subresources) and the schema the
server prunes and defaults with; the model class of a version, when given,
validates objects as the server would (tests/proof holds the models to the
server's verdicts). A built-in kind of `op.k8s` carries its facts on its class
(`opgen.engine.builtin`); its module is imported when a request first names
its group and version.
"""

from __future__ import annotations

import functools
import importlib
import json
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from opgen.engine.builtin import builtin_resource, module_kinds
from opgen.runtime.resources import ResourceType, resource_type
from opgen.testing.controlplane.crds import CrdSource, load_crds
from opgen.testing.memory.fields import GO_STRUCT

__all__ = ["Kind", "Kinds", "builtin_schema", "prepare_shapes"]


@dataclass(frozen=True)
class Kind:
    """One served version of a kind, as a request addresses it."""

    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    status_subresource: bool
    builtin: bool
    model: type[BaseModel] | None = field(default=None, compare=False)
    """Validates objects of this version (None: only the schema prunes and defaults)."""
    schema: Mapping[str, Any] | None = field(default=None, compare=False)
    """A CRD version's openAPIV3Schema."""
    selectable_fields: tuple[str, ...] = ()
    """Field selector labels beyond `metadata.name` and `metadata.namespace`
    (a CRD version's `selectableFields`, `spec.mode`)."""
    scale: Mapping[str, str] | None = field(default=None, compare=False)
    """A CRD's scale subresource (`specReplicasPath`, ...), if it has one."""
    storage_version: str = ""
    """The version objects are stored in ("": this one): a CRD's `storage: true` version."""
    conversion: Mapping[str, Any] | None = field(default=None, compare=False)
    """A CRD's `spec.conversion` (None: strategy `None`)."""

    @property
    def stored_as(self) -> str:
        """The version its objects are stored in."""
        return self.storage_version or self.version

    @property
    def scale_paths(self) -> tuple[str, ...]:
        """The replica paths the server checks: specReplicasPath, statusReplicasPath."""
        scale = self.scale or {}
        return tuple(
            scale[key]
            for key in ("specReplicasPath", "statusReplicasPath")
            if scale.get(key)
        )

    @property
    def shape(self) -> Mapping[str, Any] | None:
        """The schema server-side apply walks objects by: a CRD version's, or
        the one a built-in's model gives (`builtin_schema`)."""
        if self.builtin and self.model is not None:
            return builtin_schema(self.model)
        return self.schema

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def resource(self) -> str:
        """`widgets.test.opgen.dev`, `configmaps`: how the server's messages name it."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @functools.cached_property
    def has_rules(self) -> bool:
        """Whether the schema has CEL rules (`x-kubernetes-validations`) anywhere
        (read once: every write a model validates asks)."""
        return "x-kubernetes-validations" in json.dumps(self.schema or {})

    @property
    def tracks_generation(self) -> bool:
        """Whether the server sets `metadata.generation`: on every custom
        resource, and on the built-ins that have a spec (a Namespace's spec
        lists its finalizers: it has none) or a PodTemplate's template."""
        if not self.builtin:
            return True
        if self.kind == "Namespace":
            return False
        if (self.group, self.kind) == ("", "PodTemplate"):
            return True  # its template is its spec
        return self.model is not None and "spec" in self.model.model_fields


@functools.cache
def builtin_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The shape of a built-in's objects, from its `op.k8s` model, as the
    field sets need it: structs (marked `GO_STRUCT`), maps and atomic lists;
    a struct seen again inside itself is left untyped."""
    return _annotation_schema(model, frozenset())


def prepare_shapes(modules: Iterable[types.ModuleType]) -> int:
    """Work out, at a session's start, the shapes (`builtin_schema`) of the
    built-in kinds the `modules` name, of those the runtime writes itself
    (`prepared.RUNTIME_KINDS`) and of Namespaces (every server makes two):
    otherwise the first write of each kind does; returns how many."""
    from opgen.api.k8s import Namespace
    from opgen.testing.prepared import named_models, runtime_kinds

    models = {*named_models(modules), *runtime_kinds(), Namespace}
    built = [m for m in models if builtin_resource(m) is not None]
    for model in built:
        builtin_schema(model)
    return len(built)


def _annotation_schema(annotation: Any, seen: frozenset[type]) -> dict[str, Any]:
    origin = typing.get_origin(annotation)
    arguments = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType, typing.Annotated):
        chosen = [a for a in arguments if a is not type(None)][:1]
        return _annotation_schema(chosen[0], seen) if chosen else {}
    if origin is dict and len(arguments) == 2:
        return {"additionalProperties": _annotation_schema(arguments[1], seen)}
    if origin is list and arguments:
        return {"type": "array", "items": _annotation_schema(arguments[0], seen)}
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation in seen:
            return {}
        inside = seen | {annotation}
        return {
            GO_STRUCT: True,
            "properties": {
                (info.alias or name): _annotation_schema(info.annotation, inside)
                for name, info in annotation.model_fields.items()
            },
        }
    return {}


def _scale(version: Mapping[str, Any]) -> Mapping[str, str] | None:
    scale = (version.get("subresources") or {}).get("scale")
    return dict(scale) if scale is not None else None


def _builtin_module(group: str, version: str) -> str:
    prefix = group.split(".")[0] if group else "core"
    return f"opgen.api.k8s.{prefix}_{version}"


class Kinds:
    """The served kinds, looked up by the REST path's group, version and plural."""

    def __init__(self) -> None:
        self._kinds: dict[tuple[str, str, str], Kind] = {}
        self._builtin_modules: set[str] = set()
        self._served: dict[tuple[str, str], tuple[Kind, ...]] = {}
        """`served`'s answers, read again on every write a webhook may see."""
        self.revision = 0
        """Grows with every kind added: what is worked out from the kinds is
        worked out again after it changes."""

    def add(self, kind: Kind) -> Kind:
        self._kinds[(kind.group, kind.version, kind.plural)] = kind
        self._served.clear()
        self.revision += 1
        return kind

    def add_crds(
        self, sources: Iterable[CrdSource], models: Iterable[type] = ()
    ) -> list[Kind]:
        """Serve every served version of the CRDs in `sources` (files, directories,
        dicts); a version whose class is in `models` is validated by it."""
        by_version: dict[tuple[str, str, str], type[BaseModel]] = {}
        for model in models:
            rtype: ResourceType[Any] = resource_type(model)
            if issubclass(model, BaseModel):
                by_version[(rtype.group, rtype.version, rtype.kind)] = model
        added = []
        for document in load_crds(sources):
            spec = document.body["spec"]
            names = spec["names"]
            storage = next(
                (v["name"] for v in spec["versions"] if v.get("storage")), ""
            )
            for version in spec["versions"]:
                if not version.get("served", True):
                    continue
                group, name = spec["group"], version["name"]
                added.append(
                    self.add(
                        Kind(
                            group=group,
                            version=name,
                            kind=names["kind"],
                            plural=names["plural"],
                            namespaced=spec.get("scope", "Namespaced") == "Namespaced",
                            status_subresource="status"
                            in (version.get("subresources") or {}),
                            builtin=False,
                            model=by_version.get((group, name, names["kind"])),
                            schema=(version.get("schema") or {}).get("openAPIV3Schema"),
                            scale=_scale(version),
                            storage_version=storage,
                            conversion=spec.get("conversion"),
                            selectable_fields=tuple(
                                entry["jsonPath"].lstrip(".")
                                for entry in version.get("selectableFields") or ()
                            ),
                        )
                    )
                )
        return added

    def add_builtin(self, cls: type) -> Kind:
        """Serve a built-in kind of `op.k8s` (`op.k8s.ConfigMap`)."""
        facts = builtin_resource(cls)
        if facts is None or not issubclass(cls, BaseModel):
            raise TypeError(f"{cls!r} is not a built-in kind of op.k8s")
        return self.add(
            Kind(
                group=facts.group,
                version=facts.version,
                kind=facts.kind,
                plural=facts.plural,
                namespaced=facts.namespaced,
                status_subresource="status" in facts.subresources,
                builtin=True,
                model=cls,
            )
        )

    def lookup(self, group: str, version: str, plural: str) -> Kind | None:
        """The kind a path names; a built-in of `op.k8s` is found without being added."""
        found = self._kinds.get((group, version, plural))
        if found is None:
            self._add_builtins(group, version)
            found = self._kinds.get((group, version, plural))
        return found

    def find(self, group: str, version: str, kind: str) -> Kind | None:
        """The served kind named by group, version and kind (an owner
        reference's apiVersion and kind), built-ins of `op.k8s` included."""
        self._add_builtins(group, version)
        return next(
            (
                k
                for k in self._kinds.values()
                if (k.group, k.version, k.kind) == (group, version, kind)
            ),
            None,
        )

    def served(self, group: str, plural: str) -> tuple[Kind, ...]:
        """Every served version of a CRD's resource."""
        found = self._served.get((group, plural))
        if found is None:
            found = self._served[(group, plural)] = tuple(
                kind
                for (g, _, p), kind in self._kinds.items()
                if (g, p) == (group, plural) and not kind.builtin
            )
        return found

    def _add_builtins(self, group: str, version: str) -> None:
        name = _builtin_module(group, version)
        if name in self._builtin_modules:
            return
        self._builtin_modules.add(name)
        try:
            module = importlib.import_module(name)
        except ImportError:
            return
        for _, value, facts in module_kinds(module):
            if (facts.group, facts.version) != (group, version):
                continue
            if (facts.group, facts.version, facts.plural) not in self._kinds:
                self.add_builtin(value)
