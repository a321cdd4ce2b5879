"""`opgen envtest` commands: the control-plane binaries tests use, and a local control plane.

`opgen envtest use` finds (or downloads, else builds, once) the binaries; `opgen envtest run`
runs etcd, kube-apiserver and kube-controller-manager in the foreground, with
the project's CRDs, for `make run` and kubectl, until Ctrl-C.
"""

from __future__ import annotations

import os
import shutil
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from opgen.cli._app import reports_errors
from opgen.testing.binaries.versions import KUBERNETES_VERSION

if TYPE_CHECKING:
    from opgen.testing.binaries import Binaries
    from opgen.testing.controlplane.devcluster import ClusterInfo

envtest_app = typer.Typer(
    name="envtest",
    no_args_is_help=True,
    help="The kube-apiserver, etcd and kube-controller-manager binaries tests run "
    "against, and a local control plane to develop against.",
)

BIN_DIR_HELP = (
    "Cache root holding one directory per version "
    "(default: $OPGEN_ENVTEST_CACHE, else ~/.cache/opgen/envtest)."
)


def _progress(message: str) -> None:
    typer.echo(f"envtest: {message}", err=True)


SOURCE_HELP = (
    "Where missing binaries come from: download (the prebuilt envtest archive), "
    "build (with Go), or auto: download, else build when no archive can be had."
)
INDEX_URL_HELP = (
    "The envtest-releases.yaml index to download from, for mirrors and air-gapped "
    "sites (default: $OPGEN_ENVTEST_INDEX_URL, else controller-tools' own)."
)


class Source(str, Enum):
    auto = "auto"
    download = "download"
    build = "build"


def _obtain(
    version: str,
    bin_dir: Path | None,
    environ: dict[str, str],
    *,
    source: Source = Source.auto,
    index_url: str | None = None,
    controller_manager: bool = False,
) -> Binaries:
    """The binaries of `version`: found, else downloaded or built into the cache."""
    from opgen.testing.binaries import KubernetesVersion, cache_root
    from opgen.testing.binaries.obtain import obtain_binaries

    return obtain_binaries(
        KubernetesVersion.parse(version),
        environ,
        cache_root(environ, bin_dir),
        _progress,
        source=source.value,
        index=index_url,
        controller_manager=controller_manager,
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
        Path | None, typer.Option("--bin-dir", help=BIN_DIR_HELP)
    ] = None,
    source: Annotated[Source, typer.Option("--source", help=SOURCE_HELP)] = Source.auto,
    index_url: Annotated[
        str | None,
        typer.Option(
            "--index-url", metavar="URL", help=INDEX_URL_HELP, show_default=False
        ),
    ] = None,
    controller_manager: Annotated[
        bool,
        typer.Option(
            "--controller-manager",
            help="Also make sure the set has kube-controller-manager (garbage "
            "collection, namespace deletion), building it with Go when the set lacks "
            "it: the envtest archives do not carry it.",
        ),
    ] = False,
) -> None:
    """Find the binaries for K8S_VERSION, downloading (else building) them once into the cache.

    Looks at KUBEBUILDER_ASSETS / TEST_ASSET_* first, then the cache; when
    both miss, downloads the prebuilt envtest archive (kube-apiserver, etcd,
    kubectl) for this platform from controller-tools' index, checking its
    SHA-512, or builds kube-apiserver and kube-controller-manager with Go and
    fetches etcd when no archive can be had. Prints the directory
    KUBEBUILDER_ASSETS should point at.
    """
    from opgen.testing.binaries import KubernetesVersion

    binaries = _obtain(
        version,
        bin_dir,
        dict(os.environ),
        source=source,
        index_url=index_url,
        controller_manager=controller_manager,
    )
    if print_path:
        typer.echo(str(binaries.directory))
        return
    typer.echo(f"Version: {KubernetesVersion.parse(version)}")
    typer.echo(f"Source:  {binaries.source}")
    typer.echo(f"Path:    {binaries.directory}")
    for name, path in binaries.as_dict().items():
        typer.echo(f"  {name:<24} {path if path is not None else '(not available)'}")


DEFAULT_CRDS = Path("config", "crd", "bases")


