"""A whole pytest session of a small project, in a subprocess with no envtest
binaries anywhere, for the tests of the `--api-server` switch."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[3]


def run_session(
    tmp_path: Path,
    *args: str,
    ini: str,
    tests: str,
    crds: Iterable[Mapping[str, Any]],
    files: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Write a project under `tmp_path` (its `pytest.ini`, `test_session.py`,
    the `crds` in config/crd/bases and any other `files` by relative path) and
    run pytest there with `args`; opgen's tests are on its PYTHONPATH."""
    project = tmp_path / "project"
    bases = project / "config" / "crd" / "bases"
    bases.mkdir(parents=True, exist_ok=True)
    (bases / "crds.yaml").write_text(yaml.safe_dump_all(list(crds)))
    for name, text in (files or {}).items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    (project / "pytest.ini").write_text(ini)
    (project / "test_session.py").write_text(textwrap.dedent(tests))
    environ = {
        key: value
        for key, value in os.environ.items()
        if key not in {"KUBECONFIG", "USE_EXISTING_CLUSTER", "PYTEST_ADDOPTS"}
    }
    environ["OPGEN_ENVTEST_CACHE"] = str(tmp_path / "no-binaries")
    environ["OPGEN_REQUIRE_ENVTEST"] = "1"
    environ["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
        cwd=project,
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
