"""A pytest plugin for `memory_vs_envtest --instructions`: callgrind counts only the tests.

The pytest process runs under `valgrind --tool=callgrind --instr-atstart=no`;
this plugin switches instrumentation on for each test (setup, call and
teardown) and off again after it, and off while a backend starts
(`STARTUP_FIXTURES`, as `_suite_timings` leaves them out), with
`callgrind_control`. Imports, collection and pytest's own reporting between
tests are not counted.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Generator
from typing import Any

import pytest

STARTUP_FIXTURES = frozenset({"envtest", "memory_session"})


def _instrument(state: str) -> None:
    subprocess.run(
        ["callgrind_control", "-i", state, str(os.getpid())],
        check=True,
        capture_output=True,
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, Any, None]:
    _instrument("on")
    try:
        yield
    finally:
        _instrument("off")


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef: Any) -> Generator[None, Any, None]:
    starts_a_backend = fixturedef.argname in STARTUP_FIXTURES
    if starts_a_backend:
        _instrument("off")
    try:
        yield
    finally:
        if starts_a_backend:
            _instrument("on")