@envtest_app.command("run")
@reports_errors
def run(
    crds: Annotated[
        list[Path] | None,
        typer.Option(
            "--crds",
            metavar="PATH",
            help="CRD file or directory to install; repeat for several "
            "(default: config/crd/bases, when it holds CRDs).",
            show_default=False,
        ),
    ] = None,
    kubeconfig: Annotated[
        Path | None,
        typer.Option(
            "--kubeconfig",
            metavar="PATH",
            help="Write a kubeconfig of its own to PATH (removed at the end) instead "
            "of adding the context opgen-envtest to the one kubectl uses.",
            show_default=False,
        ),
    ] = None,
    bin_dir: Annotated[
        Path | None, typer.Option("--bin-dir", help=BIN_DIR_HELP)
    ] = None,
) -> None:
    """Run a local control plane to develop against, until Ctrl-C or SIGTERM.

    Starts etcd, kube-apiserver and kube-controller-manager on loopback,
    installs the CRDs, and adds the context opgen-envtest to your kubeconfig
    ($KUBECONFIG, else ~/.kube/config) as the current context, so `make run`
    and kubectl use it. Ctrl-C stops every process, removes the context and
    switches back to the one that was current.
    """
    from opgen.project import PROJECT_FILE, load_project
    from opgen.testing.controlplane.devcluster import (
        kubectl_kubeconfig_path,
        run_local_cluster,
    )

    root = Path.cwd()
    namespace = None
    webhooks = False
    if (root / PROJECT_FILE).is_file():
        project = load_project(root)  # checks PROJECT, as every command does
        if project.namespaced:
            namespace = f"{project.project_name}-system"
        webhooks = project.has_webhooks
    paths = list(crds) if crds else _default_crds(root)
    environ = dict(os.environ)
    binaries = _obtain(KUBERNETES_VERSION, bin_dir, environ, controller_manager=True)
    run_local_cluster(
        binaries,
        paths,
        kubeconfig if kubeconfig is not None else kubectl_kubeconfig_path(environ),
        merge=kubeconfig is None,
        ready=lambda info: _report_ready(info, namespace, binaries.kubectl, webhooks),
        notice=_progress,
        environ=environ,
    )
    _progress("stopped; nothing is left running")


def _default_crds(root: Path) -> list[Path]:
    bases = root / DEFAULT_CRDS
    return [bases] if bases.is_dir() and any(bases.glob("*.y*ml")) else []


def _report_ready(
    info: ClusterInfo, namespace: str | None, kubectl: Path | None, webhooks: bool
) -> None:
    """What is running, where its kubeconfig is, and what to do next."""
    published = info.kubeconfig
    typer.echo(
        f"A local control plane (Kubernetes {KUBERNETES_VERSION}) is running at "
        f"{info.server}"
    )
    typer.echo(
        "  processes: "
        + ", ".join(f"{name} {pid}" for name, pid in sorted(info.process_ids.items()))
    )
    typer.echo(
        "  CRDs: "
        + (", ".join(info.crds) if info.crds else "none (run opgen generate)")
    )
    if published.merged:
        was = (
            f'; was "{published.previous_context}"'
            if published.previous_context
            else ""
        )
        typer.echo(
            f'  kubeconfig: {published.path}, context "opgen-envtest" '
            f"(now the current context{was})"
        )
        env = ""
    else:
        typer.echo(f"  kubeconfig: {published.path}")
        env = f"KUBECONFIG={published.path} "
    watch = f"WATCH_NAMESPACE={namespace} " if namespace else ""
    on = f" -n {namespace}" if namespace else ""
    # The envtest archive's kubectl, when the set has one and PATH has none.
    kubectl_command = (
        str(kubectl)
        if kubectl is not None and shutil.which("kubectl") is None
        else "kubectl"
    )
    if kubectl is not None:
        typer.echo(f"  kubectl (Kubernetes {KUBERNETES_VERSION}): {kubectl}")
    typer.echo("")
    typer.echo("In another terminal:")
    if namespace:
        typer.echo(f"  {env}{kubectl_command} create namespace {namespace}")
    if webhooks:
        typer.echo(
            f"  {env}make install-local-webhooks WEBHOOK_HOST=127.0.0.1"
            "   # the API server calls make run's webhooks"
        )
    typer.echo(
        f"  {env}{watch}make run        # the manager, against this control plane"
    )
    typer.echo(f"  {env}{kubectl_command} apply -k config/samples/{on}")
    typer.echo(f"  {env}{kubectl_command} get all,events{on}")
    typer.echo(
        "There are no nodes: Pods are stored but never scheduled or started. "
        "Run `make install` after `make manifests` to update the CRDs."
    )
    back = (
        f' and switches back to "{published.previous_context}"'
        if published.previous_context
        else ""
    )
    what = "removes the context" if published.merged else "removes the kubeconfig"
    typer.echo(f"Ctrl-C (or SIGTERM) stops it, {what}{back}.", nl=True)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.add_typer(envtest_app)
