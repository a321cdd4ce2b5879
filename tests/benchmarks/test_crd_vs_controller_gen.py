"""The controller-gen benchmark's pairing helpers and its floor (no generator is run)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from benchmarks.crd_vs_controller_gen import (
    FLOOR_ABOVE_GOAL,
    FLOOR_SCRIPT,
    FLOOR_UNDER_GOAL,
    alternate,
    floor_verdict,
    report_check,
    report_floor,
    same_files,
)


def test_same_files_compares_names_and_bytes(tmp_path: Path) -> None:
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    for directory in (ours, theirs):
        directory.mkdir()
        (directory / "a.yaml").write_bytes(b"kind: A\n")
    assert same_files(ours, theirs)
    (theirs / "a.yaml").write_bytes(b"kind: A \n")
    assert not same_files(ours, theirs)
    (theirs / "a.yaml").write_bytes(b"kind: A\n")
    (theirs / "b.yaml").write_bytes(b"")
    assert not same_files(ours, theirs)


def test_alternate_reverses_the_order_of_every_tool_each_run() -> None:
    calls: list[tuple[str, int]] = []

    def tool(name: str) -> Callable[[int], float]:
        def run(index: int) -> float:
            calls.append((name, index))
            return float(index)

        return run

    samples = alternate(2, {n: tool(n) for n in ("opgen", "cg", "baseline")})
    assert calls == [
        ("opgen", 0),
        ("cg", 0),
        ("baseline", 0),
        ("baseline", 1),
        ("cg", 1),
        ("opgen", 1),
    ]
    assert samples == {"opgen": [0.0, 1.0], "cg": [0.0, 1.0], "baseline": [0.0, 1.0]}


def test_the_floor_is_above_the_goal_only_when_slower_than_half_controller_gen() -> (
    None
):
    assert floor_verdict(0.51, 1.0) == FLOOR_ABOVE_GOAL
    assert floor_verdict(0.5, 1.0) == FLOOR_UNDER_GOAL
    assert floor_verdict(0.2, 1.0) == FLOOR_UNDER_GOAL
    assert floor_verdict(2.0, 1.0) == FLOOR_ABOVE_GOAL


def test_report_floor_prints_each_api_with_its_verdicts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def result(kinds: object, floor: float, cg: float, cpu: float) -> dict[str, object]:
        return {
            "kinds": kinds,
            "opgen": [2 * floor] * 3,
            "controller-gen": [cg, cg + 0.1, cg - 0.1],
            "floor": [floor - 0.01, floor, floor + 0.01],
            "floor cpu": [cpu] * 3,
            "controller-gen cpu": [cg] * 3,
        }

    report_floor([result(1, 0.3, 0.2, 0.05), result(100, 0.4, 1.0, 0.6)])
    rows = capsys.readouterr().out.splitlines()
    one = next(row for row in rows if row.split()[:1] == ["1"])
    hundred = next(row for row in rows if row.split()[:1] == ["100"])
    assert "1.50x" in one
    assert one.endswith(f"wall: {FLOOR_ABOVE_GOAL}; CPU: {FLOOR_UNDER_GOAL}")
    assert "0.40x" in hundred and "0.40 (0.39-0.41)" in hundred
    assert hundred.endswith(f"wall: {FLOOR_UNDER_GOAL}; CPU: {FLOOR_ABOVE_GOAL}")


def test_the_floor_imports_each_types_file_under_its_stem(tmp_path: Path) -> None:
    types = """
from __future__ import annotations
from pydantic import BaseModel
class Spec(BaseModel):
    child: Child | None = None
class Child(BaseModel):
    size: int = 1
Spec.model_rebuild()
print(__name__, sorted(Spec.model_fields))
"""
    paths = [tmp_path / "a_types.py", tmp_path / "b_types.py"]
    for path in paths:
        path.write_text(types, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", FLOOR_SCRIPT, *map(str, paths)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.splitlines() == ["a_types ['child']", "b_types ['child']"]


def test_report_check_judges_wall_and_cpu_time_apart(
    capsys: pytest.CaptureFixture[str],
) -> None:
    report_check({"opgen": {"wall": [4.0, 5.0, 5.6], "cpu": [1.2, 1.4, 1.7]}}, 3)
    assert (
        capsys.readouterr()
        .out.strip()
        .endswith("goal <= 1.5 s: not met (by CPU time: met)")
    )
    report_check({"opgen": {"wall": [1.0, 1.5, 1.6], "cpu": [1.5, 1.6, 1.7]}}, 3)
    assert (
        capsys.readouterr()
        .out.strip()
        .endswith("goal <= 1.5 s: met (by CPU time: not met)")
    )
