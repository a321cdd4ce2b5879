"""The assigners these tests run in the test process leave its allocator as it
is: `heap.fix_mmap_threshold` is process-wide, and is tested in a process of its
own (test_label_bursts.py)."""

from __future__ import annotations

import pytest

from opgen.runtime.sharding import assigner


@pytest.fixture(autouse=True)
def _threshold_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(assigner, "fix_mmap_threshold", lambda: False)
