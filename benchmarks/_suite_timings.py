"""A pytest plugin for `memory_vs_envtest`: what each test of a run cost, and on which server.

Loaded with `-p benchmarks._suite_timings`; writes to the JSON file named by
`OPGEN_SUITE_TIMINGS` each test's wall time (setup, call and teardown), the
CPU time of the pytest process during it (all its threads; not the CPU of
processes it runs, such as envtest's etcd and kube-apiserver),
whether it ran on the memory server, and the seconds the backend's start-up
took during it (the `envtest` fixture starting the control plane, the
`memory_session` fixture reading the CRDs and webhooks); with `OPGEN_SUITE_COLLECTED`, the
collected tests and whether each would run on the memory server.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Generator
from typing import Any

import pytest

from opgen.testing.plugin import on_memory

STARTUP_FIXTURES = frozenset({"envtest", "memory_session"})
"""The session fixtures that start a backend: envtest's control plane, the
memory server's kinds and webhooks (paid once a session, on either)."""

_tests: list[dict[str, Any]] = []
_startup = {"seconds": 0.0, "cpu": 0.0}


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(
    fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest
) -> Generator[None, None, None]:
    began, cpu = time.perf_counter(), time.process_time()
    yield
    if fixturedef.argname in STARTUP_FIXTURES:
        _startup["seconds"] += time.perf_counter() - began
        _startup["cpu"] += time.process_time() - cpu


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    before, before_cpu = _startup["seconds"], _startup["cpu"]
    began, cpu = time.perf_counter(), time.process_time()
    yield
    _tests.append(
        {
            "name": item.name,
            "seconds": time.perf_counter() - began,
            "startup": _startup["seconds"] - before,
            "cpu": time.process_time() - cpu - (_startup["cpu"] - before_cpu),
            "memory": on_memory(item),
        }
    )


def pytest_collection_finish(session: pytest.Session) -> None:
    target = os.environ.get("OPGEN_SUITE_COLLECTED")
    if target:
        tests = [
            {"nodeid": item.nodeid, "memory": on_memory(item)} for item in session.items
        ]
        with open(target, "w", encoding="utf-8") as out:
            json.dump(tests, out)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    target = os.environ.get("OPGEN_SUITE_TIMINGS")
    if target:
        with open(target, "w", encoding="utf-8") as out:
            json.dump({"tests": _tests, "exitstatus": int(exitstatus)}, out)
