"""The Go commands the binary build runs, recorded by a fake `go` (no network, no compiler)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from opgen.testing.binaries.etcd_source import build_etcd_with_go
from opgen.testing.binaries.kubebuild import build_kubernetes
from opgen.testing.binaries.versions import KubernetesVersion

DATA = Path(__file__).with_name("data")

FAKE_GO = """\
#!/bin/sh
printf '%s|%s|%s\\n' "$GOTOOLCHAIN $CGO_ENABLED $GOFLAGS $GOWORK" "$(pwd)" "$*" \
  >> "$FAKE_GO_LOG"
case "$1 $2" in
  "env GOVERSION") echo go1.26.1 ;;
  "mod download") printf '{"GoMod": "%s"}\\n' "$FAKE_GOMOD" ;;
esac
"""


@pytest.fixture
def go_env(tmp_path: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    go = bin_dir / "go"
    go.write_text(FAKE_GO)
    go.chmod(0o755)
    return {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "FAKE_GO_LOG": str(tmp_path / "go.log"),
        "FAKE_GOMOD": str(DATA / "kubernetes.go.mod"),
        "SOURCE_DATE_EPOCH": "0",
    }


def _calls(env: dict[str, str]) -> list[tuple[str, str, str]]:
    lines = Path(env["FAKE_GO_LOG"]).read_text().splitlines()
    return [tuple(line.split("|", 2)) for line in lines]  # type: ignore[misc]


GO_ENV = "local 0 -mod=mod -buildvcs=false off"


def test_kube_apiserver_and_controller_manager_are_built_stamped(
    tmp_path: Path, go_env: dict[str, str]
) -> None:
    work, out = tmp_path / "work", tmp_path / "out"
    gomod = build_kubernetes(
        KubernetesVersion.parse("1.36.3"), work, out, go_env, progress=lambda _: None
    )
    assert gomod == (DATA / "kubernetes.go.mod").read_text()
    stamp = " ".join(
        f"-X {package}.{name}={value}"
        for package in ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version")
        for name, value in (
            ("gitVersion", "v1.36.3"),
            ("gitMajor", "1"),
            ("gitMinor", "36"),
            ("gitTreeState", "clean"),
            ("buildDate", "1970-01-01T00:00:00Z"),
        )
    )
    commands = [
        "k8s.io/kubernetes/cmd/kube-apiserver",
        "k8s.io/kubernetes/cmd/kube-controller-manager",
    ]
    assert _calls(go_env) == [
        (GO_ENV, str(work), "mod download -json k8s.io/kubernetes@v1.36.3"),
        (GO_ENV, str(work), "env GOVERSION"),
        (GO_ENV, str(work), "get " + " ".join(f"{c}@v1.36.3" for c in commands)),
        (
            GO_ENV,
            str(work),
            f"build -trimpath -ldflags -s -w {stamp} -o {out}{os.sep} "
            + " ".join(commands),
        ),
    ]
    assert "k8s.io/api => k8s.io/api v0.36.3" in (work / "go.mod").read_text()


def test_etcd_is_built_from_its_server_module(
    tmp_path: Path, go_env: dict[str, str]
) -> None:
    work, dest = tmp_path / "etcd", tmp_path / "bin" / "etcd"
    build_etcd_with_go(work, dest, "v3.6.8", go_env, progress=lambda _: None)
    assert _calls(go_env) == [
        (GO_ENV, str(work), "get go.etcd.io/etcd/server/v3@v3.6.8"),
        (
            GO_ENV,
            str(work),
            f"build -trimpath -ldflags -s -w -o {dest} go.etcd.io/etcd/server/v3",
        ),
    ]
    assert (work / "go.mod").read_text().startswith("module ")
