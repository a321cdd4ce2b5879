"""A pytest plugin for `memory_vs_envtest`: what each test of a run cost, and on which server.

Loaded with `-p benchmarks._suite_timings`; writes to the JSON file named by
`OPGEN_SUITE_TIMINGS` each test's wall time (setup, call and teardown), the
CPU time of the pytest process during it (all its threads; not the CPU of
processes it runs, such as envtest's etcd and kube-apiserver),
whether it ran on the memory server, and the seconds the backend's start-up
took during it (the `envtest` fixture starting the control plane, the
`memory_session` fixture reading the CRDs and webhooks), and where its CPU
went: the memory server's own handling of requests (`MemoryApiServer.respond`,
less the reviews inside it), the project's webhook handlers
(`Handlers.review`, less the server's answers to their own requests) and the
cyclic garbage collector; with `OPGEN_SUITE_COLLECTED`, the collected tests and
whether each would run on the memory server.

`memory_vs_envtest` loads this file under another name from a folder of its
own, so that a run of another checkout of opgen (`--before`) is timed by the
same plugin.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import time
from collections.abc import Callable, Generator
from typing import Any

import pytest

from opgen.testing.plugin import on_memory

STARTUP_FIXTURES = frozenset({"envtest", "memory_session"})
"""The session fixtures that start a backend: envtest's control plane, the
memory server's kinds and webhooks (paid once a session, on either)."""

_tests: list[dict[str, Any]] = []
_startup = {"seconds": 0.0, "cpu": 0.0}
_parts = {"server": 0.0, "webhooks": 0.0, "gc": 0.0}
"""CPU seconds so far in each part (each less the other parts inside it)."""
_open: list[list[Any]] = []
"""The parts being timed, innermost last: [part, CPU at its start, CPU of parts inside]."""


def _timed(part: str, function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def timed(*args: Any, **kwargs: Any) -> Any:
        _open.append([part, time.process_time(), 0.0])
        try:
            return function(*args, **kwargs)
        finally:
            _close()

    return timed


def _close() -> None:
    part, began, inside = _open.pop()
    spent = time.process_time() - began
    _parts[part] += spent - inside
    if _open:
        _open[-1][2] += spent


def _collecting(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _open.append(["gc", time.process_time(), 0.0])
    elif _open and _open[-1][0] == "gc":
        _close()


def pytest_configure(config: pytest.Config) -> None:
    """Time the memory server's parts (when this checkout of opgen has them)."""
    try:
        from opgen.testing.memory.handlers import Handlers
        from opgen.testing.memory.server import MemoryApiServer
    except ImportError:
        return
    MemoryApiServer.respond = _timed(  # type: ignore[method-assign]
        "server", MemoryApiServer.respond
    )
    Handlers.review = _timed("webhooks", Handlers.review)  # type: ignore[method-assign]
    gc.callbacks.append(_collecting)


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(
    fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest
) -> Generator[None, None, None]:
    parts = dict(_parts)
    began, cpu = time.perf_counter(), time.process_time()
    yield
    if fixturedef.argname in STARTUP_FIXTURES:
        _startup["seconds"] += time.perf_counter() - began
        _startup["cpu"] += time.process_time() - cpu
        _parts.update(parts)  # what start-up spent is left out with it


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    before, before_cpu = _startup["seconds"], _startup["cpu"]
    parts = dict(_parts)
    began, cpu = time.perf_counter(), time.process_time()
    yield
    _tests.append(
        {
            "name": item.name,
            "seconds": time.perf_counter() - began,
            "startup": _startup["seconds"] - before,
            "cpu": time.process_time() - cpu - (_startup["cpu"] - before_cpu),
            "memory": on_memory(item),
            **{f"{part}_cpu": _parts[part] - parts[part] for part in _parts},
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
