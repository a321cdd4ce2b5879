"""`opgen import crd`: typed models and clients for CRDs that someone else wrote.

Reads the CRDs, records them in PROJECT with a copy in `config/imported/`,
and writes what `opgen generate` writes for every imported CRD: the models of
each group/version under `<pkg>/imported/` and their typed clients. All of it
is planned first and written all or nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path, PurePosixPath
from typing import Annotated

import typer

from opgen.cli._app import report_applied, reports_errors, warn

__all__ = ["import_app", "register"]

import_app = typer.Typer(
    name="import",
    help="Make typed models and clients for kinds the project does not own.",
    rich_markup_mode=None,
    no_args_is_help=True,
)


@import_app.command("crd")
@reports_errors
def crd(
    sources: Annotated[
        list[str],
        typer.Argument(
            metavar="SOURCE...",
            help="CRD files (YAML or JSON, one or many documents), directories of "
            "them, or - for standard input.",
            show_default=False,
        ),
    ],
    versions: Annotated[
        str | None,
        typer.Option(
            "--versions",
            metavar="V1,...",
            help="Import only these versions (default: every version of each CRD).",
            show_default=False,
        ),
    ] = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Replace a CRD imported before, and overwrite files opgen did not write.",
        ),
    ] = False,
) -> None:
    """Write typed models and clients for the kinds of CRDs, under <pkg>/imported/.

    The import is recorded in PROJECT (with a copy of each CRD in
    config/imported/), so `opgen generate` writes the same files again and
    `opgen generate --check` finds drift. No CRD is written to config/crd.
    """
    from opgen.project import PROJECT_FILE, load_project, require_project_root
    from opgen.project.imported import (
        guard_targets,
        parse_versions,
        plan_import,
        read_sources,
        stored_crds,
    )
    from opgen.project.layout import Layout
    from opgen.project.removal import imported_leftovers
    from opgen.render.imported import crd_copy, imported_outputs
    from opgen.render.scaffold import project_file
    from opgen.write import generated_hashes, plan
    from opgen.write.files import Removal

    root = Path.cwd()
    require_project_root(root, command="opgen import crd")
    project = load_project(root)
    chosen = parse_versions(versions)
    documents = read_sources(sources, stdin=sys.stdin)
    stored = stored_crds(root, project)
    the_import = plan_import(project, stored, documents, versions=chosen, force=force)
    outputs = imported_outputs(the_import.project, the_import.crds)
    layout = Layout(the_import.project)
    copies = [crd_copy(document, layout) for document in the_import.new]
    written = [*copies, *outputs.files]
    guard_targets(root, [file.path for file in written], force=force)
    removals = imported_leftovers(
        root,
        the_import.project,
        [*(file.path for file in written), PurePosixPath(PROJECT_FILE)],
    )
    # PROJECT records the files `opgen generate` rewrites (not the CRDs' copies,
    # its input), as written, as `opgen generate` does.
    gone = {str(path) for path in removals}
    hashes = {p: h for p, h in project.generated.items() if p not in gone}
    recorded = the_import.project.with_generated(
        hashes | generated_hashes(outputs.files)
    )
    files = [*written, project_file(recorded)]
    warn(outputs.diagnostics)
    the_plan = plan(files, root, removals=tuple(Removal(p) for p in removals))
    the_plan.apply()
    report_applied(the_plan, nothing="nothing to write: the imports are up to date")
    for report in outputs.reports:
        if report.crd in {document.name for document in the_import.new}:
            for line in report.summary():
                typer.echo(line)


def register(app: typer.Typer) -> None:
    """Add `opgen import` and its subcommands to the root app."""
    app.add_typer(import_app, name="import")
