"""Published CRDs for the import's corpus test: 16 projects, at pinned versions.

Each entry names a Go module at a version and files inside it, as the Go
module proxy serves the module (`go mod download`, cached in GOMODCACHE, so a
rerun reads the files from disk); one file may hold several CRDs (Istio's),
of which `names` picks some. Nothing is copied into the repository.

The versions are the newest each project has that the Go toolchain of the
development machines (1.26.8) downloads: a module whose go.mod asks for a
newer Go is refused by `go mod download`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from opgen.openapi.crd import yaml_documents
from opgen.testing.binaries.gomodules import module_dir
from tests.gotools import published_file

__all__ = ["CORPUS", "Published", "Sample", "published_crds", "published_samples"]


@dataclass(frozen=True)
class Published:
    project: str
    module: str
    version: str
    files: tuple[str, ...]
    names: tuple[str, ...] = ()
    """CRD names to take from the files (all when empty)."""
    differences: tuple[str, ...] = ()
    """Paths the round trip still differs at (docs/import.md says why)."""
    samples: tuple[str, ...] = ()
    """Folders of the module holding the project's sample objects."""

    @property
    def package(self) -> str:
        """The Python package of the test project importing this entry."""
        words = "".join(c if c.isalnum() else " " for c in self.project.lower())
        return "_".join(["corpus", *words.split()])


CORPUS: tuple[Published, ...] = (
    Published(
        "Argo CD",
        "github.com/argoproj/argo-cd/v3",
        "v3.5.7",
        ("manifests/crds/application-crd.yaml", "manifests/crds/appproject-crd.yaml"),
    ),
    Published(
        "Argo Rollouts",
        "github.com/argoproj/argo-rollouts",
        "v1.9.0",
        (
            "manifests/crds/rollout-crd.yaml",
            "manifests/crds/analysis-template-crd.yaml",
        ),
        samples=("examples",),
    ),
    Published(
        "Argo Workflows",
        "github.com/argoproj/argo-workflows/v4",
        "v4.0.5",
        (
            "manifests/base/crds/full/argoproj.io_workflows.yaml",
            "manifests/base/crds/full/argoproj.io_workfloweventbindings.yaml",
        ),
        samples=("examples",),
    ),
    Published(
        "cert-manager",
        "github.com/cert-manager/cert-manager",
        "v1.21.2",
        (
            "deploy/crds/cert-manager.io_certificates.yaml",
            "deploy/crds/cert-manager.io_issuers.yaml",
        ),
    ),
    Published(
        "CloudNativePG",
        "github.com/cloudnative-pg/cloudnative-pg",
        "v1.27.0",
        (
            "config/crd/bases/postgresql.cnpg.io_clusters.yaml",
            "config/crd/bases/postgresql.cnpg.io_poolers.yaml",
        ),
        samples=("docs/src/samples",),
    ),
    Published(
        "Crossplane",
        "github.com/crossplane/crossplane/v2",
        "v2.0.0",
        (
            "cluster/crds/apiextensions.crossplane.io_compositions.yaml",
            "cluster/crds/pkg.crossplane.io_functions.yaml",
        ),
    ),
    Published(
        "External Secrets",
        "github.com/external-secrets/external-secrets",
        "v1.3.2",
        (
            "config/crds/bases/external-secrets.io_externalsecrets.yaml",
            "config/crds/bases/external-secrets.io_pushsecrets.yaml",
        ),
    ),
    Published(
        "Flux",
        "github.com/fluxcd/source-controller",
        "v1.9.6",
        (
            "config/crd/bases/source.toolkit.fluxcd.io_gitrepositories.yaml",
            "config/crd/bases/source.toolkit.fluxcd.io_ocirepositories.yaml",
        ),
        samples=("config/samples",),
    ),
    Published(
        "Flux (kustomize-controller)",
        "github.com/fluxcd/kustomize-controller",
        "v1.9.6",
        ("config/crd/bases/kustomize.toolkit.fluxcd.io_kustomizations.yaml",),
        samples=("config/samples",),
    ),
    Published(
        "Gateway API",
        "sigs.k8s.io/gateway-api",
        "v1.6.3",
        (
            "config/crd/standard/gateway.networking.k8s.io_gateways.yaml",
            "config/crd/standard/gateway.networking.k8s.io_httproutes.yaml",
        ),
        samples=("examples",),
    ),
    Published(
        "Istio",
        "istio.io/api",
        "v1.32.0",
        ("kubernetes/customresourcedefinitions.gen.yaml",),
        (
            "destinationrules.networking.istio.io",
            "virtualservices.networking.istio.io",
            "gateways.networking.istio.io",
        ),
    ),
    Published(
        "Karpenter",
        "sigs.k8s.io/karpenter",
        "v1.13.0",
        (
            "pkg/apis/crds/karpenter.sh_nodepools.yaml",
            "pkg/apis/crds/karpenter.sh_nodeclaims.yaml",
        ),
    ),
    Published(
        "Knative Serving",
        "knative.dev/serving",
        "v0.51.0",
        (
            "config/core/300-resources/service.yaml",
            "config/core/300-resources/route.yaml",
        ),
        differences=tuple(
            f"spec.template.spec.{name}[*] description"
            for name in (
                "hostAliases",
                "initContainers",
                "tolerations",
                "topologySpreadConstraints",
            )
        ),
    ),
    Published(
        "Kyverno",
        "github.com/kyverno/kyverno",
        "v1.19.1",
        (
            "config/crds/kyverno/kyverno.io_clusterpolicies.yaml",
            "config/crds/kyverno/kyverno.io_policyexceptions.yaml",
        ),
    ),
    Published(
        "prometheus-operator",
        "github.com/prometheus-operator/prometheus-operator",
        "v0.85.0",
        (
            "example/prometheus-operator-crd-full/monitoring.coreos.com_prometheuses.yaml",
            "example/prometheus-operator-crd-full/monitoring.coreos.com_alertmanagers.yaml",
            "example/prometheus-operator-crd-full/monitoring.coreos.com_alertmanagerconfigs.yaml",
            "example/prometheus-operator-crd-full/monitoring.coreos.com_prometheusrules.yaml",
        ),
        samples=("example",),
    ),
    Published(
        "Tekton",
        "github.com/tektoncd/pipeline",
        "v1.0.0",
        ("config/300-crds/300-pipeline.yaml", "config/300-crds/300-task.yaml"),
        samples=("examples",),
    ),
    Published(
        "Velero",
        "github.com/vmware-tanzu/velero",
        "v1.18.3",
        (
            "config/crd/v1/bases/velero.io_backups.yaml",
            "config/crd/v1/bases/velero.io_schedules.yaml",
        ),
    ),
)


