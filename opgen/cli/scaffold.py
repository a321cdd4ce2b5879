"""`opgen init`, `opgen create api`, `opgen create webhook` and `opgen delete api`.

Each command validates its inputs, builds the new PROJECT record, renders the
files, plans them against the tree and applies the plan all-or-nothing. The
heavy modules (jinja2, black, the renderers) are imported inside the commands
so that `opgen --help` stays fast.
"""

from __future__ import annotations

import enum
from pathlib import Path, PurePosixPath
from typing import Annotated

import typer

from opgen.cli._app import report_applied, reports_errors


class LicenseChoice(str, enum.Enum):
    apache2 = "apache2"
    none = "none"


@reports_errors
def init_command(
    domain: str = typer.Option(
        ..., "--domain", help="Domain of the API groups, e.g. example.com."
    ),
    project_name: str | None = typer.Option(
        None,
        "--project-name",
        help="Project name (DNS label); defaults to the folder name.",
    ),
    owner: str | None = typer.Option(
        None, "--owner", help="Copyright owner for license headers."
    ),
    license: Annotated[
        LicenseChoice, typer.Option("--license", help="License of the new project.")
    ] = LicenseChoice.apache2,
    multigroup: bool = typer.Option(
        False,
        "--multigroup",
        help="Lay out APIs as api/<group>/<version>/ (several groups).",
    ),
    namespaced: bool = typer.Option(
        False,
        "--namespaced",
        help="Watch and get access to the manager's own namespace only (Roles, WATCH_NAMESPACE).",
    ),
) -> None:
    """Scaffold a new operator project in the current (empty) folder."""
    from opgen.project import ensure_empty_for_init
    from opgen.project.inputs import new_project
    from opgen.render.scaffold import init_files
    from opgen.write import plan

    root = Path.cwd()
    project = new_project(
        domain=domain,
        project_name=project_name,
        directory_name=root.name,
        owner=owner,
        license=license.value,
        multigroup=multigroup,
        namespaced=namespaced,
    )
    ensure_empty_for_init(root)
    the_plan = plan(init_files(project), root)
    the_plan.apply()
    report_applied(
        the_plan, nothing="nothing to write: every file is already up to date"
    )
    typer.echo(
        f"\nCreated the {project.project_name} project. Next:\n"
        "  make setup OPGEN_PACKAGE=/path/to/opgen   # the project's .venv, with its own opgen\n"
        "  source .venv/bin/activate\n"
        "  opgen create api --group <group> --version v1 --kind <Kind>"
    )


@reports_errors
def create_api(
    group: str = typer.Option(
        ..., "--group", help="API group, without the domain (e.g. batch)."
    ),
    version: str = typer.Option(
        ..., "--version", help="API version: v1, v1alpha1, v2beta3..."
    ),
    kind: str = typer.Option(
        ..., "--kind", help="Kind, in UpperCamelCase (e.g. CronJob)."
    ),
    plural: str | None = typer.Option(
        None,
        "--plural",
        help="Resource name in URLs; defaults to the English plural of the kind.",
    ),
    namespaced: bool = typer.Option(
        True, "--namespaced/--cluster", help="Scope of the new kind."
    ),
    resource: bool = typer.Option(
        True,
        "--resource/--no-resource",
        help="Scaffold the types; --no-resource with a core group (apps, core...) "
        "makes a controller for a built-in type.",
    ),
    controller: bool = typer.Option(
        True, "--controller/--no-controller", help="Scaffold a reconciler."
    ),
    force: bool = typer.Option(
        False, "--force", help="Overwrite files of this kind that already exist."
    ),
) -> None:
    """Add an API (types, CRD wiring, sample, roles) and its controller."""
    from opgen.project import Layout, load_project
    from opgen.project.inputs import new_resource
    from opgen.render.scaffold import api_files, injected_files, project_file
    from opgen.write import plan

    root = Path.cwd()
    project = load_project(root)
    entry = new_resource(
        project,
        group=group,
        version=version,
        kind=kind,
        plural=plural,
        namespaced=namespaced,
        resource=resource,
        controller=controller,
        force=force,
    )
    updated = project.with_resource(entry)
    files_plan = plan(
        api_files(updated, entry) + injected_files(updated), root, force=force
    )
    updated = updated.with_hashes(files_plan.user_file_hashes())
    the_plan = files_plan.merge(plan([project_file(updated)], root))
    the_plan.apply()
    report_applied(
        the_plan, nothing="nothing to write: every file is already up to date"
    )
    if entry.api:
        typer.echo(
            f"\nEdit {Layout(updated).types_file(entry)}, then run `opgen generate` "
            "to write the CRD and RBAC."
        )


