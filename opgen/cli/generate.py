"""`opgen generate` commands: regenerate what is derived from the API types.

Inside a project, `opgen generate` runs every generator and `opgen generate
manifests` writes the CRDs and RBAC; `--check` and `--dry-run` write nothing.
`opgen generate crd --types FILE.py --out DIR` writes one CRD per kind found in
standalone types files. Everything heavy (Pydantic, the loader, the schema
engine) is imported inside the commands so `opgen --help` stays fast.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Annotated

import typer

from opgen.cli._app import fail, report_applied, reports_errors, warn
from opgen.errors import ScaffoldError

if TYPE_CHECKING:
    from opgen.write import Plan

__all__ = ["generate_app", "register"]

generate_app = typer.Typer(
    name="generate",
    help="Regenerate what opgen owns in a project, or CRDs from a types file.",
    rich_markup_mode=None,
)


@generate_app.command("crd")
@reports_errors
def crd(
    types: Annotated[
        list[Path],
        typer.Option(
            "--types",
            metavar="FILE.py",
            help="A Python file defining op.CustomResource kinds; repeat for several files.",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            metavar="DIR",
            help="Directory to write <group>_<plural>.yaml files into (created if missing).",
            show_default=False,
        ),
    ],
    max_description_length: Annotated[
        int | None,
        typer.Option(
            "--max-description-length",
            metavar="N",
            min=0,
            help="Cut descriptions to N bytes (0 drops them), like controller-gen's crd:maxDescLen.",
            show_default=False,
        ),
    ] = None,
    embedded_object_meta: Annotated[
        bool,
        typer.Option(
            "--embedded-object-meta",
            help="Describe nested ObjectMeta (pod templates' metadata) so its labels and "
            "annotations are kept, like crd:generateEmbeddedObjectMeta=true.",
        ),
    ] = False,
) -> None:
    """Write one CustomResourceDefinition per kind found in the types files.

    Nothing is written unless every CRD passes the API server's validation
    rules; files whose content is unchanged are left alone.
    """
    from opgen.load import display_path
    from opgen.pipeline import types_file_crds
    from opgen.schema.options import CrdOptions
    from opgen.write import apply

    options = CrdOptions(
        max_description_length=max_description_length,
        embedded_object_meta=embedded_object_meta,
    )
    files, diagnostics = types_file_crds(types, PurePosixPath("."), options)
    warn(diagnostics)
    changed = {file.path for file in apply(files, out)}
    for file in files:
        target = display_path(file.target(out))
        typer.echo(f"wrote {target}" if file.path in changed else f"unchanged {target}")


# --- project generators: `opgen generate` and `opgen generate manifests` ----
# Run inside a project made by `opgen init`.

CHECK_HELP = "Write nothing; exit 1 listing every file that would change, with a diff."
DRY_RUN_HELP = "Write nothing; print what would be written."
FORCE_HELP = "Overwrite generated files that were edited by hand (otherwise refused)."
EDITED = " (edited by hand since opgen wrote it)"


def _run(plan: Plan, *, check: bool, dry_run: bool, force: bool) -> None:
    if check:
        drift = plan.drift()
        if drift:
            for change in drift:
                note = EDITED if change.edited else ""
                typer.echo(f"{change.action.value} {change.path}{note}", err=True)
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
    edited = plan.hand_edited
    if edited and not force:
        for change in edited:
            typer.echo(f"{change.path}: edited by hand since opgen wrote it", err=True)
            typer.echo(change.diff(), err=True, nl=False)
        names = ", ".join(str(change.path) for change in edited)
        raise ScaffoldError(
            f"{names}: edited by hand; opgen generate would lose the edit, so "
            "nothing was written",
            hint="opgen writes these files from your types and markers: make the "
            "change there, then keep the file as opgen writes it with `opgen "
            "generate --force` (or `git checkout` it first)",
        )
    plan.apply()
    report_applied(plan, nothing="up to date")
    for change in edited:
        typer.echo(f"warning: {change.path}: its hand edit is gone (--force)", err=True)


def _generate(
    command: str, *, everything: bool, check: bool, dry_run: bool, force: bool
) -> None:
    from opgen.pipeline import project_outputs
    from opgen.project import load_project, require_project_root
    from opgen.write import plan

    root = Path.cwd()
    require_project_root(root, command=command)
    project = load_project(root)
    outputs = project_outputs(root, project, everything=everything)
    warn(outputs.diagnostics)
    the_plan = plan(
        outputs.files, root, removals=outputs.removals, generated=project.generated
    )
    _run(the_plan, check=check, dry_run=dry_run, force=force)


@generate_app.callback(invoke_without_command=True)
@reports_errors
def generate_all(
    ctx: typer.Context,
    check: bool = typer.Option(False, "--check", help=CHECK_HELP),
    dry_run: bool = typer.Option(False, "--dry-run", help=DRY_RUN_HELP),
    force: bool = typer.Option(False, "--force", help=FORCE_HELP),
) -> None:
    """Run every generator of the project in the current folder (manifests, typed clients, wiring)."""
    if ctx.invoked_subcommand is None:
        _generate(
            "opgen generate",
            everything=True,
            check=check,
            dry_run=dry_run,
            force=force,
        )
    elif check or dry_run or force:
        # Otherwise `opgen generate --check manifests` would quietly write files.
        flag = "--check" if check else "--dry-run" if dry_run else "--force"
        raise typer.BadParameter(
            f"it belongs after the subcommand: opgen generate "
            f"{ctx.invoked_subcommand} {flag}",
            param_hint=flag,
        )


@generate_app.command("manifests")
@reports_errors
def generate_manifests(
    check: bool = typer.Option(False, "--check", help=CHECK_HELP),
    dry_run: bool = typer.Option(False, "--dry-run", help=DRY_RUN_HELP),
    force: bool = typer.Option(False, "--force", help=FORCE_HELP),
) -> None:
    """Write the CRDs (config/crd/bases/) and config/rbac/role.yaml."""
    _generate(
        "opgen generate manifests",
        everything=False,
        check=check,
        dry_run=dry_run,
        force=force,
    )


def register(app: typer.Typer) -> None:
    """Add `opgen generate` and its subcommands to the root app."""
    app.add_typer(generate_app, name="generate")
