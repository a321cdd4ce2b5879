"""Fixtures for the runtime tests: one control plane per session, a client and a namespace per test."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import lightkube
import pytest
from lightkube.config.kubeconfig import KubeConfig
from lightkube.models.meta_v1 import ObjectMeta
from lightkube.resources.core_v1 import Namespace

import opgen.api
from tests.runtime import standin
from tests.runtime._controlplane import ASSETS, ControlPlane

CRDS = Path(__file__).parent / "crds"

# Until the engine's opgen.api is on main: give it the two names the runtime reads.
for _name in ("resource_info", "Condition"):
    if not hasattr(opgen.api, _name):
        setattr(opgen.api, _name, getattr(standin, _name))


@pytest.fixture(scope="session")
def envtest() -> Iterator[ControlPlane]:
    if not (ASSETS / "kube-apiserver").exists():
        pytest.skip(f"no envtest binaries in {ASSETS}")
    plane = ControlPlane().start()
    try:
        plane.install_crds([CRDS / "test.opgen.dev.yaml"])
        yield plane
    finally:
        plane.stop()


def make_client(envtest: ControlPlane) -> lightkube.AsyncClient:
    return lightkube.AsyncClient(KubeConfig.from_dict(envtest.kubeconfig))


@pytest.fixture
async def kube_client(envtest: ControlPlane) -> AsyncIterator[lightkube.AsyncClient]:
    client = make_client(envtest)
    yield client
    await client.close()


@pytest.fixture
async def namespace(kube_client: lightkube.AsyncClient) -> AsyncIterator[str]:
    name = f"rt-{secrets.token_hex(4)}"
    await kube_client.create(Namespace(metadata=ObjectMeta(name=name)))
    yield name
    await kube_client.delete(Namespace, name)
