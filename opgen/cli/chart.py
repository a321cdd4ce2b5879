"""`opgen create chart`: a Helm chart of the project, kept in sync by `opgen generate`."""

from __future__ import annotations

from pathlib import Path

import typer

from opgen.cli._app import report_applied, reports_errors, warn


@reports_errors
def create_chart(
    force: bool = typer.Option(
        False,
        "--force",
        help="Write Chart.yaml, templates/NOTES.txt and .helmignore again, replacing yours.",
    ),
) -> None:
    """Write a Helm chart of the project into dist/chart/, from the same source as config/.

    From then on `opgen generate` rewrites the chart's templates with the CRDs
    and RBAC it writes; the values you set in values.yaml are kept.
    """
    from opgen.pipeline import project_outputs
    from opgen.project import load_project, require_project_root
    from opgen.project.layout import CHART_DIR, CHART_VALUES
    from opgen.render.scaffold import project_file
    from opgen.write import generated_hashes, plan

    root = Path.cwd()
    require_project_root(root, command="opgen create chart")
    project = load_project(root).model_copy(update={"chart": True})
    outputs = project_outputs(root, project, everything=False)
    warn(outputs.diagnostics)
    chart = [f for f in outputs.files if f.path.parts[:2] == CHART_DIR.parts]
    templates = [f for f in chart if f.path != CHART_VALUES]  # values are yours too
    recorded = project.with_generated(project.generated | generated_hashes(templates))
    the_plan = plan([*chart, project_file(recorded)], root, force=force)
    the_plan.apply()
    report_applied(
        the_plan, nothing="nothing to write: every file is already up to date"
    )
    typer.echo(
        f"\nCheck it with `helm lint {CHART_DIR}`; install it with `helm install "
        f"{project.project_name} {CHART_DIR} --namespace {project.project_name}-system "
        "--create-namespace`."
    )