@reports_errors
def create_webhook(
    group: str = typer.Option(
        ..., "--group", help="API group, as given to create api."
    ),
    version: str = typer.Option(
        ...,
        "--version",
        help="API version the webhooks admit (the hub, for --conversion).",
    ),
    kind: str = typer.Option(..., "--kind", help="Kind, as given to create api."),
    defaulting: bool = typer.Option(
        False, "--defaulting", help="Scaffold a defaulting (mutating) webhook."
    ),
    validation: bool = typer.Option(
        False,
        "--validation",
        "--programmatic-validation",
        help="Scaffold a validating webhook.",
    ),
    conversion: bool = typer.Option(
        False,
        "--conversion",
        help="Scaffold conversions between this version (the hub) and the --spoke versions.",
    ),
    spoke: Annotated[
        list[str] | None,
        typer.Option(
            "--spoke",
            help="Versions converted to and from the hub: comma-separated or repeated.",
            show_default=False,
        ),
    ] = None,
    force: bool = typer.Option(
        False,
        "--force",
        help="Scaffold the webhook module and its test again, overwriting your changes.",
    ),
) -> None:
    """Add defaulting, validation or conversion webhooks to an API."""
    from opgen.project import Layout, load_project
    from opgen.project.inputs import new_webhooks
    from opgen.render.scaffold import injected_files, project_file, webhook_files
    from opgen.write import plan

    root = Path.cwd()
    project = load_project(root)
    spokes = [v.strip() for item in spoke or () for v in item.split(",") if v.strip()]
    entry = new_webhooks(
        project,
        group=group,
        version=version,
        kind=kind,
        defaulting=defaulting,
        validation=validation,
        conversion=conversion,
        spokes=spokes,
        force=force,
    )
    updated = project.with_resource(entry)
    layout = Layout(updated)
    own = set(layout.resource_files(entry))
    scaffolded = webhook_files(updated, entry, force=force)
    mine = [f for f in scaffolded if f.path in own]
    shared = [f for f in scaffolded if f.path not in own]
    wired = [f for f in injected_files(updated) if f.path not in own]
    files_plan = plan(mine, root, force=force).merge(plan(shared + wired, root))
    hashes = {
        path: digest
        for path, digest in {
            **files_plan.user_file_hashes(),
            **files_plan.injected_file_hashes(project.scaffolded),
        }.items()
        if PurePosixPath(path) in own
    }
    updated = updated.with_hashes(hashes)
    the_plan = files_plan.merge(plan([project_file(updated)], root))
    the_plan.apply()
    report_applied(
        the_plan, nothing="nothing to write: every file is already up to date"
    )
    typer.echo(
        f"\nEdit {layout.webhook_file(entry)}, then run `opgen generate` to write "
        "config/webhook/manifests.yaml"
        + (
            " and the CRD's conversion."
            if entry.webhooks and entry.webhooks.conversion
            else "."
        )
    )


@reports_errors
def delete_api(
    group: str = typer.Option(
        ..., "--group", help="API group, as given to create api."
    ),
    version: str = typer.Option(
        ..., "--version", help="API version, as given to create api."
    ),
    kind: str = typer.Option(..., "--kind", help="Kind, as given to create api."),
    force: bool = typer.Option(
        False, "--force", help="Delete the kind's files even if you edited them."
    ),
) -> None:
    """Remove an API and its controller: the files `create api` made, and their wiring."""
    from opgen.project import load_project
    from opgen.project.removal import plan_deletion
    from opgen.render.scaffold import injected_files, project_file
    from opgen.write import plan

    root = Path.cwd()
    deletion = plan_deletion(
        root, load_project(root), group, version, kind, force=force
    )
    remaining = deletion.remaining
    the_plan = plan(
        [*injected_files(remaining), project_file(remaining)],
        root,
        removals=deletion.removals,
    )
    the_plan.apply()
    report_applied(
        the_plan, nothing="nothing to delete: every file is already up to date"
    )
    typer.echo("\nRun `opgen generate` to refresh config/rbac/role.yaml.")


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.command("init")(init_command)
    from opgen.cli.chart import create_chart

    create = typer.Typer(
        name="create",
        help="Scaffold a new API, its webhooks, or the project's Helm chart.",
        no_args_is_help=True,
        rich_markup_mode=None,
    )
    create.command("api")(create_api)
    create.command("chart")(create_chart)
    create.command("webhook")(create_webhook)
    app.add_typer(create)
    delete = typer.Typer(
        name="delete",
        help="Remove an API that create api scaffolded.",
        no_args_is_help=True,
        rich_markup_mode=None,
    )
    delete.command("api")(delete_api)
    app.add_typer(delete)
