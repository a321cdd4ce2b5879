"""`collector_paused`, through which the runtime and `op.k8s` load their modules:
no cyclic collection while a large module is made, the collector as it was after."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator

import pytest

from opgen.engine.importing import collector_paused


@pytest.fixture
def collector_running() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_the_collector_is_paused_inside_and_runs_after(collector_running: None) -> None:
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_it_runs_again_when_the_block_raises(collector_running: None) -> None:
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_a_collector_stopped_before_stays_stopped(collector_running: None) -> None:
    gc.disable()
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert not gc.isenabled()


def _collections_while(statement: str) -> int:
    """Cyclic collections a fresh interpreter runs while executing `statement`."""
    program = (
        "import gc\n"
        "import opgen.api as op\n"
        "from opgen import runtime as rt\n"
        "started = []\n"
        "gc.callbacks.append(lambda phase, info: phase == 'start' and started.append(1))\n"
        f"{statement}\n"
        "print(len(started), gc.isenabled())\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    count, enabled = ran.stdout.split()
    assert enabled == "True"
    return int(count)


@pytest.mark.parametrize("statement", ["rt.Manager", "op.k8s.ConfigMap"])
def test_lazy_loads_run_no_collection_midway(statement: str) -> None:
    # Run midway, the collector would pass dozens of times (61 for `rt.Manager`
    # before); paused, it passes once, on the first allocation after.
    assert _collections_while(statement) <= 1
