"""`opgen generate` commands: regenerate what is derived from the API types.

`opgen generate crd --types FILE.py --out DIR` writes one CRD per kind found in
standalone types files. Everything heavy (Pydantic, the loader, the schema
engine) is imported inside the commands so `opgen --help` stays fast.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Annotated

import typer

from opgen.cli._app import fail, reports_errors, warn

__all__ = ["generate_app", "register"]

generate_app = typer.Typer(
    name="generate",
    help="Generate CRDs (and, in a project, the other manifests and clients) from your API types.",
    no_args_is_help=False,
    rich_markup_mode=None,
)


@generate_app.callback(invoke_without_command=True)
def _generate(ctx: typer.Context) -> None:
    """Generate CRDs and other files from your API types."""
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())


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


def register(app: typer.Typer) -> None:
    """Add `opgen generate` and its subcommands to the root app."""
    app.add_typer(generate_app, name="generate")
