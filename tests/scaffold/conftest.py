"""Helpers for scaffolding projects in temporary folders through the CLI."""

from __future__ import annotations

import hashlib
import os
import shutil
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
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    finally:
        os.chdir(previous)
    return Run(result.exit_code, result.stdout, result.stderr)


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
        if p.is_file() and "__pycache__" not in p.parts
    }


INIT = ("init", "--domain", "example.com", "--project-name", "ray-operator")
CREATE_RAY = (
    "create",
    "api",
    "--group",
    "ray",
    "--version",
    "v1",
    "--kind",
    "RayCluster",
)


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
