"""`opgen generate` commands."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from opgen.cli._app import fail, reports_errors

if TYPE_CHECKING:
    from opgen.project import Project
    from opgen.write import File, Plan

generate_app = typer.Typer(
    name="generate",
    help="Regenerate what opgen owns in a project (or from a types file).",
    rich_markup_mode=None,
)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.add_typer(generate_app)


# --- project generators: `opgen generate` and `opgen generate manifests` ----
# (scaffold helper) Run inside a project made by `opgen init`.

CHECK_HELP = "Write nothing; exit 1 listing every file that would change, with a diff."
DRY_RUN_HELP = "Write nothing; print what would be written."


def _manifest_files(root: Path, project: Project) -> list[File]:
    """CRDs from the types under <pkg>/api/, role.yaml from the reconcilers' op.rbac."""
    from pathlib import PurePosixPath

    from opgen.load import load_kinds
    from opgen.project.sources import api_sources, importable, reconciler_classes
    from opgen.render.crd import render_crds
    from opgen.render.rbac import render_role, rules_of

    with importable(root, project):
        kinds = load_kinds(api_sources(root, project))
        rules = rules_of(reconciler_classes(root, project))
    files = list(render_crds(kinds, PurePosixPath("config/crd/bases")))
    files.append(
        render_role(rules, namespaced_default="system" if project.namespaced else None)
    )
    return files


def _all_files(root: Path, project: Project) -> list[File]:
    """Every generator's output, plus the scaffold-marker regions PROJECT implies."""
    from opgen.render.scaffold import injected_files, project_file

    return [
        *_manifest_files(root, project),
        *injected_files(project),
        project_file(project),
    ]


def _run(plan: Plan, *, check: bool, dry_run: bool) -> None:
    if check:
        drift = plan.drift()
        if drift:
            for change in drift:
                typer.echo(f"{change.action.value} {change.path}", err=True)
                typer.echo(change.diff(), err=True, nl=False)
            raise fail(
                f"{len(drift)} file(s) out of date; run `opgen generate` and commit the result"
            )
        typer.echo("up to date")
        return
    if dry_run:
        for line in plan.describe():
            typer.echo(line)
        return
    plan.apply()
    for line in plan.describe():
        if not line.startswith("unchanged"):
            typer.echo(line)
    if not plan.writes:
        typer.echo("up to date")


def _generate(select: str, *, check: bool, dry_run: bool) -> None:
    from opgen.project import load_project
    from opgen.write import plan

    root = Path.cwd()
    project = load_project(root)
    files = (
        _all_files(root, project) if select == "all" else _manifest_files(root, project)
    )
    _run(plan(files, root), check=check, dry_run=dry_run)


@generate_app.callback(invoke_without_command=True)
@reports_errors
def generate_all(
    ctx: typer.Context,
    check: bool = typer.Option(False, "--check", help=CHECK_HELP),
    dry_run: bool = typer.Option(False, "--dry-run", help=DRY_RUN_HELP),
) -> None:
    """Run every generator of the project in the current folder (manifests, wiring)."""
    if ctx.invoked_subcommand is None:
        _generate("all", check=check, dry_run=dry_run)


@generate_app.command("manifests")
@reports_errors
def generate_manifests(
    check: bool = typer.Option(False, "--check", help=CHECK_HELP),
    dry_run: bool = typer.Option(False, "--dry-run", help=DRY_RUN_HELP),
) -> None:
    """Write the CRDs (config/crd/bases/) and config/rbac/role.yaml."""
    _generate("manifests", check=check, dry_run=dry_run)


# --- end of project generators ---------------------------------------------
