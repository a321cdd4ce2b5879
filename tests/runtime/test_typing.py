"""Typed clients: correct code passes mypy --strict, wrong code fails it line by line."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).parent / "typing_cases"

pytestmark = pytest.mark.slow


def mypy(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-error-summary",
            "--config-file=",
            str(path.relative_to(ROOT)),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


def test_correct_usage_type_checks() -> None:
    done = mypy(CASES / "good.py")
    assert done.returncode == 0, done.stdout + done.stderr


def test_wrong_usage_fails_on_every_marked_line() -> None:
    done = mypy(CASES / "bad.py")
    assert done.returncode == 1, done.stdout + done.stderr
    marked = {
        number
        for number, line in enumerate(
            (CASES / "bad.py").read_text().splitlines(), start=1
        )
        if "# error:" in line
    }
    reported = {
        int(m.group(1)) for m in re.finditer(r"bad\.py:(\d+): error", done.stdout)
    }
    assert marked == reported, done.stdout
