"""The memory server's tests: a fresh server per test, and envtest with the same CRDs."""

from __future__ import annotations

import pytest

from opgen.testing import Environment
from opgen.testing.memory import MemoryApiServer
from tests.testing.memory.crds import generated_crds, served_kinds


@pytest.fixture(scope="session")
def envtest(envtest: Environment) -> Environment:
    """The plugin's session control plane with the test kinds' CRDs installed."""
    envtest.install_crds(generated_crds())
    return envtest


@pytest.fixture
def memory_server() -> MemoryApiServer:
    """A memory server serving the test kinds, with namespace `default`."""
    return MemoryApiServer(served_kinds())
