"""Runtime tests run on the envtest plugin's fixtures (`envtest`, `client`, `namespace`).

`envtest` is extended here: the session's control plane, with the CRDs opgen
generates for the test kinds installed once. `rest` is the runtime's own REST
client for it, without a client-side rate limit.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from opgen import runtime as rt
from opgen.runtime.rest import RestClient
from opgen.testing import Environment
from tests.runtime.crds import generated_crds
from tests.runtime.typed_project import TypedProject, generate_project, imported


@pytest.fixture(scope="session")
def envtest(envtest: Environment) -> Environment:
    """The plugin's session control plane with the Widget and Gadget CRDs installed."""
    envtest.install_crds(generated_crds())
    return envtest


@pytest_asyncio.fixture
async def rest(envtest: Environment) -> AsyncIterator[RestClient]:
    """A REST client acting as the envtest admin (no rate limit), closed after the test."""
    client = RestClient.from_kubeconfig(envtest.kube_config(), rt.ClientOptions(qps=0))
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture(scope="session")
def typed_project_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated project with typed clients for a namespaced and a cluster-scoped kind."""
    return generate_project(tmp_path_factory.mktemp("typed-project"))


@pytest.fixture(scope="session")
def typed_project(
    typed_project_root: Path, envtest: Environment
) -> Iterator[TypedProject]:
    """The generated project, imported, with its generated CRDs installed."""
    envtest.install_crds([typed_project_root / "config" / "crd" / "bases"])
    with imported(typed_project_root) as project:
        yield project
