"""Black's output is kept in opgen's cache directory: a source formatted once is
not formatted again, and the kept text is black's, byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from opgen.cachedir import CACHE_ENV
from opgen.render import templating

SOURCE = "x = {  'a':37,'b':42,\n'c':927}\ndef f(a,):\n  return a\n"


def test_a_source_is_formatted_by_black_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    calls: list[int] = []
    black = templating._black

    def counted(source: str, line_length: int) -> str:
        calls.append(line_length)
        return black(source, line_length)

    monkeypatch.setattr(templating, "_black", counted)
    first = templating.format_python(SOURCE)
    assert first == black(SOURCE, 88)
    assert templating.format_python(SOURCE) == first
    assert calls == [88]
    narrow = templating.format_python(SOURCE, line_length=20)
    assert narrow == black(SOURCE, 20) != first
    assert calls == [88, 20]
    # black's folder, and a folder and a file for each of the two sources
    assert len(list((tmp_path / "black").rglob("*"))) == 5


def test_an_unwritable_cache_only_costs_the_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    monkeypatch.setenv(CACHE_ENV, str(blocked))
    assert templating.format_python(SOURCE) == templating._black(SOURCE, 88)
