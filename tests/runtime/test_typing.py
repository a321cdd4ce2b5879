"""Generated typed clients under mypy --strict: correct code passes, wrong code fails.

The clients are the ones `opgen generate` wrote into a scaffolded project
(tests/runtime/typed_project.py); the cases in typing_cases/ import them from
it. bad.py marks every line that must fail with an `# error:` comment: the
test passes only if mypy reports exactly those lines, and says why.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).parent / "typing_cases"

pytestmark = pytest.mark.slow


def mypy(path: Path, project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-error-summary",
            "--no-incremental",
            "--config-file=",
            str(path.relative_to(ROOT)),
        ],
        cwd=ROOT,
        env={**os.environ, "MYPYPATH": str(project)},
        capture_output=True,
        text=True,
        check=False,
    )


def test_correct_usage_type_checks(typed_project_root: Path) -> None:
    done = mypy(CASES / "good.py", typed_project_root)
    assert done.returncode == 0, done.stdout + done.stderr


def test_wrong_usage_fails_on_every_marked_line(typed_project_root: Path) -> None:
    done = mypy(CASES / "bad.py", typed_project_root)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = (CASES / "bad.py").read_text().splitlines()
    marked = {n for n, line in enumerate(lines, start=1) if "# error:" in line}
    errors = re.findall(r"bad\.py:(\d+): error: (.*)", done.stdout)
    assert marked == {int(n) for n, _ in errors}, done.stdout
    by_line = {int(n): message for n, message in errors}
    expected = {
        "no namespace": 'Missing named argument "namespace"',
        "wrong model": "incompatible type",
        "cluster-scoped": 'Unexpected keyword argument "namespace"',
        "replicas": 'incompatible type "str"; expected "int"',
        "a Widget": 'expression has type "Widget", variable has type "Gadget"',
        "optional": 'expression has type "str | None", variable has type "int"',
        "misspelt": 'Module has no attribute "Clinet"',
    }
    for number in marked:
        reason = lines[number - 1].split("# error: ", 1)[1]
        assert expected[reason] in by_line[number], (reason, by_line[number])
