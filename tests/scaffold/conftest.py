"""Helpers for scaffolding projects in temporary folders through the CLI, and for
running a generated project's own tools."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from opgen.cli import app


@dataclass
class Run:
    exit_code: int
    stdout: str
    stderr: str


def opgen(cwd: Path, *args: str) -> Run:
    """Run the opgen CLI in `cwd` (in-process)."""
    result = CliRunner().invoke(app, ["-C", str(cwd), *args], catch_exceptions=False)
    return Run(result.exit_code, result.stdout, result.stderr)


def api_args(
    group: str, version: str, kind: str, *flags: str, verb: str = "create"
) -> tuple[str, ...]:
    """The command line of `opgen create api` (or `delete api`) for one kind."""
    return (verb, "api", "--group", group, "--version", version, "--kind", kind, *flags)


def create_api(cwd: Path, group: str, version: str, kind: str, *flags: str) -> Run:
    """Run `opgen create api` in `cwd`."""
    return opgen(cwd, *api_args(group, version, kind, *flags))


BIN = Path(sys.executable).parent
"""The tools of opgen's own environment (black, ruff, mypy, pytest)."""


def tool(root: Path, *args: str, timeout: float = 600, **env: str) -> str:
    """Run `args` in `root` (no bytecode, `env` added); assert success; its stdout."""
    done = subprocess.run(
        args,
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **env},
    )
    assert done.returncode == 0, f"{' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def check_code(root: Path, package: str) -> None:
    """What the project's `make lint typecheck` checks: black, ruff, mypy --strict."""
    tool(root, str(BIN / "black"), "--check", "--quiet", package, "tests")
    tool(root, str(BIN / "ruff"), "check", "--quiet", "--no-cache", package, "tests")
    tool(
        root,
        str(BIN / "mypy"),
        "--strict",
        "--no-incremental",
        "--cache-dir",
        os.devnull,
        package,
        "tests",
    )


def run_project_tests(root: Path) -> str:
    """The project's own pytest, against envtest (required unless the caller says not)."""
    return tool(
        root,
        str(BIN / "python"),
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        OPGEN_REQUIRE_ENVTEST=os.environ.get("OPGEN_REQUIRE_ENVTEST", "1"),
    )


def tree_hash(root: Path) -> str:
    """One hash over every file's path and bytes (caches excluded)."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(
                str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0"
            )
    return digest.hexdigest()


def snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not _TOOL_CACHES.intersection(p.parts)
    }


_TOOL_CACHES = frozenset({"__pycache__", ".hypothesis"})
"""Folders tools leave behind when a project's own tests run (.gitignore's)."""


INIT = ("init", "--domain", "example.com", "--project-name", "ray-operator")
CREATE_RAY = api_args("ray", "v1", "RayCluster")
DELETE_RAY = api_args("ray", "v1", "RayCluster", verb="delete")


@pytest.fixture(scope="module")
def initialised(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("initialised") / "ray-operator"
    root.mkdir()
    assert opgen(root, *INIT).exit_code == 0
    return root


@pytest.fixture
def project(initialised: Path, tmp_path: Path) -> Iterator[Path]:
    """A fresh copy of a project right after `opgen init`."""
    root = tmp_path / "ray-operator"
    shutil.copytree(initialised, root)
    yield root
