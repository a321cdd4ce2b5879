"""`opgen edit`: change a project's settings in PROJECT (like `kubebuilder edit`).

The settings are how `opgen generate` writes the project's CRDs:
controller-gen's `crd:maxDescLen` and `crd:generateEmbeddedObjectMeta`. Only
PROJECT changes; the next `opgen generate` rewrites the CRDs with them.
"""

from __future__ import annotations

from pathlib import Path

import typer

from opgen.cli._app import fail, report_applied, reports_errors

__all__ = ["register"]


@reports_errors
def edit_command(
    max_description_length: int | None = typer.Option(
        None,
        "--max-description-length",
        metavar="N",
        min=0,
        help="Cut CRD descriptions to N bytes (0 drops them), like controller-gen's crd:maxDescLen.",
    ),
    full_descriptions: bool = typer.Option(
        False,
        "--full-descriptions",
        help="Keep every description whole again (undo --max-description-length).",
    ),
    embedded_object_meta: bool | None = typer.Option(
        None,
        "--embedded-object-meta/--no-embedded-object-meta",
        help="Describe nested ObjectMeta (pod templates' metadata) so labels and "
        "annotations are kept, like crd:generateEmbeddedObjectMeta=true.",
        show_default=False,
    ),
) -> None:
    """Change how `opgen generate` writes this project's CRDs (recorded in PROJECT)."""
    from opgen.project import load_project, require_project_root
    from opgen.render.scaffold import project_file
    from opgen.write import plan

    if full_descriptions and max_description_length is not None:
        raise fail("give --max-description-length or --full-descriptions, not both")
    root = Path.cwd()
    require_project_root(root, command="opgen edit")
    project = load_project(root)
    settings = project.crd
    if max_description_length is not None:
        settings = settings.model_copy(
            update={"max_description_length": max_description_length}
        )
    if full_descriptions:
        settings = settings.model_copy(update={"max_description_length": None})
    if embedded_object_meta is not None:
        settings = settings.model_copy(
            update={"embedded_object_meta": embedded_object_meta}
        )
    the_plan = plan([project_file(project.model_copy(update={"crd": settings}))], root)
    the_plan.apply()
    report_applied(the_plan, nothing="PROJECT already has these settings")
    if the_plan.writes:
        typer.echo("run `opgen generate` to rewrite the CRDs with them")


def register(app: typer.Typer) -> None:
    """Add `opgen edit` to the root app."""
    app.command("edit")(edit_command)
