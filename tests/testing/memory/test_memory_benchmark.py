"""benchmarks/memory_vs_envtest's verdict: medians, ratios, and the goal judged
on the tests that ran on memory without the control plane's start-up."""

from __future__ import annotations

from benchmarks.memory_vs_envtest import Run, report


def _run(backend: str, memory: bool, seconds: float, startup: float) -> Run:
    tests = [
        {
            "name": "fast",
            "seconds": seconds,
            "startup": startup,
            "cpu": seconds / 2,
            "memory": memory,
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
