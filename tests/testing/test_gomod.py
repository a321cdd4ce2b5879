"""The build module's go.mod is derived from the release's go.mod, not hard-coded."""

from __future__ import annotations

from pathlib import Path

from opgen.testing.binaries.gomod import (
    BUILD_MODULE_PATH,
    build_gomod,
    go_directives,
    required_version,
    staging_modules,
)
from opgen.testing.binaries.kubebuild import version_ldflags
from opgen.testing.binaries.versions import KubernetesVersion

FIXTURE = (Path(__file__).parent / "data" / "kubernetes.go.mod").read_text()
V1_36_3 = KubernetesVersion.parse("1.36.3")


def test_staging_modules_are_exactly_the_v0_0_0_requirements() -> None:
    assert staging_modules(FIXTURE) == (
        "k8s.io/api",
        "k8s.io/apiextensions-apiserver",
        "k8s.io/apimachinery",
        "k8s.io/client-go",
        "k8s.io/component-base",
        "k8s.io/streaming",
        "k8s.io/cri-client",
        "k8s.io/kubelet",
    )


def test_pseudo_versions_and_real_versions_are_left_alone() -> None:
    modules = staging_modules(FIXTURE)
    assert "k8s.io/utils" not in modules  # v0.0.0-2026... is a real pseudo-version
    assert "k8s.io/kube-openapi" not in modules
    assert "k8s.io/klog/v2" not in modules
    assert (
        "k8s.io/not-a-requirement" not in modules
    )  # a replace line, not a requirement


def test_go_and_godebug_lines_are_copied() -> None:
    directives = go_directives(FIXTURE)
    assert directives.go_version == "1.26.0"
    assert directives.godebug_lines == ("godebug default=go1.26",)


def test_a_godebug_block_is_copied_verbatim() -> None:
    gomod = "module x\n\ngo 1.24\n\ngodebug (\n\tdefault=go1.21\n\tpanicnil=1\n)\n"
    assert go_directives(gomod).godebug_lines == (
        "godebug (",
        "\tdefault=go1.21",
        "\tpanicnil=1",
        ")",
    )


def test_build_gomod_replaces_each_staging_module_with_the_published_tag() -> None:
    text = build_gomod(FIXTURE, V1_36_3)
    lines = text.splitlines()
    assert lines[0] == f"module {BUILD_MODULE_PATH}"
    assert "go 1.26.0" in lines
    assert "godebug default=go1.26" in lines
    assert "require k8s.io/kubernetes v1.36.3" in lines
    replaces = [line.strip() for line in lines if "=>" in line]
    assert replaces == [f"{m} => {m} v0.36.3" for m in staging_modules(FIXTURE)]
    assert "k8s.io/utils" not in text


def test_build_gomod_for_another_release_uses_that_releases_staging_tag() -> None:
    assert "k8s.io/api => k8s.io/api v0.35.1" in build_gomod(
        FIXTURE, KubernetesVersion.parse("v1.35.1")
    )


def test_required_version_reads_indirect_requirements() -> None:
    assert required_version(FIXTURE, "go.etcd.io/etcd/server/v3") == "v3.6.8"
    assert required_version(FIXTURE, "example.com/absent") is None


def test_version_ldflags_stamp_both_version_packages() -> None:
    flags = version_ldflags(V1_36_3, "2026-01-02T03:04:05Z")
    assert flags.startswith("-s -w ")
    for package in ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version"):
        assert f"-X {package}.gitVersion=v1.36.3" in flags
        assert f"-X {package}.gitMajor=1" in flags
        assert f"-X {package}.gitMinor=36" in flags
        assert f"-X {package}.gitTreeState=clean" in flags
        assert f"-X {package}.buildDate=2026-01-02T03:04:05Z" in flags
