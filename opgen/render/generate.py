"""What `opgen generate` produces for a project, and what it removes.

`project_outputs(root, project, everything=)` runs the generators on the
project's sources and returns file values only; the CLI plans and applies them.

- manifests: a CRD per kind of the types files under `<pkg>/api/`, written
  with PROJECT's CRD settings (with `spec.conversion` for kinds with
  `@op.conversion`s), `config/rbac/role.yaml` from the `op.rbac` markers of
  the reconcilers, and, in a project with webhooks,
  `config/webhook/manifests.yaml` from the `@op.webhook` declarations under
  `<pkg>/webhook/`;
- with `everything`: the typed clients, the scaffold-marker regions and PROJECT
  itself, after PROJECT has taken each kind's plural and scope from its types
  file (`follow_kinds`); and the models and clients of the CRDs `opgen import
  crd` recorded, from their copies in `config/imported/` (`render.imported`);
- once `opgen create chart` ran (PROJECT's `chart`), in both: the Helm chart in
  `dist/chart/`, from those CRDs and that role, keeping the values the user set
  in its `values.yaml` (`opgen.render.chart`).

What an earlier run wrote and this one no longer produces is removed; which
files those are is `opgen.project.removal.stale_outputs`'s decision. The user's
modules are imported by the load stage only (`opgen.load`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from opgen.errors import Diagnostic
from opgen.load import LoadedKinds, RunContext, importable, load_classes, load_kinds
from opgen.project.config import PROJECT_FILE, Project
from opgen.project.consistency import check_kinds
from opgen.project.follow import follow_kinds
from opgen.project.imported import stored_crds
from opgen.project.layout import CRD_BASES
from opgen.project.removal import stale_outputs
from opgen.project.sources import (
    api_sources,
    chart_values,
    controller_files,
    webhook_files,
)
from opgen.render.chart import chart_files
from opgen.render.client import render_clients
from opgen.render.crd import render_crds
from opgen.render.imported import imported_outputs
from opgen.render.rbac import project_role, rules_of
from opgen.render.scaffold import injected_files, project_file
from opgen.render.webhook import Webhooks, render_webhook_manifests, webhooks_of
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
    run = RunContext()
    with importable(root, project.package):
        sources = api_sources(root, project)
        # A project without types files (just initialised, or with controllers
        # for built-in types only) has no CRDs.
        loaded = load_kinds(sources, run) if sources else LoadedKinds(kinds=())
        controllers = load_classes(controller_files(root, project), run)
        handlers = load_classes(webhook_files(root, project), run)
        # As controller-gen reads +kubebuilder:rbac wherever it looks: a webhook
        # handler that reads other objects declares that permission too.
        rules = rules_of([*controllers, *handlers])
        webhooks = webhooks_of(handlers) if project.has_webhooks else Webhooks()
    check_kinds(project, loaded.kinds, path=str(root / PROJECT_FILE))
    options = CrdOptions(
        max_description_length=project.crd.max_description_length,
        embedded_object_meta=project.crd.embedded_object_meta,
    )
    crds, diagnostics = render_crds(
        loaded.kinds, CRD_BASES, options, conversions=webhooks.conversions, run=run
    )
    role = project_role(rules, project)
    files = [*crds, role]
    manifests = render_webhook_manifests(webhooks) if project.has_webhooks else None
    if manifests is not None:
        files.append(manifests)
    if everything:
        project = follow_kinds(project, loaded.kinds)
        imported = imported_outputs(project, stored_crds(root, project))
        diagnostics += imported.diagnostics
        files += [
            *render_clients(loaded.kinds, project),
            *imported.files,
            *injected_files(project),
            project_file(project),
        ]
    if project.chart:
        files += chart_files(project, crds, role, manifests, chart_values(root))
    removals = stale_outputs(
        root, project, {file.path for file in files}, clients=everything
    )
    return Outputs(
        files=tuple(files),
        removals=removals,
        diagnostics=(*loaded.diagnostics, *diagnostics),
    )
