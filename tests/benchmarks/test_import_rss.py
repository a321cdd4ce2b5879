"""`benchmarks.runtime._import_rss` charges each module's resident growth to the
module whose body made it, and names who imported it."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from benchmarks.runtime._import_rss import Tracker

MIB = 1024


def test_growth_is_charged_to_the_module_that_made_it(tmp_path: Path) -> None:
    package = tmp_path / "rsspkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "outer.py").write_text("from rsspkg import inner\n")
    (package / "inner.py").write_text(textwrap.dedent("""
            HELD = b"x" * (24 * 1024 * 1024)  # written: every page resident
            """))
    tracker = Tracker()
    sys.path.insert(0, str(tmp_path))
    sys.meta_path.insert(0, tracker)
    try:
        import rsspkg.outer  # type: ignore[import-not-found]  # noqa: F401
    finally:
        sys.meta_path.remove(tracker)
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.split(".")[0] == "rsspkg"]:
            del sys.modules[name]
    records = {record.name: record for record in tracker.records}
    inner, outer = records["rsspkg.inner"], records["rsspkg.outer"]
    assert inner.parent == "rsspkg.outer"
    assert outer.parent is None  # imported by the test, not by a tracked module
    assert inner.own_kib >= 20 * MIB
    assert outer.total_kib >= inner.total_kib
    assert outer.own_kib < 4 * MIB, "the inner module's growth is not charged again"
