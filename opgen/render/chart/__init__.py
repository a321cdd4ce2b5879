"""The project's Helm chart, in `dist/chart/`, made from the same source as `config/`.

`opgen create chart` turns it on (PROJECT's `chart`); from then on every
`opgen generate` (and `generate manifests`) rewrites it with the CRDs and
`role.yaml` it writes, so the chart never lags behind `config/`. Who owns what
(docs/deploy.md, "Helm"):

- opgen: `templates/**` files that start with its mark (`_helpers.tpl` too),
  `values.schema.json`, and the keys, order and comments of `values.yaml`;
- the user: the values set in `values.yaml` (kept on every regeneration),
  `Chart.yaml`, `templates/NOTES.txt`, `.helmignore` (scaffolded once), and
  any template of their own.
"""

from __future__ import annotations

from collections.abc import Sequence

from opgen.project.config import Project
from opgen.project.layout import CHART_DIR, CHART_VALUES, CRD_BASES, Layout
from opgen.render.chart.manifests import ChartSource, chart_defaults, chart_templates
from opgen.render.chart.values import values_schema, values_spec, values_yaml
from opgen.render.scaffold import config_files
from opgen.render.templating import render
from opgen.render.views import project_view
from opgen.write.files import File, Ownership

__all__ = ["chart_files"]

_USER_FILES = {
    "Chart.yaml": "chart/Chart.yaml.j2",
    ".helmignore": "chart/helmignore.j2",
    "templates/NOTES.txt": "chart/NOTES.txt.j2",
}


def chart_files(
    project: Project,
    crds: Sequence[File],
    role: File,
    webhook_manifests: File | None,
    values: str | None,
) -> list[File]:
    """Every file of the chart; `values` is the current `values.yaml`, if any."""
    config = {str(path): text for path, text in config_files(project).items()}
    for generated in (role, webhook_manifests):
        if generated is not None:
            config[str(generated.path)] = generated.content
    layout = Layout(project)
    source = ChartSource(
        crds={
            file.path.name: file.content
            for file in crds
            if file.path.parent == CRD_BASES
        },
        config=config,
        helper_roles=tuple(
            dict.fromkeys(
                str(path)
                for resource in project.resources
                if resource.api
                for path in layout.role_files(resource)
            )
        ),
    )
    spec = values_spec(
        chart_defaults(source), helper_roles=True, webhooks=project.has_webhooks
    )
    view = project_view(project)
    files = [
        File(CHART_DIR / template.path, template.text)
        for template in chart_templates(
            project.project_name, source, webhooks=project.has_webhooks
        )
    ]
    files += [
        File(
            CHART_DIR / "templates/_helpers.tpl",
            render("chart/_helpers.tpl.j2", project=view),
        ),
        File(CHART_VALUES, values_yaml(spec, values, path=str(CHART_VALUES))),
        File(CHART_DIR / "values.schema.json", values_schema(spec)),
    ]
    files += [
        File(CHART_DIR / path, render(template, project=view), Ownership.USER)
        for path, template in _USER_FILES.items()
    ]
    return files
