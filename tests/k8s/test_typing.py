"""op.k8s under mypy --strict: the committed modules, and code that uses them.

reconciler_example.py (the documented reconciler code) must pass; every line
of typing_bad.py marked `# error:` must fail, and no other.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).parent

pytestmark = pytest.mark.slow

CONFIG = "[mypy]\nstrict = True\nplugins = pydantic.mypy\n"


def _mypy(tmp_path: Path, *paths: str) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "mypy.ini"
    config.write_text(CONFIG)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--no-error-summary",
            f"--config-file={config}",
            f"--cache-dir={tmp_path / 'cache'}",
            *paths,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_committed_modules_pass_mypy_strict(tmp_path: Path) -> None:
    done = _mypy(tmp_path, "-p", "opgen.api.k8s")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_reconciler_example_passes_mypy_strict(tmp_path: Path) -> None:
    done = _mypy(tmp_path, "tests/k8s/reconciler_example.py")
    assert done.returncode == 0, done.stdout + done.stderr


def test_wrong_uses_fail_on_every_marked_line(tmp_path: Path) -> None:
    done = _mypy(tmp_path, "tests/k8s/typing_bad.py")
    assert done.returncode == 1, done.stdout + done.stderr
    lines = (HERE / "typing_bad.py").read_text().splitlines()
    marked = {n for n, line in enumerate(lines, start=1) if "# error:" in line}
    failed = {int(n) for n in re.findall(r"typing_bad\.py:(\d+): error:", done.stdout)}
    assert failed == marked, done.stdout
