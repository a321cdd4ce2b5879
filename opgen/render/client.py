"""Typed clients: one generated module per group/version, one client class per kind.

`render_clients(kinds, project)` writes `zz_generated_client.py` next to the types
files of each version (`<pkg>/api/<version>/`, or `<pkg>/api/<group>/<version>/`
with --multigroup). Each class subclasses `opgen.runtime.typed`'s generic bases
with the user's model: the namespaced or cluster-scoped base as the kind is, and
the status and scale mixins only when the kind has those subresources, so that
misuse (a wrong model, a missing or extra namespace, scaling a kind without
/scale) fails `mypy --strict`. All decisions are made here; the template only
substitutes.
"""

from __future__ import annotations

import textwrap
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from opgen.errors import Location, ProjectError
from opgen.model.kinds import Kind, KindVersion
from opgen.project.config import Project
from opgen.project.layout import CLIENT_MODULE
from opgen.render.templating import render
from opgen.render.views import project_view
from opgen.write.files import File, Ownership

__all__ = ["render_clients"]

TEMPLATE = "client/zz_generated_client.py.j2"

_BASE_METHODS = (
    "get",
    "list",
    "watch",
    "create",
    "update",
    "apply",
    "patch",
    "delete",
    "delete_collection",
)
_STATUS_METHODS = ("get_status", "update_status", "patch_status", "apply_status")
_SCALE_METHODS = ("get_scale", "update_scale")
_DOC_WIDTH = 84


@dataclass(frozen=True)
class ClientView:
    """One generated client class."""

    name: str
    model: str
    bases: tuple[str, ...]
    summary: str
    """First docstring line."""
    methods: tuple[str, ...]
    """Docstring lines: its subresources and methods, wrapped."""


@dataclass(frozen=True)
class ImportView:
    module: str
    names: str


@dataclass(frozen=True)
class ModuleView:
    """One `zz_generated_client.py`."""

    path: PurePosixPath
    title: str
    imports: tuple[ImportView, ...]
    clients: tuple[ClientView, ...]
    example: tuple[str, ...]
    """Usage lines for the module docstring."""


@dataclass(frozen=True)
class _Entry:
    kind: Kind
    version: KindVersion


def render_clients(kinds: Sequence[Kind], project: Project) -> list[File]:
    """One generated client module per folder of types files, sorted by path."""
    by_package: dict[str, list[_Entry]] = defaultdict(list)
    for kind in kinds:
        for version in kind.versions:
            by_package[_package_of(version, project)].append(_Entry(kind, version))
    license_header = project_view(project).license_header
    files = []
    for package in sorted(by_package):
        view = _module_view(package, by_package[package])
        content = render(TEMPLATE, m=view, license_header=license_header)
        files.append(File(view.path, content, Ownership.GENERATED))
    return files


def _package_of(version: KindVersion, project: Project) -> str:
    """The package (folder) holding the class of this version."""
    package, _, _ = version.source.module.rpartition(".")
    if not package.startswith(f"{project.package}.api"):
        raise ProjectError(
            f"{version.source.cls} is defined in {version.source.module}, "
            f"outside the {project.package}.api package",
            location=Location(file=version.source.file, cls=version.source.cls),
            hint=f"keep types files under {project.package}/api/, in folders with an "
            "__init__.py (as `opgen create api` lays them out)",
        )
    return package


def _module_view(package: str, entries: list[_Entry]) -> ModuleView:
    entries = sorted(
        entries, key=lambda e: (e.version.source.module, e.kind.names.kind)
    )
    group_versions = sorted({f"{e.kind.group}/{e.version.version}" for e in entries})
    by_module: dict[str, list[str]] = defaultdict(list)
    for entry in entries:
        by_module[entry.version.source.module].append(entry.version.source.cls)
    imports = tuple(
        ImportView(module, ", ".join(sorted(names)))
        for module, names in sorted(by_module.items())
    )
    clients = tuple(_client_view(e.kind, e.version) for e in entries)
    return ModuleView(
        path=PurePosixPath(*package.split("."), f"{CLIENT_MODULE}.py"),
        title=", ".join(group_versions),
        imports=imports,
        clients=clients,
        example=_example(package, entries[0]),
    )


def _client_view(kind: Kind, version: KindVersion) -> ClientView:
    model = version.source.cls
    scope = "Namespaced" if kind.namespaced else "Cluster"
    bases = [f"typed.{scope}Client[{model}]"]
    methods = list(_BASE_METHODS)
    extras = []
    if version.status_subresource:
        bases.append(f"typed.{scope}Status[{model}]")
        methods += _STATUS_METHODS
        extras.append("status")
    if version.scale is not None:
        bases.append(f"typed.{scope}Scale[{model}]")
        methods += _SCALE_METHODS
        extras.append(f"scale (replicas at {version.scale.spec_replicas_path})")
    scope_text = "namespaced" if kind.namespaced else "cluster-scoped"
    details = []
    if extras:
        details.append(f"Subresources: {'; '.join(extras)}.")
    details.append(f"Methods: {', '.join(methods)}.")
    return ClientView(
        name=f"{kind.names.kind}Client",
        model=model,
        bases=tuple(bases),
        summary=(
            f"Typed client for {kind.names.kind} ({kind.group}/{version.version}), "
            f"a {scope_text} kind."
        ),
        methods=tuple(
            line
            for paragraph in details
            for line in textwrap.wrap(paragraph, width=_DOC_WIDTH)
        ),
    )


def _example(package: str, entry: _Entry) -> tuple[str, ...]:
    client = f"{entry.kind.names.kind}Client"
    variable = entry.kind.names.plural.replace("-", "_")
    namespace = ', namespace="default"' if entry.kind.namespaced else ""
    return (
        f"from {package}.{CLIENT_MODULE} import {client}",
        "",
        f"{variable} = {client}(manager.client)  # or rt.Client.from_kubeconfig()",
        f'obj = await {variable}.get("example"{namespace})',
    )
