"""`opgen envtest` commands: find or build the control-plane binaries tests use."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from opgen.cli._app import reports_errors
from opgen.testing.binaries.versions import KUBERNETES_VERSION

envtest_app = typer.Typer(
    name="envtest",
    no_args_is_help=True,
    help="Manage the kube-apiserver, etcd and kube-controller-manager binaries tests run against.",
)


def _parse_version(value: str) -> str:
    from opgen.errors import EnvtestError
    from opgen.testing.binaries import KubernetesVersion

    try:
        return str(KubernetesVersion.parse(value))
    except EnvtestError as error:
        raise typer.BadParameter(
            f"{error.message} (e.g. {KUBERNETES_VERSION})"
        ) from None


@envtest_app.command("use")
@reports_errors
def use(
    version: Annotated[
        str,
        typer.Argument(
            metavar="K8S_VERSION",
            help="Kubernetes release, e.g. 1.36.3.",
            callback=_parse_version,
        ),
    ] = KUBERNETES_VERSION,
    print_path: Annotated[
        bool,
        typer.Option(
            "--print-path",
            help="Print only the directory "
            "(for KUBEBUILDER_ASSETS=$(opgen envtest use --print-path)).",
        ),
    ] = False,
    bin_dir: Annotated[
        Path | None,
        typer.Option(
            "--bin-dir",
            help="Cache root holding one directory per version "
            "(default: $OPGEN_ENVTEST_CACHE, else ~/.cache/opgen/envtest).",
        ),
    ] = None,
) -> None:
    """Find the binaries for K8S_VERSION, building them once into the cache if needed.

    Looks at KUBEBUILDER_ASSETS / TEST_ASSET_* first, then the cache; builds
    kube-apiserver and kube-controller-manager with Go and fetches etcd only
    when both miss. Prints the directory KUBEBUILDER_ASSETS should point at.
    """
    from opgen.testing.binaries import KubernetesVersion, cache_root
    from opgen.testing.binaries.obtain import obtain_binaries

    def progress(message: str) -> None:
        typer.echo(f"envtest: {message}", err=True)

    environ = dict(os.environ)
    binaries = obtain_binaries(
        KubernetesVersion.parse(version),
        environ,
        cache_root(environ, bin_dir),
        progress,
    )
    if print_path:
        typer.echo(str(binaries.directory))
        return
    typer.echo(f"Version: {KubernetesVersion.parse(version)}")
    typer.echo(f"Source:  {binaries.source}")
    typer.echo(f"Path:    {binaries.directory}")
    for name, path in binaries.as_dict().items():
        typer.echo(f"  {name:<24} {path if path is not None else '(not available)'}")


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.add_typer(envtest_app)
