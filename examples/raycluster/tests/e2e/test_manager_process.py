# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""The manager as it runs in a cluster: `python -m ray_operator`, in a process of its own.

It runs as its ServiceAccount, with only the RBAC `opgen generate` wrote
(`config/rbac`, as `config/default` deploys it), with leader election on,
and serves its own webhooks over TLS: the API server calls it for defaulting,
validation and conversion, trusting the CA the webhook configurations carry.
The session's control plane already has webhooks served by the test process,
so this module starts a control plane of its own, whose webhook
configurations and CRD conversion point at the manager's port.

Beside tests/e2e/test_manager.py (the scaffold's: config/default applied,
metrics, every sample reconciled), and like it marked `e2e`: `make test`
leaves it out, `make test-e2e` runs it on the built wheel as the image
installs it (`E2E_MANAGER`); without `E2E_MANAGER` it runs `python -m
ray_operator` from this checkout.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import pytest
from opgen import runtime as rt
from opgen.api.k8s import ConfigMap, Deployment, Lease
from opgen.testing import (
    Environment,
    ManagerAccount,
    WebhookInstallOptions,
    e2e,
    eventually,
)
from opgen.testing.e2e import kubectl
from rayclusters import (
    ROOT,
    conditions,
    deployments,
    fetch,
    flat_sample,
    mark_all_ready,
    sample,
)

from ray_operator.controller.archive import record_name
from ray_operator.controller.raycluster_controller import FINALIZER

pytestmark = pytest.mark.e2e

LEASE = "f40ac7d3.io"
"""The leader-election Lease main.py names."""
NAME = "my-ray"


@dataclass(frozen=True)
class Deployed:
    """A control plane of its own, and the manager process serving it."""

    environment: Environment
    account: ManagerAccount
    manager: e2e.ManagerProcess


@pytest.fixture(scope="module")
def deployed(envtest: Environment) -> Iterator[Deployed]:
    """`python -m ray_operator --leader-elect` as its ServiceAccount, serving its
    webhooks on the port this control plane's configurations call; ready."""
    port = e2e.free_port()
    environment = Environment(
        crd_paths=[ROOT / "config/crd/bases"],
        webhook_install_options=WebhookInstallOptions(
            paths=[ROOT / "config/webhook"], local_port=port
        ),
        use_existing_cluster=False,
    ).start()
    try:
        account = environment.deploy_rbac(ROOT)
        local = environment.webhooks
        assert local is not None
        with e2e.manager_process(
            "ray_operator",
            account.kubeconfig_path,
            cwd=ROOT,
            args=["--leader-elect", f"--webhook-cert-path={local.cert_dir}"],
            metrics=False,
            webhook_port=port,
        ) as manager:
            yield Deployed(environment, account, manager)
    finally:
        environment.stop()


@pytest.fixture
async def admin(deployed: Deployed) -> AsyncIterator[rt.Client]:
    """The admin of the manager's control plane (the tests' hands: kubectl, a kubelet)."""
    async with rt.Client.from_kubeconfig(
        deployed.environment.kubeconfig_path
    ) as client:
        yield client


async def test_the_manager_process_runs_a_raycluster_end_to_end(
    deployed: Deployed, admin: rt.Client
) -> None:
    assert deployed.manager.running(), "the manager exited"
    deployed.environment.wait_for_webhooks()
    namespace = deployed.account.namespace  # where the manager keeps its records
    kubeconfig = deployed.environment.kubeconfig_path

    # Created as the seed writes it: ray.io/v1alpha1, converted by the process.
    await admin.create(flat_sample("flat", namespace))
    flat = await fetch(admin, "flat", namespace)
    assert (flat.spec.head_replicas, flat.spec.worker_replicas) == (1, 4)

    # The v1 sample; the process's defaulter fills the images and the total.
    await admin.create(sample(NAME, namespace))

    async def made() -> dict[str, Deployment] | None:
        found = await deployments(admin, await fetch(admin, NAME, namespace))
        return found if len(found) == 3 else None

    found = await eventually(made, message="the manager to make the Deployments")
    await mark_all_ready(
        admin, await fetch(admin, NAME, namespace)
    )  # the kubelet's part
    assert {
        str(d.metadata.name): d.spec.template.spec.containers[0].image
        for d in found.values()
        if d.metadata and d.spec and d.spec.template.spec
    } == dict.fromkeys(
        ["my-ray-head", "my-ray-worker-small", "my-ray-worker-large"],
        "rayproject/ray:2.9.0",
    )

    async def is_ready() -> bool:
        obj = await fetch(admin, NAME, namespace)
        return obj.status is not None and obj.status.ready

    await eventually(is_ready, message="the cluster to be ready")
    obj = await fetch(admin, NAME, namespace)
    assert obj.status is not None
    assert obj.status.observed_generation == obj.metadata.generation
    assert conditions(obj)["Ready"] == ("True", "AllPodsReady")
    assert FINALIZER in (obj.metadata.finalizers or [])

    kubectl(kubeconfig, "scale", "rayc", NAME, "--replicas=5", "-n", namespace)

    async def scaled() -> bool:
        found = await deployments(admin, obj)
        found.pop("my-ray-head")
        workers = [d.spec.replicas or 0 for d in found.values() if d.spec]
        return sum(workers) == 5

    await eventually(scaled, message="the worker Deployments to follow the scale")

    # Read back through the process's conversion, in the old version.
    old = json.loads(
        kubectl(
            kubeconfig,
            "get",
            "rayclusters.v1alpha1.ray.io",
            NAME,
            "-n",
            namespace,
            "-o",
            "json",
        ).stdout
    )
    assert (old["apiVersion"], old["spec"]["workerReplicas"]) == ("ray.io/v1alpha1", 5)

    # Deleted: the cleanup writes its record, and the finalizer lets it go.
    await admin.delete(obj)

    async def gone() -> bool:
        try:
            await fetch(admin, NAME, namespace)
        except rt.NotFound:
            return True
        return False

    await eventually(gone, message="the manager to release the finalizer")
    record = await admin.uncached.get(ConfigMap, record_name(obj), namespace)
    assert record.data is not None and record.data["name"] == NAME

    lease = await admin.uncached.get(Lease, LEASE, namespace)
    assert lease.spec is not None and lease.spec.holder_identity

    manager = deployed.manager
    assert manager.stop() == 0, manager.output
    assert "serving webhooks" in manager.output, manager.output
    assert "Forbidden" not in manager.output, manager.output
