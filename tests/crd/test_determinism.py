"""Same input, byte-identical output: across runs and hash seeds."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.crd import golden

ROOT = Path(__file__).resolve().parents[2]


def _generate(out: Path, seed: str) -> dict[str, bytes]:
    arguments = [sys.executable, "-m", "opgen", "generate", "crd", "--out", str(out)]
    for path in [
        ROOT / "examples" / "standalone" / "raycluster_types.py",
        *golden.case_files(),
    ]:
        arguments += ["--types", str(path)]
    environment = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run(
        arguments, capture_output=True, text=True, env=environment, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    return {path.name: path.read_bytes() for path in sorted(out.iterdir())}


def test_two_runs_with_different_hash_seeds_are_byte_identical(tmp_path: Path) -> None:
    first = _generate(tmp_path / "first", "0")
    second = _generate(tmp_path / "second", "4242")
    assert len(first) == len(golden.generated()) + 1
    assert first == second


def test_rerun_leaves_files_unchanged(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _generate(out, "1")
    stamps = {path.name: path.stat().st_mtime_ns for path in out.iterdir()}
    again = subprocess.run(
        [
            sys.executable,
            "-m",
            "opgen",
            "generate",
            "crd",
            "--types",
            str(ROOT / "examples" / "standalone" / "raycluster_types.py"),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    assert again.stdout.startswith("unchanged ")
    assert {path.name: path.stat().st_mtime_ns for path in out.iterdir()} == stamps
