"""`opgen install-crds`: a project's CRDs into the cluster in the kubeconfig (`make install`);
`opgen check-cluster`: whether that cluster answers (`make run`'s first step).

The work is `opgen.testing.controlplane.crdinstall`'s: create or replace
each CRD whole, keeping a conversion `opgen webhook install-local` pointed
at this machine unless `--service`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from opgen.cli._app import reports_errors

__all__ = ["register"]

KubeconfigOption = Annotated[
    Path | None,
    typer.Option(
        "--kubeconfig",
        help="Kubeconfig of the cluster (default: $KUBECONFIG, else ~/.kube/config).",
    ),
]
ContextOption = Annotated[
    str | None, typer.Option("--context", help="Kubeconfig context to use.")
]


@reports_errors
def install_crds(
    sources: Annotated[
        list[str] | None,
        typer.Argument(
            help="CRD files or directories; - reads YAML documents from stdin "
            "(`kubectl kustomize config/crd | opgen install-crds -`). "
            "Default: config/crd/bases.",
            show_default=False,
        ),
    ] = None,
    service: Annotated[
        bool,
        typer.Option(
            "--service",
            help="Point webhook conversions at the CRD's Service again, even where "
            "`opgen webhook install-local` pointed them at this machine.",
        ),
    ] = False,
    kubeconfig: KubeconfigOption = None,
    context: ContextOption = None,
) -> None:
    """Create or replace the CRDs in the cluster (what `make install` runs)."""
    import yaml

    from opgen.testing.controlplane.crdinstall import (
        connect,
        install_project_crds,
    )
    from opgen.testing.controlplane.crds import CrdSource, load_crds

    chosen: list[CrdSource] = []
    for source in sources or ["config/crd/bases"]:
        if source == "-":
            chosen += [
                document
                for document in yaml.safe_load_all(sys.stdin.read())
                if _is_crd(document)
            ]
        else:
            chosen.append(source)
    documents = load_crds(chosen)
    if not documents:
        typer.echo("no CRDs to install")
        return
    installed = install_project_crds(
        connect(kubeconfig, context),
        documents,
        local_conversion=not service,
    )
    for crd in installed:
        where = f" (converting through {crd.conversion})" if crd.conversion else ""
        typer.echo(f"{crd.action} CustomResourceDefinition {crd.name}{where}")


@reports_errors
def check_cluster(
    kubeconfig: KubeconfigOption = None,
    context: ContextOption = None,
) -> None:
    """Check that the cluster in the kubeconfig answers (`make run`'s first step)."""
    from opgen.testing.controlplane.crdinstall import check_reachable, connect

    cluster = connect(kubeconfig, context)
    check_reachable(cluster)
    typer.echo(f"the cluster at {cluster.server} answers")


def _is_crd(document: Any) -> bool:
    return (
        isinstance(document, dict)
        and document.get("kind") == "CustomResourceDefinition"
    )


def register(app: typer.Typer) -> None:
    """Add `opgen install-crds` and `opgen check-cluster` to the root app."""
    app.command("install-crds")(install_crds)
    app.command("check-cluster")(check_cluster)
