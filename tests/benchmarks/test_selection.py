"""`python -m benchmarks WORD -- OPTIONS`: which benchmark modules a word selects."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import benchmarks.__main__ as runner
from benchmarks.__main__ import discover, main, select

NAMES = [
    "benchmarks.crd_generation",
    "benchmarks.crd_import",
    "benchmarks.crd_vs_controller_gen",
    "benchmarks.runtime.bench",
    "benchmarks.runtime_install",
]


def test_a_word_naming_a_module_selects_it_alone() -> None:
    assert select(NAMES, ["runtime"]) == ["benchmarks.runtime.bench"]
    assert select(NAMES, ["runtime_install"]) == ["benchmarks.runtime_install"]
    assert select(NAMES, ["crd_import"]) == ["benchmarks.crd_import"]


def test_a_word_naming_no_module_selects_the_names_containing_it() -> None:
    assert select(NAMES, ["crd"]) == [
        "benchmarks.crd_generation",
        "benchmarks.crd_import",
        "benchmarks.crd_vs_controller_gen",
    ]
    assert select(NAMES, ["install", "bench"]) == [
        "benchmarks.runtime.bench",
        "benchmarks.runtime_install",
    ]


def test_no_word_selects_every_module() -> None:
    assert select(NAMES, []) == NAMES


def test_the_readme_command_reaches_the_runtime_benchmark_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`make bench BENCH="runtime -- --tables scale"` (the runtime_install
    benchmark rejects those options)."""
    discovered = discover()
    assert "benchmarks.runtime_install" in discovered
    assert select(discovered, ["runtime"]) == ["benchmarks.runtime.bench"]

    ran: list[tuple[str, list[str]]] = []

    def module(name: str) -> SimpleNamespace:
        return SimpleNamespace(main=lambda argv: ran.append((name, argv)))

    monkeypatch.setattr(runner, "importlib", SimpleNamespace(import_module=module))
    monkeypatch.setattr(runner, "discover", lambda: discovered)
    assert main(["runtime", "--", "--tables", "scale"]) == 0
    assert ran == [("benchmarks.runtime.bench", ["--tables", "scale"])]
