"""`opgen envtest use`: prints where the binaries are, downloads or builds only when it must."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from opgen.cli import app
from opgen.testing.binaries.versions import KUBERNETES_VERSION
from tests.testing.fake_index import closed_port_url, envtest_archive, serve
from tests.testing.fakes import fake_set

# Variables from the outer session must not leak into these invocations.
CLEAN = {
    "KUBEBUILDER_ASSETS": None,
    "TEST_ASSET_KUBE_APISERVER": None,
    "TEST_ASSET_ETCD": None,
    "TEST_ASSET_KUBE_CONTROLLER_MANAGER": None,
    "TEST_ASSET_KUBECTL": None,
    "OPGEN_ENVTEST_CACHE": None,
    "OPGEN_ENVTEST_INDEX_URL": None,
}


def test_print_path_gives_kubebuilder_assets_when_set(tmp_path: Path) -> None:
    assets = fake_set(tmp_path / "assets")
    result = CliRunner().invoke(
        app,
        ["envtest", "use", "--print-path"],
        env={**CLEAN, "KUBEBUILDER_ASSETS": str(assets)},
    )
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{assets}\n"


def test_a_cached_set_is_found_under_bin_dir(tmp_path: Path) -> None:
    fake_set(tmp_path / "root" / KUBERNETES_VERSION)
    result = CliRunner().invoke(
        app, ["envtest", "use", "--bin-dir", str(tmp_path / "root")], env=CLEAN
    )
    assert result.exit_code == 0, result.output
    assert f"Version: {KUBERNETES_VERSION}" in result.stdout
    assert "Source:  cache" in result.stdout
    assert f"Path:    {tmp_path / 'root' / KUBERNETES_VERSION}" in result.stdout


def test_the_cache_root_can_come_from_opgen_envtest_cache(tmp_path: Path) -> None:
    fake_set(tmp_path / "root" / KUBERNETES_VERSION)
    result = CliRunner().invoke(
        app,
        ["envtest", "use", KUBERNETES_VERSION, "--print-path"],
        env={**CLEAN, "OPGEN_ENVTEST_CACHE": str(tmp_path / "root")},
    )
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{tmp_path / 'root' / KUBERNETES_VERSION}\n"


def test_a_malformed_version_is_a_usage_error() -> None:
    result = CliRunner().invoke(app, ["envtest", "use", "1.36"], env=CLEAN)
    assert result.exit_code == 2
    assert "is not a Kubernetes release version" in result.output


def test_without_go_and_cache_it_fails_with_the_ways_out(tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    result = CliRunner().invoke(
        app,
        ["envtest", "use", "--source", "build", "--bin-dir", str(tmp_path / "root")],
        env={**CLEAN, "PATH": str(empty)},
    )
    assert result.exit_code == 1
    assert result.stderr.startswith("error: Go is not installed")
    assert "hint: (1) set KUBEBUILDER_ASSETS" in result.stderr
    assert "USE_EXISTING_CLUSTER=true" in result.stderr


def test_the_archive_is_downloaded_from_the_index_url(tmp_path: Path) -> None:
    root = tmp_path / "root"
    with serve() as server:
        server.publish(envtest_archive(tmp_path))
        result = CliRunner().invoke(
            app,
            [
                *("envtest", "use", "--source", "download"),
                *("--bin-dir", str(root), "--index-url", server.index_url),
            ],
            env=CLEAN,
        )
    assert result.exit_code == 0, result.output
    assert "Source:  download" in result.stdout
    assert f"kubectl                  {root / KUBERNETES_VERSION / 'kubectl'}" in (
        result.stdout
    )
    assert "kube-controller-manager  (not available)" in result.stdout
    assert f"envtest: reading the envtest index {server.index_url}" in result.stderr


def test_the_index_url_can_come_from_the_environment(tmp_path: Path) -> None:
    root = tmp_path / "root"
    with serve() as server:
        server.publish(envtest_archive(tmp_path))
        result = CliRunner().invoke(
            app,
            ["envtest", "use", "--print-path", "--bin-dir", str(root)],
            env={**CLEAN, "OPGEN_ENVTEST_INDEX_URL": server.index_url},
        )
        assert server.requested[0] == "/envtest-releases.yaml"
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{root / KUBERNETES_VERSION}\n"


def test_a_refused_download_falls_back_to_the_build_and_says_why(
    tmp_path: Path,
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    refused = closed_port_url()
    result = CliRunner().invoke(
        app,
        ["envtest", "use", "--bin-dir", str(tmp_path / "root")],
        env={**CLEAN, "PATH": str(empty), "OPGEN_ENVTEST_INDEX_URL": refused},
    )
    assert result.exit_code == 1
    assert f"envtest: cannot reach {refused}" in result.stderr
    assert "building the binaries with Go instead" in result.stderr
    assert "error: Go is not installed" in result.stderr
    assert not (tmp_path / "root" / KUBERNETES_VERSION).exists()


def test_download_only_does_not_build(tmp_path: Path) -> None:
    refused = closed_port_url()
    result = CliRunner().invoke(
        app,
        [
            *("envtest", "use", "--source", "download"),
            *("--bin-dir", str(tmp_path / "root"), "--index-url", refused),
        ],
        env=CLEAN,
    )
    assert result.exit_code == 1
    assert f"error: cannot reach {refused}" in result.stderr
    assert "Go" not in result.stderr
