"""benchmarks/memory_vs_envtest's verdict: medians, ratios, and the goal judged
on the tests that ran on memory without the control plane's start-up."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import memory_vs_envtest
from benchmarks.memory_vs_envtest import ROOT, Run, _arguments, report, rounds


def _run(
    backend: str, memory: bool, seconds: float, startup: float, **parts: float
) -> Run:
    tests = [
        {
            "name": "fast",
            "seconds": seconds,
            "startup": startup,
            "cpu": seconds / 2,
            "memory": memory,
            **{f"{part}_cpu": cpu for part, cpu in parts.items()},
        },
        {
            "name": "kubectl",
            "seconds": 9.0,
            "startup": 0.0,
            "cpu": 1.0,
            "memory": False,
        },
    ]
    return Run(backend, wall=seconds + 20.0, cpu=5.0, tests=tests)


def test_the_goal_is_judged_without_start_up_on_the_memory_tests() -> None:
    runs = [
        _run("envtest", False, 13.0, 3.0),  # 10 s of tests after a 3 s start
        _run("memory", True, 0.4, 0.0),
        _run("envtest", False, 12.0, 3.0),
        _run("memory", True, 0.6, 0.0),
        _run("envtest", False, 14.0, 3.0),
        _run("memory", True, 0.5, 0.0),
    ]
    lines = report(runs)
    judged = next(line for line in lines if line.startswith("1 of 2 tests on memory"))
    assert "10.00 s (9.00-11.00)" in judged
    assert "0.50 s (0.40-0.60)" in judged
    assert judged.endswith("20.0x")
    assert _goal(lines) == (
        "goal: the memory server >= 20x faster on '1 of 2 tests on memory, "
        "no start-up': 20.0x, met"
    )


def test_a_smaller_ratio_is_not_met() -> None:
    runs = [_run("envtest", False, 5.0, 3.0), _run("memory", True, 1.0, 0.0)]
    assert _goal(report(runs)).endswith(": 2.0x, not met")


def test_each_memory_test_is_told_with_its_medians() -> None:
    runs = [
        _run("envtest", False, 13.0, 3.0),
        _run("memory", True, 0.4, 0.0),
        _run("envtest", False, 12.0, 3.0),
        _run("memory", True, 0.6, 0.0),
    ]
    lines = report(runs)
    told = [line for line in lines if line.startswith(("fast", "kubectl"))]
    # medians of 10 and 9 s, 0.4 and 0.6 s; the CPU on memory 0.2 and 0.3 s
    assert [line.split() for line in told] == [["fast", "9.500s", "0.500s", "0.250s"]]


def _goal(lines: list[str]) -> str:
    return next(line for line in lines if line.startswith("goal:"))


def test_a_before_series_is_told_beside_memory_with_the_gain() -> None:
    runs = [
        _run("envtest", False, 13.0, 3.0),
        _run("memory", True, 0.5, 0.0),
        _run("before", True, 1.0, 0.0),
    ]
    judged = next(line for line in report(runs) if line.startswith("1 of 2 tests"))
    assert judged.split()[-8:] == [
        "0.50",
        "s",
        "(0.50-0.50)",
        "20.0x",
        "1.00",
        "s",
        "(1.00-1.00)",
        "2.00x",
    ]


def test_memorys_cpu_is_told_by_part_and_the_rest_is_the_tests_own() -> None:
    runs = [
        _run("envtest", False, 13.0, 3.0),
        _run("memory", True, 0.8, 0.0, server=0.1, webhooks=0.05, gc=0.01),
    ]
    told = {
        line.split("  ")[2].strip(): line.split()[-3]
        for line in report(runs)
        if line.startswith("  memory")
    }
    # the test's CPU is half its 0.8 s: 0.4 s, less the parts' 0.16 s
    assert told == {
        "the memory server": "0.10",
        "the webhook handlers": "0.05",
        "the garbage collector": "0.01",
        "the rest (the tests' own work)": "0.24",
    }


def test_the_arguments_are_the_runs_and_another_checkout() -> None:
    assert _arguments([]) == (3, None)
    assert _arguments(["5", "--before", str(ROOT)]) == (5, ROOT)
    with pytest.raises(SystemExit, match="not a checkout of opgen"):
        _arguments(["--before", str(Path(__file__).parent)])
    assert _arguments(["2", "--instructions", "--before", str(ROOT)]) == (2, ROOT)


def test_instruction_counts_alternate_checkouts_and_report_medians(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counted: list[Path | None] = []
    counts = iter([100e6, 150e6, 120e6, 140e6, 110e6, 160e6])

    def count(tests: list[str], tree: Path | None = None) -> int:
        counted.append(tree)
        return int(next(counts))

    monkeypatch.setattr(memory_vs_envtest, "count_instructions", count)
    before = Path("/tmp/main")
    lines = memory_vs_envtest.instructions(3, ["a", "b"], before)
    assert counted == [None, before] * 3
    assert lines[0] == "instructions in the 2 tests on memory, start-up left out:"
    assert "110.0 M (100.0-120.0)" in lines[1]
    assert "150.0 M (140.0-160.0)" in lines[2]
    assert lines[3] == "  gain: 1.36x fewer instructions"


def test_each_memory_series_follows_envtest_as_often_as_the_other() -> None:
    """envtest's teardown still takes CPU when the next run starts: the series
    right after it pays for that, so the two memory series take turns there."""
    before = Path("/tmp/main")
    assert rounds(2, before) == [
        ("envtest", None),
        ("memory", None),
        ("memory", before),
        ("envtest", None),
        ("memory", before),
        ("memory", None),
    ]
    assert rounds(2, None) == [("envtest", None), ("memory", None)] * 2
