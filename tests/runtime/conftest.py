"""Runtime tests run on the envtest plugin's fixtures (`envtest`, `kube_client`, `namespace`).

`envtest` is extended here: the session's control plane, with the CRDs opgen
generates for the test kinds installed once.
"""

from __future__ import annotations

import pytest

from opgen.testing import Environment
from tests.runtime.crds import generated_crds


@pytest.fixture(scope="session")
def envtest(envtest: Environment) -> Environment:
    """The plugin's session control plane with the Widget and Gadget CRDs installed."""
    envtest.install_crds(generated_crds())
    return envtest
