# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""Shared test set-up.

opgen's pytest plugin (installed with opgen) starts a real kube-apiserver and
etcd once per session and installs the CRDs from config/crd/bases. It provides
the fixtures `envtest` (the running environment: `.kubeconfig_path`,
`.install_crds(paths)`), `kube_client` (a lightkube AsyncClient) and
`namespace` (a fresh namespace per test). Run `opgen envtest use` once to
fetch or build the binaries.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from opgen import runtime as rt
from opgen.testing import Environment


@pytest.fixture
async def client(envtest: Environment) -> AsyncIterator[rt.Client]:
    """An opgen client for the envtest API server, without a cache: reads go
    straight to the server."""
    async with rt.Client.from_kubeconfig(envtest.kubeconfig_path) as client:
        yield client
