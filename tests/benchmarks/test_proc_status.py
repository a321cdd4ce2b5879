"""The benchmarks' peak RSS is the process's own (VmHWM), not its parent's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.runtime._proc_status import peak_rss_kib, rss_kib, status_kib

ROOT = Path(__file__).parents[2]
PARENT_MIB = 200

# A parent that touches PARENT_MIB, then starts a child, as the benchmark driver
# (some 100 MiB) starts each operator. The child reports its peak as the
# operators do, and getrusage's ru_maxrss beside it.
PARENT = f"""
import subprocess, sys
held = b"x" * ({PARENT_MIB} * 1024 * 1024)
sys.stdout.write(subprocess.run([sys.executable, "-c", sys.argv[1]],
    capture_output=True, text=True, check=True).stdout)
"""
CHILD = """
import json, resource
from benchmarks.runtime._proc_status import peak_rss_kib, rss_kib
print(json.dumps({
    "rss_kib": rss_kib(),
    "peak_rss_kib": peak_rss_kib(),
    "ru_maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
}))
"""

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="Linux /proc only"
)


def test_a_child_of_a_large_parent_reports_its_own_peak() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PARENT, CHILD],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    child = json.loads(done.stdout)
    parent_kib = PARENT_MIB * 1024
    # the trap this guards against: ru_maxrss carries the parent's peak over
    assert child["ru_maxrss"] >= parent_kib
    assert child["rss_kib"] <= child["peak_rss_kib"] < parent_kib // 2


def test_the_peak_is_at_least_the_current_resident_set() -> None:
    assert 0 < rss_kib() <= peak_rss_kib()
    assert 0 < rss_kib(os.getpid()) <= peak_rss_kib(os.getpid())


def test_a_missing_field_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="no VmNothing"):
        status_kib("VmNothing")
