"""Two runs in one process share nothing: each has its own `RunContext`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from opgen.cli import app

TYPES = '''\
import opgen.api as op


class WidgetSpec(op.Model):
    {field}: int = 0
    """{doc}"""


@op.kind(group="leak.example.com", version="v1")
class Widget(op.CustomResource[WidgetSpec, None]):
    """A widget."""
'''


def _generate(folder: Path) -> str:
    result = CliRunner().invoke(
        app,
        [
            "-C",
            str(folder),
            "generate",
            "crd",
            "--types",
            "widget_types.py",
            "--out",
            "out",
        ],
    )
    assert result.exit_code == 0, result.output
    return (folder / "out" / "leak.example.com_widgets.yaml").read_text(
        encoding="utf-8"
    )


def test_runs_over_projects_with_the_same_names_do_not_see_each_other(
    tmp_path: Path,
) -> None:
    for name, field, doc in (("one", "alpha", "First."), ("two", "bravo", "Other.")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "widget_types.py").write_text(
            TYPES.format(field=field, doc=doc), encoding="utf-8"
        )

    one, two = _generate(tmp_path / "one"), _generate(tmp_path / "two")

    assert "alpha:" in one and "First." in one and "bravo" not in one
    assert "bravo:" in two and "Other." in two and "alpha" not in two


def test_a_file_rewritten_between_runs_is_read_anew_even_with_the_same_stamp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Within a run a file is executed once; the next run executes it again,
    even when its size and modification time did not change: an editor that
    saves twice within a second. Python's own bytecode cache, keyed on the
    modification second and the size, would hand back the first version, so it
    is written here as it is on an author's machine."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    types = tmp_path / "widget_types.py"
    types.write_text(TYPES.format(field="alpha", doc="First."), encoding="utf-8")
    stamp = types.stat()
    first = _generate(tmp_path)

    types.write_text(TYPES.format(field="bravo", doc="Other."), encoding="utf-8")
    os.utime(types, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert types.stat().st_size == stamp.st_size
    second = _generate(tmp_path)

    assert "alpha:" in first and "First." in first
    assert "bravo:" in second and "Other." in second and "alpha" not in second
