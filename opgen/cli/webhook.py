"""`opgen webhook` commands: serve a project's webhooks from this machine (`make run`).

`install-local` writes a CA and a serving certificate for `--host` into the
folder the manager looks in by default, installs the project's webhook
configurations calling `https://<host>:<port>` with that CA, and points the
conversion of its CRDs there; `uninstall-local` deletes those configurations.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from opgen.cli._app import reports_errors

if TYPE_CHECKING:
    from opgen.testing.controlplane.adminapi import AdminApi

__all__ = ["register", "webhook_app"]

webhook_app = typer.Typer(
    name="webhook",
    no_args_is_help=True,
    help="Serve a project's webhooks from this machine: `make run` against a cluster.",
    rich_markup_mode=None,
)

Kubeconfig = Annotated[
    Path | None,
    typer.Option(
        "--kubeconfig",
        help="Kubeconfig of the cluster (default: $KUBECONFIG, else ~/.kube/config).",
    ),
]
Context = Annotated[
    str | None, typer.Option("--context", help="Kubeconfig context to use.")
]


def _admin(kubeconfig: Path | None, context: str | None) -> AdminApi:
    from opgen.testing.controlplane.adminapi import AdminApi

    return AdminApi(kubeconfig, field_manager="opgen", context=context)


def _project(command: str) -> tuple[Path, str, Path]:
    """The project's root, the prefix of its local configurations, its webhook manifests."""
    from opgen.project import load_project, require_project_root
    from opgen.project.layout import WEBHOOK_MANIFESTS

    root = Path.cwd()
    require_project_root(root, command=command)
    prefix = f"{load_project(root).project_name}-local-"
    return root, prefix, root.joinpath(*WEBHOOK_MANIFESTS.parts)


@webhook_app.command("install-local")
@reports_errors
def install_local(
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="An address of this machine the cluster's API server reaches "
            "(kind: the docker network's gateway, e.g. 172.18.0.1).",
            show_default=False,
        ),
    ],
    port: Annotated[
        int, typer.Option("--port", help="The manager's --webhook-port.")
    ] = 9443,
    cert_dir: Annotated[
        Path | None,
        typer.Option(
            "--cert-dir",
            help="Where the certificates go (default: /tmp/k8s-webhook-server/serving-certs, "
            "where the manager looks when --webhook-cert-path is not given).",
        ),
    ] = None,
    kubeconfig: Kubeconfig = None,
    context: Context = None,
) -> None:
    """Point the cluster's webhook configurations and CRD conversions at this machine."""
    from opgen.errors import EnvtestError
    from opgen.project.layout import CRD_BASES
    from opgen.runtime.webhook.certificates import default_cert_dir
    from opgen.testing.controlplane import webhooks
    from opgen.testing.controlplane.crds import load_crds

    root, prefix, manifests = _project("opgen webhook install-local")
    if not manifests.is_file():
        raise EnvtestError(
            f"{manifests.relative_to(root)} does not exist",
            hint="add webhooks with `opgen create webhook`, then run `opgen generate`",
        )
    bases = root.joinpath(*CRD_BASES.parts)
    folder = cert_dir or default_cert_dir()
    options = webhooks.WebhookInstallOptions(
        local_host=host,
        local_port=port,
        cert_dir=folder,
        name_prefix=prefix,
        probe=False,
    )
    with _admin(kubeconfig, context) as admin:
        installed = webhooks.install_local(
            admin,
            webhook_paths=[manifests],
            crd_paths=load_crds([bases]) if bases.is_dir() else [],
            options=options,
        )
    for kind, name in installed.webhooks.configurations:
        typer.echo(f"installed {kind} {name}")
    for name in installed.conversion_crds:
        typer.echo(f"converting CustomResourceDefinition {name}")
    flag = "" if cert_dir is None else f" ARGS=--webhook-cert-path={folder}"
    typer.echo(
        f"\nThe API server now calls {installed.webhooks.url('')} (certificates in "
        f"{folder}). Run the manager with `make run{flag}` (`make install` keeps "
        "the conversions here); afterwards `make uninstall-local-webhooks` "
        "restores the cluster."
    )


@webhook_app.command("uninstall-local")
@reports_errors
def uninstall_local(
    kubeconfig: Kubeconfig = None,
    context: Context = None,
) -> None:
    """Delete the webhook configurations `install-local` installed."""
    from opgen.testing.controlplane import webhooks

    _, prefix, manifests = _project("opgen webhook uninstall-local")
    with _admin(kubeconfig, context) as admin:
        removed = webhooks.uninstall_local(
            admin,
            webhook_paths=[manifests] if manifests.is_file() else [],
            name_prefix=prefix,
        )
    for kind, name in removed:
        typer.echo(f"deleted {kind} {name}")
    typer.echo(
        "\nRun `opgen install-crds --service` (`make uninstall-local-webhooks` does) "
        "to point the CRDs' conversion back at the in-cluster Service."
    )


def register(app: typer.Typer) -> None:
    """Add `opgen webhook` and its subcommands to the root app."""
    app.add_typer(webhook_app, name="webhook")
