"""What `opgen generate` produces for a project, and what it removes.

`project_outputs(root, project, everything=)` runs the generators on the
project's sources and returns file values only; the CLI plans and applies them.

- manifests: a CRD per kind of the types files under `<pkg>/api/`, written
  with PROJECT's CRD settings, and `config/rbac/role.yaml` from the `op.rbac`
  markers of the reconcilers;
- with `everything`: the typed clients, the scaffold-marker regions and PROJECT
  itself, after PROJECT has taken each kind's plural and scope from its types
  file (`follow_kinds`).

A CRD file an earlier run wrote (it carries opgen's annotation) that no kind
produces any more is removed, and with `everything` so is a client module left
in a folder that no longer holds kinds.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from opgen.errors import Diagnostic
from opgen.load import LoadedKinds, load_kinds
from opgen.project.config import Project
from opgen.project.follow import follow_kinds
from opgen.project.layout import CRD_BASES
from opgen.project.sources import (
    api_sources,
    client_modules,
    generated_crds,
    importable,
    reconciler_classes,
)
from opgen.render.client import render_clients
from opgen.render.crd import render_crds
from opgen.render.rbac import project_role, rules_of
from opgen.render.scaffold import injected_files, project_file
from opgen.schema.options import CrdOptions
from opgen.write.files import File, Removal

__all__ = ["Outputs", "project_outputs"]


@dataclass(frozen=True)
class Outputs:
    """The files a run of the generators wants, what it removes, and warnings."""

    files: tuple[File, ...]
    removals: tuple[Removal, ...]
    diagnostics: tuple[Diagnostic, ...]


def project_outputs(root: Path, project: Project, *, everything: bool) -> Outputs:
    """The output of `opgen generate` (`everything`) or `opgen generate manifests`."""
    with importable(root, project):
        sources = api_sources(root, project)
        # A project without types files (just initialised, or with controllers
        # for built-in types only) has no CRDs.
        loaded = load_kinds(sources) if sources else LoadedKinds(kinds=())
        rules = rules_of(reconciler_classes(root, project))
    options = CrdOptions(
        max_description_length=project.crd.max_description_length,
        embedded_object_meta=project.crd.embedded_object_meta,
    )
    crds, diagnostics = render_crds(loaded.kinds, CRD_BASES, options)
    files = [*crds, project_role(rules, project)]
    stale = [path for path in generated_crds(root) if path not in _paths(files)]
    if everything:
        project = follow_kinds(project, loaded.kinds)
        clients = render_clients(loaded.kinds, project)
        stale += [
            path
            for path in client_modules(root, project)
            if path not in _paths(clients)
        ]
        files += [*clients, *injected_files(project), project_file(project)]
    return Outputs(
        files=tuple(files),
        removals=tuple(Removal(path) for path in stale),
        diagnostics=(*loaded.diagnostics, *diagnostics),
    )


def _paths(files: list[File]) -> set[PurePosixPath]:
    return {file.path for file in files}
