"""helm, built once from the Go module proxy and cached beside the envtest binaries.

`helm_binary()` builds `helm.sh/helm/v3/cmd/helm` at `HELM_VERSION` in a
throwaway Go module (`go get`, then `go build` with the version stamped as
Helm's release build stamps it) into `<cache>/tools/helm-<version>`, next to
`<cache>/envtest`, under the cache's lock. Without Go the tests that need helm
skip, and fail under OPGEN_REQUIRE_ENVTEST=1 (CI), like the envtest tests.

`python -m tests.helm` builds it (or finds it) and prints its path and how long
that took: run with empty GOMODCACHE and GOCACHE, that is the cold build CI
pays once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

import pytest

from opgen.errors import EnvtestError
from opgen.testing import cache_root
from opgen.testing.binaries.cache import locked
from opgen.testing.binaries.kubebuild import GO_BUILD_TIMEOUT, run_go
from opgen.testing.plugin import REQUIRE_ENV, envtest_required

__all__ = ["HELM_VERSION", "build_helm", "helm", "helm_binary", "helm_path"]

HELM_VERSION = "v3.22.0"
"""Helm's latest v3 release on the module proxy (Go 1.26, k8s.io/client-go v0.37)."""
HELM_MODULE = "helm.sh/helm/v3"


def helm_path(env: Mapping[str, str]) -> Path:
    """Where the built helm lives: `<envtest cache>/../tools/helm-<version>`."""
    return cache_root(env).parent / "tools" / f"helm-{HELM_VERSION}"


def build_helm(env: Mapping[str, str]) -> Path:
    """The cached helm, built first if it is missing; `EnvtestError` if that fails."""
    target = helm_path(env)
    if target.is_file():
        return target
    go = shutil.which("go", path=env.get("PATH"))
    if go is None:
        raise EnvtestError("Go is not installed: building helm needs it")
    with locked(target.parent, target.name):
        if target.is_file():
            return target
        with tempfile.TemporaryDirectory(prefix="opgen-helm-build-") as work:
            directory = Path(work)
            log = directory / "go.log"
            run_go(
                go,
                "mod",
                "init",
                "opgen.local/helm-build",
                work=directory,
                env=env,
                log=log,
            )
            run_go(
                go, "get", f"{HELM_MODULE}/cmd/helm@{HELM_VERSION}",
                work=directory, env=env, log=log,
            )  # fmt: skip
            built = directory / "helm"
            stamp = f"-X {HELM_MODULE}/internal/version.version={HELM_VERSION}"
            run_go(
                go, "build", "-trimpath", "-ldflags", f"-s -w {stamp}",
                "-o", str(built), f"{HELM_MODULE}/cmd/helm",
                work=directory, env=env, log=log, timeout=GO_BUILD_TIMEOUT,
            )  # fmt: skip
            staged = target.with_name(f".{target.name}.{os.getpid()}")
            shutil.move(str(built), staged)
            os.replace(staged, target)
    return target


def helm_binary() -> Path:
    """The cached helm for a test; skip without Go (fail under OPGEN_REQUIRE_ENVTEST=1)."""
    try:
        return build_helm(os.environ)
    except EnvtestError as error:
        if envtest_required(os.environ):
            pytest.fail(f"{error} ({REQUIRE_ENV} is set)", pytrace=False)
        pytest.skip(str(error))


def helm(
    *args: str,
    kubeconfig: Path | None = None,
    cwd: Path | None = None,
    check: bool = True,
) -> subprocess.CompletedProcess[str]:
    """`helm <args>` (against `kubeconfig`, with helm's state in a temporary HOME)."""
    home = Path(tempfile.gettempdir()) / "opgen-helm-home"
    env = {
        **os.environ,
        "HELM_CACHE_HOME": str(home / "cache"),
        "HELM_CONFIG_HOME": str(home / "config"),
        "HELM_DATA_HOME": str(home / "data"),
    }
    if kubeconfig is not None:
        env["KUBECONFIG"] = str(kubeconfig)
    done = subprocess.run(
        [str(helm_binary()), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    if check:
        assert (
            done.returncode == 0
        ), f"helm {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done


def main() -> None:
    started = time.monotonic()
    path = build_helm(os.environ)
    version = subprocess.run(
        [str(path), "version", "--short"], capture_output=True, text=True, check=True
    ).stdout.strip()
    print(f"{path} ({version}) in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
