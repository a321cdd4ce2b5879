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

from opgen.cli._app import fail, reports_errors, warn

if TYPE_CHECKING:
    from collections.abc import Sequence

    from opgen.errors import Diagnostic
    from opgen.model.kinds import Kind
    from opgen.project import Project
    from opgen.write import File, Plan, Removal

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
) -> None:
    """Write one CustomResourceDefinition per kind found in the types files.

    Nothing is written unless every CRD passes the API server's validation
    rules; files whose content is unchanged are left alone.
    """
    from opgen.load import display_path, load_kinds
    from opgen.render.crd import render_crds
    from opgen.write import apply

    loaded = load_kinds(types)
    files, diagnostics = render_crds(loaded.kinds, PurePosixPath("."))
    warn([*loaded.diagnostics, *diagnostics])
    if out.exists() and not out.is_dir():
        raise fail(f"{display_path(out)}: exists and is not a directory")
    try:
        changed = {file.path for file in apply(files, out)}
    except OSError as error:
        raise fail(
            f"cannot write to {display_path(out)}: {error.strerror or error}"
        ) from None
    for file in files:
        target = display_path(file.target(out))
        typer.echo(f"wrote {target}" if file.path in changed else f"unchanged {target}")


# --- project generators: `opgen generate` and `opgen generate manifests` ----
# Run inside a project made by `opgen init`.

CHECK_HELP = "Write nothing; exit 1 listing every file that would change, with a diff."
DRY_RUN_HELP = "Write nothing; print what would be written."


def _manifest_files(
    root: Path, project: Project
) -> tuple[list[File], list[Diagnostic], tuple[Kind, ...]]:
    """CRDs from the types under <pkg>/api/, role.yaml from the reconcilers' op.rbac.

    A project without types files (just initialised, or with controllers for
    built-in types only) has no CRDs. The kinds come back too.
    """
    from opgen.load import LoadedKinds, load_kinds
    from opgen.project.sources import api_sources, importable, reconciler_classes
    from opgen.render.crd import render_crds
    from opgen.render.rbac import render_role, rules_of

    with importable(root, project):
        sources = api_sources(root, project)
        loaded = load_kinds(sources) if sources else LoadedKinds(kinds=())
        rules = rules_of(reconciler_classes(root, project))
    files, diagnostics = render_crds(loaded.kinds, PurePosixPath("config/crd/bases"))
    files.append(
        render_role(rules, namespaced_default="system" if project.namespaced else None)
    )
    return files, [*loaded.diagnostics, *diagnostics], loaded.kinds


def _client_files(
    root: Path, project: Project, kinds: Sequence[Kind]
) -> tuple[list[File], list[Removal]]:
    """The typed clients (`<pkg>/api/**/zz_generated_client.py`), and the removal of
    client modules left in folders that no longer hold kinds."""
    from opgen.project import Layout
    from opgen.render.client import CLIENT_MODULE, render_clients
    from opgen.write import Removal

    files = render_clients(kinds, project)
    wanted = {file.path for file in files}
    api_dir = root.joinpath(*Layout(project).api_root.parts)
    stale = [
        Removal(PurePosixPath(*path.relative_to(root).parts))
        for path in sorted(api_dir.rglob(f"{CLIENT_MODULE}.py"))
        if PurePosixPath(*path.relative_to(root).parts) not in wanted
    ]
    return files, stale


def _all_files(
    root: Path, project: Project
) -> tuple[list[File], list[Diagnostic], list[Removal]]:
    """Every generator's output, plus the scaffold-marker regions PROJECT implies,
    and the generated files no generator produces any more.

    PROJECT first takes each kind's plural and scope from its types file.
    """
    from opgen.project.follow import follow_kinds
    from opgen.render.scaffold import injected_files, project_file

    files, diagnostics, kinds = _manifest_files(root, project)
    project = follow_kinds(project, kinds)
    clients, stale = _client_files(root, project, kinds)
    return (
        [*files, *clients, *injected_files(project), project_file(project)],
        diagnostics,
        stale,
    )


def _stale_crds(root: Path, files: list[File]) -> list[Removal]:
    """CRD files an earlier run wrote that no kind produces now (renamed, removed)."""
    from opgen.project.sources import generated_crds
    from opgen.write import Removal

    produced = {file.path for file in files}
    return [Removal(path) for path in generated_crds(root) if path not in produced]


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


def _project_root(command: str) -> Path:
    """The current folder, which must be a project's root (it holds PROJECT)."""
    from opgen.errors import Location, ProjectError
    from opgen.project import PROJECT_FILE

    root = Path.cwd()
    if not (root / PROJECT_FILE).is_file():
        raise ProjectError(
            f"`{command}` must run in the root folder of a project made by "
            f"`opgen init` (there is no {PROJECT_FILE} file here)",
            location=Location(file=str(root / PROJECT_FILE)),
            hint="cd to the project's root folder; for CRDs from a standalone types "
            "file run `opgen generate crd --types FILE.py --out DIR`; to start a "
            "project run `opgen init --domain example.com`",
        )
    return root


def _generate(select: str, *, check: bool, dry_run: bool) -> None:
    from opgen.project import load_project
    from opgen.write import plan

    root = _project_root(
        "opgen generate" if select == "all" else "opgen generate manifests"
    )
    project = load_project(root)
    removals: list[Removal] = []
    if select == "all":
        files, diagnostics, removals = _all_files(root, project)
    else:
        files, diagnostics, _ = _manifest_files(root, project)
    warn(diagnostics)
    the_plan = plan(files, root, removals=[*_stale_crds(root, files), *removals])
    _run(the_plan, check=check, dry_run=dry_run)


@generate_app.callback(invoke_without_command=True)
@reports_errors
def generate_all(
    ctx: typer.Context,
    check: bool = typer.Option(False, "--check", help=CHECK_HELP),
    dry_run: bool = typer.Option(False, "--dry-run", help=DRY_RUN_HELP),
) -> None:
    """Run every generator of the project in the current folder (manifests, typed clients, wiring)."""
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


def register(app: typer.Typer) -> None:
    """Add `opgen generate` and its subcommands to the root app."""
    app.add_typer(generate_app, name="generate")
