"""The generator's stages, run in order: load → schema → render, for each command.

The one place that knows the order of the stages and hands each the IR the
one before built. `opgen.cli` calls it and applies the files it returns;
nothing below it calls back up.

- `types_file_crds(paths, out_dir, options)`: `opgen generate crd`, the CRD
  files of standalone types files; `crds(loaded, out_dir, options)` those of
  kinds already loaded, and `crd_of(loaded, kind, options)` one kind's CRD as
  data;
- `project_outputs(root, project, everything=)`: what `opgen generate`
  (`everything`) or `opgen generate manifests` produces in a project, and
  what it removes.

What `project_outputs` writes: a CRD per kind of the types files under
`<pkg>/api/`, with PROJECT's CRD settings (and `spec.conversion` for kinds
with `@op.conversion`s); `config/rbac/role.yaml` from the `op.rbac` rules of
the reconcilers and webhook handlers; in a project with webhooks,
`config/webhook/manifests.yaml` from the `@op.webhook` declarations under
`<pkg>/webhook/`; with `everything`, the typed clients, the scaffold-marker
regions and PROJECT itself, and the models and clients of the
CRDs `opgen import crd` recorded, from their copies in `config/imported/`;
once `opgen create chart` ran (PROJECT's `chart`), the Helm chart in
`dist/chart/`, keeping the values the user set in its `values.yaml`. What an
earlier run wrote and this one no longer produces is removed
(`opgen.project.removal.stale_outputs` decides which files those are).

Everything is rendered from the project as the IR defines its kinds (each
kind's plural and scope as its types file says, `as_defined`); PROJECT is
written from the project as read, with this run's file hashes: it records
inputs, never what the types define.

One `RunContext` per call holds what the stages cache; the user's modules
are imported by the load stage only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from opgen.errors import Diagnostic, Location
from opgen.load import LoadedKinds, RunContext, load_kinds
from opgen.model.kinds import Kind
from opgen.model.webhooks import Conversion
from opgen.render.crd import crd_document, render_crds
from opgen.schema import kind_schemas
from opgen.schema.options import DEFAULT_OPTIONS, CrdOptions
from opgen.write.files import File, Removal

if TYPE_CHECKING:
    from opgen.project.config import Project

__all__ = ["Outputs", "crd_of", "crds", "project_outputs", "types_file_crds"]


@dataclass(frozen=True)
class Outputs:
    """The files a run of the generators wants, what it removes, and warnings."""

    files: tuple[File, ...]
    removals: tuple[Removal, ...]
    diagnostics: tuple[Diagnostic, ...]


def crds(
    loaded: LoadedKinds,
    out_dir: PurePosixPath,
    options: CrdOptions = DEFAULT_OPTIONS,
    *,
    conversions: Sequence[Conversion] = (),
    run: RunContext | None = None,
) -> tuple[list[File], list[Diagnostic]]:
    """The checked CRD file of each loaded kind under `out_dir`, and warnings.

    `run` is the context the kinds were loaded in (its docstrings and schemas)."""
    schemas = kind_schemas(loaded.models, options, run)
    return render_crds(loaded.kinds, schemas, out_dir, conversions=conversions)


def types_file_crds(
    paths: Sequence[Path], out_dir: PurePosixPath, options: CrdOptions = DEFAULT_OPTIONS
) -> tuple[list[File], list[Diagnostic]]:
    """`opgen generate crd`: the CRD files of the kinds in standalone types files,
    and every warning met loading and rendering them."""
    run = RunContext()
    loaded = load_kinds(paths, run)
    files, diagnostics = crds(loaded, out_dir, options, run=run)
    return files, [*loaded.diagnostics, *diagnostics]


def crd_of(
    loaded: LoadedKinds,
    kind: Kind,
    options: CrdOptions = DEFAULT_OPTIONS,
    run: RunContext | None = None,
) -> tuple[dict[str, Any], dict[int, Location], list[Diagnostic]]:
    """The CRD of one loaded kind as plain data, its nodes' origins, and warnings."""
    models = {key: loaded.models[key] for key in map(kind.key, kind.versions)}
    return crd_document(kind, kind_schemas(models, options, run))


def project_outputs(root: Path, project: Project, *, everything: bool) -> Outputs:
    """The output of `opgen generate` (`everything`) or `opgen generate manifests`."""
    # Imported here: `opgen generate crd` needs none of them (jinja2, black).
    from opgen.load import importable, load_classes
    from opgen.load.handlers import rules_of, webhooks_of
    from opgen.model.webhooks import Webhooks
    from opgen.project.config import PROJECT_FILE
    from opgen.project.consistency import check_kinds
    from opgen.project.follow import as_defined
    from opgen.project.layout import CHART_VALUES, CRD_BASES
    from opgen.project.rbac import check_rbac_resources
    from opgen.project.removal import stale_outputs
    from opgen.project.sources import (
        api_sources,
        chart_values,
        controller_files,
        webhook_files,
    )
    from opgen.render.chart import chart_files
    from opgen.render.client import render_clients
    from opgen.render.rbac import project_role
    from opgen.render.scaffold import injected_files, project_file
    from opgen.render.webhook import render_webhook_manifests
    from opgen.write.hashes import generated_hashes

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
    defined = as_defined(project, loaded.kinds)
    check_rbac_resources(rules, loaded.kinds, project.imports)
    options = CrdOptions(
        max_description_length=project.crd.max_description_length,
        embedded_object_meta=project.crd.embedded_object_meta,
    )
    crd_files, diagnostics = crds(
        loaded, CRD_BASES, options, conversions=webhooks.conversions, run=run
    )
    role = project_role(rules, defined)
    files = [*crd_files, role]
    manifests = render_webhook_manifests(webhooks) if project.has_webhooks else None
    if manifests is not None:
        files.append(manifests)
    if everything:
        files += render_clients(loaded.kinds, defined)
        if defined.imports:
            # Imported here: reading and rendering imported CRDs is a stage of its own
            # (opgen.openapi, the model renderer) that most projects never load.
            from opgen.project.imported import stored_crds
            from opgen.render.imported import imported_outputs

            imported = imported_outputs(defined, stored_crds(root, defined))
            diagnostics += imported.diagnostics
            files += imported.files
        files += injected_files(defined)
    if project.chart:
        files += chart_files(defined, crd_files, role, manifests, chart_values(root))
    project_path = PurePosixPath(PROJECT_FILE)
    removals = stale_outputs(
        root,
        defined,
        {file.path for file in files} | {project_path},
        clients=everything,
    )
    # PROJECT records what this run writes, so the next one can tell a hand edit;
    # `generate manifests` keeps the record of the files it does not write. The
    # chart's values.yaml is left out: it is rewritten keeping the values you set.
    removed = {str(removal.path) for removal in removals}
    kept = {} if everything else project.generated
    recorded = {p: h for p, h in kept.items() if p not in removed}
    hashes = generated_hashes(file for file in files if file.path != CHART_VALUES)
    files.append(project_file(project.with_generated(recorded | hashes)))
    return Outputs(
        files=tuple(files),
        removals=removals,
        diagnostics=(*loaded.diagnostics, *diagnostics),
    )
