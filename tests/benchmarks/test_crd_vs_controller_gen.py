"""The controller-gen benchmark's pairing helpers (no tool is run)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from benchmarks.crd_vs_controller_gen import alternate, same_files


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
