"""The memory server's tests: a fresh server per test, and envtest with the same CRDs."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from opgen.testing import Environment
from opgen.testing.binaries import BinariesNotFound
from opgen.testing.memory import MemoryApiServer
from opgen.testing.plugin import envtest_required
from tests.testing.memory.crds import generated_crds, served_kinds


@pytest.fixture(scope="package")
def envtest(envtest: Environment) -> Iterator[Environment]:
    """A control plane of these tests' own (started as the session's is), with the
    test kinds' CRDs installed and no kube-controller-manager: the memory server
    does no garbage collection yet, and once another test has given the session's
    control plane a controller manager, it finishes foreground and orphan
    deletions that the scenarios compare (the memory server's collector is
    off for them: `memory_server`)."""
    own = Environment().start()
    try:
        own.install_crds(generated_crds())
        yield own
    finally:
        own.stop()


@pytest.fixture(scope="package")
def collecting_envtest(envtest: Environment) -> Iterator[Environment]:
    """Another control plane with the test kinds' CRDs and kube-controller-manager,
    whose garbage collector the collection scenarios compare with the memory
    server's (the CRDs are installed before it starts: it discovers resource
    types at start)."""
    try:
        own = Environment(controller_manager=True, crd_paths=generated_crds()).start()
    except BinariesNotFound as missing:
        if envtest_required(os.environ):
            pytest.fail(f"kube-controller-manager is needed: {missing}")
        pytest.skip(f"kube-controller-manager not found: {missing}")
    try:
        yield own
    finally:
        own.stop()


@pytest.fixture
def memory_server() -> MemoryApiServer:
    """A memory server serving the test kinds, with namespace `default`, and
    without garbage collection (as the agreement tests' envtest)."""
    return MemoryApiServer(served_kinds(), garbage_collection=False)


@pytest.fixture
def collecting_memory_server() -> MemoryApiServer:
    """A memory server serving the test kinds, collecting garbage."""
    return MemoryApiServer(served_kinds())