def published_crds(entry: Published) -> list[dict[str, Any]]:
    """The entry's CRDs, read as the API server reads YAML."""
    found: list[dict[str, Any]] = []
    for path in entry.files:
        text = published_file(entry.module, entry.version, path)
        for document in yaml_documents(text):
            if not isinstance(document, dict):
                continue
            if document.get("kind") != "CustomResourceDefinition":
                continue
            if entry.names and document["metadata"]["name"] not in entry.names:
                continue
            found.append(document)
    return found


@dataclass(frozen=True)
class Sample:
    """One sample object of a project, of a kind and served version of its CRDs."""

    path: str
    """Where in the module (`examples/dag-diamond.yaml`, with `#2` for a
    file's second document)."""
    body: dict[str, Any]


def published_samples(entry: Published, crds: list[dict[str, Any]]) -> list[Sample]:
    """The objects in the entry's sample folders whose kind and version one of
    `crds` serves. Files that are not YAML the API server reads (templates
    with placeholders) hold no sample."""
    served = {
        (f"{crd['spec']['group']}/{version['name']}", crd["spec"]["names"]["kind"])
        for crd in crds
        for version in crd["spec"]["versions"]
        if version.get("served")
    }
    root = module_dir(entry.module, entry.version)
    found = []
    for folder in entry.samples:
        for path in sorted((root / folder).rglob("*.y*ml")):
            try:
                documents = yaml_documents(path.read_text(encoding="utf-8"))
            except (yaml.YAMLError, UnicodeDecodeError):
                continue
            for number, document in enumerate(documents, start=1):
                if not isinstance(document, dict):
                    continue
                if (document.get("apiVersion"), document.get("kind")) not in served:
                    continue
                where = path.relative_to(root).as_posix()
                suffix = f"#{number}" if len(documents) > 1 else ""
                found.append(Sample(where + suffix, document))
    return found


def dump(crds: list[dict[str, Any]]) -> str:
    return yaml.safe_dump_all(crds, sort_keys=False)
