# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""RayClusterReconciler against a real API server (envtest).

These tests check what stays true however `reconcile_spec` grows: the
finalizer is set; the status reports the generation it was computed from,
with exactly one of Ready, Progressing and Degraded True (and the sample is
never Degraded); a converged object costs no writes; deletion runs `cleanup`
and lets the object go. The last one runs the whole manager as it runs in a
cluster: as its ServiceAccount, with only the RBAC `opgen generate` wrote.

The objects come from the sample in config/samples/ray_v1_raycluster.yaml
(keep it valid as your spec grows). Add tests of your own logic next to these.
"""

from __future__ import annotations

from pathlib import Path

import opgen.api as op
import pytest
import yaml
from opgen import runtime as rt
from opgen.testing import ManagerAccount, eventually, running_manager

from ray_operator.api.v1.raycluster_types import RayCluster
from ray_operator.controller.raycluster_controller import (
    FINALIZER,
    RayClusterReconciler,
)
from ray_operator.main import setup_controllers

pytestmark = pytest.mark.envtest

SAMPLE = Path(__file__).parents[2] / "config/samples/ray_v1_raycluster.yaml"


def sample(name: str, namespace: str) -> RayCluster:
    """The sample RayCluster, renamed into `namespace`."""
    obj = RayCluster.model_validate(yaml.safe_load(SAMPLE.read_text()))
    obj.metadata = op.ObjectMeta(name=name, namespace=namespace)
    return obj


async def create_sample(client: rt.Client, namespace: str) -> rt.Request:
    """Create the sample as `raycluster-<namespace>`; the request that reconciles it."""
    name = f"raycluster-{namespace}"
    await client.create(sample(name, namespace))
    return rt.Request(namespace=namespace, name=name)


async def fetch(client: rt.Client, request: rt.Request) -> RayCluster:
    """The object as the API server has it now."""
    return await client.uncached.get(RayCluster, request.name, request.namespace)


def assert_reported(obj: RayCluster) -> None:
    """What a reconcile leaves in the status, whatever `reconcile_spec` decided."""
    assert obj.status is not None
    assert obj.status.observed_generation == obj.metadata.generation
    conditions = {c.type: c.status for c in obj.status.conditions}
    assert sorted(conditions) == ["Degraded", "Progressing", "Ready"]
    assert list(conditions.values()).count("True") == 1, obj.status.conditions
    assert conditions["Degraded"] == "False", obj.status.conditions


async def test_reconcile_sets_the_finalizer_and_reports_the_generation(
    client: rt.Client, namespace: str
) -> None:
    request = await create_sample(client, namespace)

    await RayClusterReconciler(client).reconcile(request)

    obj = await fetch(client, request)
    assert FINALIZER in (obj.metadata.finalizers or [])
    assert_reported(obj)


async def test_a_converged_object_costs_no_writes(
    client: rt.Client, namespace: str
) -> None:
    """Level-triggered and idempotent: a few reconciles converge, then one writes nothing."""
    request = await create_sample(client, namespace)
    reconciler = RayClusterReconciler(client)

    versions = [(await fetch(client, request)).metadata.resource_version]
    for _ in range(5):
        await reconciler.reconcile(request)
        versions.append((await fetch(client, request)).metadata.resource_version)
        if versions[-1] == versions[-2]:
            break
    assert versions[-1] == versions[-2], f"every reconcile wrote: {versions}"


async def test_deletion_runs_cleanup_and_releases_the_finalizer(
    client: rt.Client, namespace: str
) -> None:
    request = await create_sample(client, namespace)
    reconciler = RayClusterReconciler(client)
    await reconciler.reconcile(request)

    await client.delete(await fetch(client, request))
    await reconciler.reconcile(request)

    with pytest.raises(rt.NotFound):
        await fetch(client, request)


async def test_the_manager_reconciles_the_sample_as_its_service_account(
    manager_account: ManagerAccount, client: rt.Client, namespace: str
) -> None:
    """The manager as deployed: every controller of main.py, as the ServiceAccount
    config/rbac binds to config/rbac/role.yaml; a missing `op.rbac` fails here."""
    manager = rt.Manager.from_kubeconfig(
        manager_account.kubeconfig_path,
        options=rt.ManagerOptions(
            metrics=rt.MetricsOptions(bind_address="0"),
            probes=rt.ProbeOptions(bind_address="0"),
            cache=rt.CacheOptions(sync_timeout=30),
        ),
    )
    setup_controllers(manager)

    async with running_manager(manager):
        request = await create_sample(client, namespace)

        async def reconciled() -> RayCluster | None:
            obj = await fetch(client, request)
            done = obj.status is not None and obj.status.observed_generation is not None
            return obj if done else None

        obj = await eventually(
            reconciled, message=f"the manager to reconcile {request}"
        )

    assert FINALIZER in (obj.metadata.finalizers or [])
    assert_reported(obj)
