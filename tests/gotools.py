"""Go-side references for comparisons: controller-gen itself, and CRDs Go modules publish.

- `controller_gen_crds(go_source, options)` builds controller-gen
  (`sigs.k8s.io/controller-tools`, `CONTROLLER_TOOLS`) from the Go module proxy
  once (cached next to the envtest binaries), writes `go_source` as a Go API
  package that uses `k8s.io/api` at the pinned Kubernetes release, runs
  `controller-gen crd` on it and returns the CRDs it wrote, parsed;
- `published_file(module, version, path)` is a file of a Go module as the
  proxy serves it (e.g. a project's `config/crd/bases/...yaml`).

Without Go these tests skip, and fail under OPGEN_REQUIRE_ENVTEST=1 (CI), like
the envtest tests.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from opgen.errors import EnvtestError
from opgen.testing import KUBERNETES_VERSION, cache_root
from opgen.testing.binaries.gomodules import module_dir
from opgen.testing.binaries.kubebuild import go_environment, run_go
from opgen.testing.plugin import REQUIRE_ENV, envtest_required

__all__ = [
    "CONTROLLER_TOOLS",
    "controller_gen_crds",
    "published_file",
    "require_go",
]

CONTROLLER_TOOLS = "v0.21.0"
"""controller-tools' latest release that builds against Kubernetes 1.36's k8s.io/api."""


def require_go() -> str:
    """`go`, or skip (fail under OPGEN_REQUIRE_ENVTEST=1)."""
    go = shutil.which("go")
    if go is None:
        message = "Go is not installed: the comparison with controller-gen needs it"
        if envtest_required(os.environ):
            pytest.fail(f"{message} ({REQUIRE_ENV} is set)", pytrace=False)
        pytest.skip(message)
    return go


def _go(*args: str, cwd: Path) -> str:
    try:
        return run_go(require_go(), *args, work=cwd, env=os.environ, log=cwd / "go.log")
    except EnvtestError as error:
        pytest.fail(str(error), pytrace=False)


def _controller_gen() -> Path:
    """controller-gen at CONTROLLER_TOOLS, built once."""
    target = (
        cache_root(os.environ).parent / "tools" / f"controller-gen-{CONTROLLER_TOOLS}"
    )
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="opgen-controller-gen-") as work:
        directory = Path(work)
        _go("mod", "init", "opgen.local/controller-gen", cwd=directory)
        _go(
            "get",
            f"sigs.k8s.io/controller-tools/cmd/controller-gen@{CONTROLLER_TOOLS}",
            cwd=directory,
        )
        built = directory / "controller-gen"
        _go(
            "build",
            "-o",
            str(built),
            "sigs.k8s.io/controller-tools/cmd/controller-gen",
            cwd=directory,
        )
        staged = target.with_name(f".{target.name}.{os.getpid()}")
        shutil.move(str(built), staged)
        os.replace(staged, target)
    return target


def staging_version() -> str:
    """`k8s.io/api`'s version for the pinned Kubernetes release: 1.36.3 → v0.36.3."""
    return "v0." + KUBERNETES_VERSION.split(".", 1)[1]


def controller_gen_crds(
    go_source: str, *, options: tuple[str, ...] = (), api_version: str | None = None
) -> list[dict[str, Any]]:
    """The CRDs controller-gen writes for one Go API package (`package v1`, with
    its `+groupName` marker), against `k8s.io/api` at `api_version`, with the
    `crd` generator's `options` (`maxDescLen=0`, ...)."""
    binary = _controller_gen()
    version = api_version or staging_version()
    with tempfile.TemporaryDirectory(prefix="opgen-go-api-") as work:
        directory = Path(work)
        (directory / "v1").mkdir()
        (directory / "v1" / "types.go").write_text(go_source)
        _go("mod", "init", "opgen.local/api", cwd=directory)
        _go(
            "get",
            f"k8s.io/api@{version}",
            f"k8s.io/apimachinery@{version}",
            cwd=directory,
        )
        done = subprocess.run(
            [
                str(binary),
                ":".join(["crd", *options]),
                "paths=./...",
                "output:crd:dir=out",
            ],
            cwd=directory,
            env=go_environment(os.environ),
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if done.returncode != 0:
            pytest.fail(f"controller-gen failed:\n{done.stderr[-4000:]}", pytrace=False)
        return [
            yaml.load(path.read_text(), Loader=yaml.CSafeLoader)
            for path in sorted((directory / "out").glob("*.yaml"))
        ]


def published_file(module: str, version: str, path: str) -> str:
    """A file of `module@version` as the Go module proxy serves it (cached by Go)."""
    require_go()
    try:
        directory = module_dir(module, version)
    except EnvtestError as error:
        pytest.fail(str(error), pytrace=False)
    return (directory / path).read_text(encoding="utf-8")
