"""The memory server's tests: a fresh server per test, and envtest with the same CRDs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from opgen.testing import Environment
from opgen.testing.memory import MemoryApiServer
from tests.testing.memory.crds import generated_crds, served_kinds


@pytest.fixture(scope="package")
def envtest(envtest: Environment) -> Iterator[Environment]:
    """A control plane of these tests' own (started as the session's is), with the
    test kinds' CRDs installed and no kube-controller-manager: the memory server
    does no garbage collection yet, and once another test has given the session's
    control plane a controller manager, it finishes foreground and orphan
    deletions that the scenarios compare."""
    own = Environment().start()
    try:
        own.install_crds(generated_crds())
        yield own
    finally:
        own.stop()


@pytest.fixture
def memory_server() -> MemoryApiServer:
    """A memory server serving the test kinds, with namespace `default`."""
    return MemoryApiServer(served_kinds())
