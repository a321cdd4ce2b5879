# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""RayClusterReconciler against a real API server (envtest).

Each test creates RayClusters through the API server (so through the
project's webhooks, which opgen's pytest plugin serves for the session),
calls `reconcile` as the manager would after each change, and reads the
results back. envtest has no kubelet and no Deployment controller: a test
marks Deployments ready itself (`opgen.testing.mark_ready`). The manager in a
process of its own is in tests/e2e/.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator

import pytest
from opgen import runtime as rt
from opgen.api import ObjectMeta
from opgen.api.k8s import (
    ConfigMap,
    Container,
    Deployment,
    DeploymentSpec,
    LabelSelector,
    Namespace,
    PodSpec,
    PodTemplateSpec,
    Service,
)
from opgen.testing import Environment, eventually, running_manager
from opgen.testing.e2e import kubectl
from rayclusters import (
    conditions,
    deployment,
    deployments,
    fetch,
    flat_sample,
    image_of,
    mark_all_ready,
    sample,
)

from ray_operator.api.v1.raycluster_types import RayCluster
from ray_operator.controller.archive import record_name
from ray_operator.controller.raycluster_controller import (
    FINALIZER,
    RayClusterReconciler,
)

pytestmark = pytest.mark.envtest

NAME = "my-ray"
SAMPLE_REPLICAS = {"my-ray-head": 1, "my-ray-worker-small": 2, "my-ray-worker-large": 1}
"""The sample's Deployments and their replicas (its groups' replicas, 2 and 1)."""


@pytest.fixture
async def archive(client: rt.Client, namespace: str) -> AsyncIterator[str]:
    """A namespace for the records `cleanup` writes (the operator's, when deployed)."""
    name = f"{namespace}-archive"
    await client.create(Namespace(metadata=ObjectMeta(name=name)))
    yield name
    await client.delete(Namespace(metadata=ObjectMeta(name=name)))


@pytest.fixture
def reconciler(client: rt.Client, archive: str) -> RayClusterReconciler:
    return RayClusterReconciler(client, archive_namespace=archive)


@pytest.fixture(autouse=True)
async def released(
    client: rt.Client, reconciler: RayClusterReconciler, namespace: str
) -> AsyncIterator[None]:
    """After each test, its RayClusters deleted and let go as the operator would, so
    that no finalizer holds the namespace's deletion, and no manager started later
    in the session (tests/e2e) meets them in a namespace being terminated."""
    yield
    for obj in await client.uncached.list(RayCluster, namespace=namespace):
        with contextlib.suppress(rt.NotFound):
            await client.delete(obj)
        await reconciler.reconcile(
            rt.Request(namespace=namespace, name=str(obj.metadata.name))
        )


async def created(
    client: rt.Client, reconciler: RayClusterReconciler, namespace: str
) -> rt.Request:
    """The sample, created as `my-ray` and reconciled once."""
    await client.create(sample(NAME, namespace))
    request = rt.Request(namespace=namespace, name=NAME)
    await reconciler.reconcile(request)
    return request


async def converged(
    client: rt.Client, reconciler: RayClusterReconciler, request: rt.Request
) -> RayCluster:
    """Mark every Deployment ready and reconcile: the cluster as it then is."""
    obj = await fetch(client, request.name, str(request.namespace))
    await mark_all_ready(client, obj)
    await reconciler.reconcile(request)
    return await fetch(client, request.name, str(request.namespace))


def replicas(found: dict[str, Deployment]) -> dict[str, int]:
    return {name: d.spec.replicas or 0 for name, d in found.items() if d.spec}


async def test_a_new_cluster_gets_its_head_service_and_worker_deployments(
    client: rt.Client, reconciler: RayClusterReconciler, namespace: str
) -> None:
    request = await created(client, reconciler, namespace)
    obj = await fetch(client, NAME, namespace)

    found = await deployments(client, obj)
    assert replicas(found) == SAMPLE_REPLICAS
    service = await client.uncached.get(Service, "my-ray-head", namespace)
    for child in (*found.values(), service):
        assert rt.owner.controller_of(child) == {
            "apiVersion": "ray.io/v1",
            "kind": "RayCluster",
            "name": NAME,
            "uid": obj.metadata.uid,
            "controller": True,
            "blockOwnerDeletion": True,
        }
    # The defaulting webhook gave each Ray container the cluster's image.
    assert {name: image_of(d) for name, d in found.items()} == dict.fromkeys(
        found, "rayproject/ray:2.9.0"
    )
    small = found["my-ray-worker-small"]
    assert small.spec is not None and small.spec.template.spec is not None
    ray = small.spec.template.spec.containers[0]
    assert ray.resources is not None
    assert ray.resources.requests == {"cpu": "1", "memory": "2Gi"}
    assert small.spec.template.metadata is not None
    assert (small.spec.template.metadata.labels or {})["team"] == "ml"
    assert service.spec is not None
    assert [p.port for p in service.spec.ports or ()] == [6379, 8265, 10001]

    assert obj.spec.worker_replicas == 3  # the webhook's total of the groups
    assert obj.status is not None
    assert obj.status.selector == "ray.io/cluster=my-ray,ray.io/node-type=worker"
    selected = await client.uncached.list(
        Deployment, namespace=namespace, labels=obj.status.selector
    )
    assert sorted(str(d.metadata.name) for d in selected if d.metadata) == [
        "my-ray-worker-large",
        "my-ray-worker-small",
    ]
    assert FINALIZER in (obj.metadata.finalizers or [])
    assert conditions(obj)["Progressing"] == ("True", "RollingOut")
    assert request.name == NAME


async def test_ready_deployments_make_the_cluster_ready(
    client: rt.Client, reconciler: RayClusterReconciler, namespace: str
) -> None:
    request = await created(client, reconciler, namespace)

    obj = await converged(client, reconciler, request)

    assert obj.status is not None
    assert (obj.status.ready, obj.status.head_ready, obj.status.worker_ready) == (
        True,
        True,
        3,
    )
    assert [
        (g.group_name, g.replicas, g.ready_replicas) for g in obj.status.worker_groups
    ] == [
        ("small", 2, 2),
        ("large", 1, 1),
    ]
    assert conditions(obj) == {
        "Ready": ("True", "AllPodsReady"),
        "Progressing": ("False", "AllPodsReady"),
        "Degraded": ("False", "AllPodsReady"),
        "Suspended": ("False", "Running"),
    }
    assert obj.status.observed_generation == obj.metadata.generation


async def test_kubectl_scale_sets_the_total_and_the_deployments_follow(
    client: rt.Client,
    reconciler: RayClusterReconciler,
    namespace: str,
    envtest: Environment,
) -> None:
    request = await created(client, reconciler, namespace)
    await converged(client, reconciler, request)

    kubectl(
        envtest.kubeconfig_path, "scale", "rayc", NAME, "--replicas=5", "-n", namespace
    )
    obj = await fetch(client, NAME, namespace)
    assert obj.spec.worker_replicas == 5
    await reconciler.reconcile(request)

    # Two more over small (2, up to 8: room 6) and large (1, up to 4: room 3):
    # shares 4/3 and 2/3 start at 1 and 0; the last ties (6/2 = 3/1) and goes
    # to the earlier group.
    assert replicas(await deployments(client, obj)) == {
        "my-ray-head": 1,
        "my-ray-worker-small": 4,
        "my-ray-worker-large": 1,
    }
    obj = await converged(client, reconciler, request)
    assert obj.status is not None and obj.status.worker_ready == 5
    scale = json.loads(
        kubectl(
            envtest.kubeconfig_path,
            "get",
            "--raw",
            f"/apis/ray.io/v1/namespaces/{namespace}/rayclusters/{NAME}/scale",
        ).stdout
    )
    assert scale["spec"] == {"replicas": 5}
    assert scale["status"] == {
        "replicas": 5,
        "selector": "ray.io/cluster=my-ray,ray.io/node-type=worker",
    }


async def test_a_deleted_worker_deployment_is_recreated(
    client: rt.Client, reconciler: RayClusterReconciler, namespace: str
) -> None:
    request = await created(client, reconciler, namespace)
    gone = await deployment(client, "my-ray-worker-small", namespace)
    await client.delete(gone)

    await reconciler.reconcile(request)

    again = await deployment(client, "my-ray-worker-small", namespace)
    assert again.metadata is not None and gone.metadata is not None
    assert again.metadata.uid != gone.metadata.uid
    assert again.spec is not None and again.spec.replicas == 2


async def test_a_new_image_rolls_out_to_every_deployment(
    client: rt.Client, reconciler: RayClusterReconciler, namespace: str
) -> None:
    request = await created(client, reconciler, namespace)
    before = await converged(client, reconciler, request)

    await client.patch(before, {"spec": {"image": "rayproject/ray:2.9.3"}})
    await reconciler.reconcile(request)

    obj = await fetch(client, NAME, namespace)
    found = await deployments(client, obj)
    assert {image_of(d) for d in found.values()} == {"rayproject/ray:2.9.3"}
    assert conditions(obj)["Progressing"] == ("True", "RollingOut")
    assert obj.status is not None and not obj.status.ready
    obj = await converged(client, reconciler, request)
    assert conditions(obj)["Ready"] == ("True", "AllPodsReady")


async def test_a_template_change_rolls_out_and_a_service_change_is_applied(
    client: rt.Client, reconciler: RayClusterReconciler, namespace: str
) -> None:
    request = await created(client, reconciler, namespace)
    obj = await converged(client, reconciler, request)
    head = await deployment(client, "my-ray-head", namespace)

    patch = {
        "spec": {
            "headGroup": {
                "serviceType": "NodePort",
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "name": "ray-head",
                                "image": "rayproject/ray:2.9.0",
                                "env": [{"name": "RAY_LOG", "value": "debug"}],
                            }
                        ]
                    }
                },
            }
        }
    }
    await client.patch(obj, patch)
    await reconciler.reconcile(request)

    rolled = await deployment(client, "my-ray-head", namespace)
    assert rolled.metadata and head.metadata
    assert (rolled.metadata.generation or 0) > (head.metadata.generation or 0)
    assert rolled.spec is not None and rolled.spec.template.spec is not None
    ray = rolled.spec.template.spec.containers[0]
    assert [(e.name, e.value) for e in ray.env or ()] == [("RAY_LOG", "debug")]
    # The template no longer asks for resources: the apply took them away.
    assert ray.resources is None or not ray.resources.requests
    service = await client.uncached.get(Service, "my-ray-head", namespace)
    assert service.spec is not None and service.spec.type == "NodePort"


async def test_suspend_scales_everything_to_zero_and_resume_restores_it(
    client: rt.Client, reconciler: RayClusterReconciler, namespace: str
) -> None:
    request = await created(client, reconciler, namespace)
    obj = await converged(client, reconciler, request)

    await client.patch(obj, {"spec": {"suspend": True}})
    await reconciler.reconcile(request)
    obj = await fetch(client, NAME, namespace)
    assert set(replicas(await deployments(client, obj)).values()) == {0}
    assert await client.uncached.get(Service, "my-ray-head", namespace)
    assert conditions(obj)["Suspended"] == ("True", "Suspended")
    assert conditions(obj)["Progressing"] == ("True", "Suspending")

    obj = await converged(client, reconciler, request)  # the pods are gone
    assert conditions(obj) == {
        "Ready": ("False", "Suspended"),
        "Progressing": ("False", "Suspended"),
        "Degraded": ("False", "Suspended"),
        "Suspended": ("True", "Suspended"),
    }
    assert obj.status is not None and not obj.status.ready

    await client.patch(obj, {"spec": {"suspend": False}})
    await reconciler.reconcile(request)
    obj = await fetch(client, NAME, namespace)
    assert replicas(await deployments(client, obj)) == SAMPLE_REPLICAS
    obj = await converged(client, reconciler, request)
    assert conditions(obj)["Ready"] == ("True", "AllPodsReady")
    assert conditions(obj)["Suspended"] == ("False", "Running")


async def test_a_group_taken_out_of_the_spec_loses_its_deployment(
    client: rt.Client, reconciler: RayClusterReconciler, namespace: str
) -> None:
    request = await created(client, reconciler, namespace)
    obj = await fetch(client, NAME, namespace)
    patch = [{"op": "remove", "path": "/spec/workerGroups/1"}]
    await client.patch(obj, patch, patch_type="json")

    await reconciler.reconcile(request)

    obj = await fetch(client, NAME, namespace)
    assert obj.spec.worker_replicas == 2  # the webhook moved the total with the groups
    assert replicas(await deployments(client, obj)) == {
        "my-ray-head": 1,
        "my-ray-worker-small": 2,
    }


async def test_a_name_another_object_holds_makes_the_cluster_degraded(
    client: rt.Client, reconciler: RayClusterReconciler, namespace: str
) -> None:
    squatter = Deployment(
        metadata=ObjectMeta(name="my-ray-head", namespace=namespace),
        spec=DeploymentSpec(
            selector=LabelSelector(match_labels={"app": "other"}),
            template=PodTemplateSpec(
                metadata=ObjectMeta(labels={"app": "other"}),
                spec=PodSpec(containers=[Container(name="app", image="busybox")]),
            ),
        ),
    )
    await client.create(squatter)

    await created(client, reconciler, namespace)

    obj = await fetch(client, NAME, namespace)
    assert conditions(obj)["Degraded"] == ("True", "ChildConflict")
    assert obj.status is not None
    degraded = next(c for c in obj.status.conditions if c.type == "Degraded")
    assert degraded.message == (
        "Deployment my-ray-head exists and is not this RayCluster's: delete or rename it"
    )
    assert (
        rt.owner.controller_of(await deployment(client, "my-ray-head", namespace))
        is None
    )


async def test_a_converged_cluster_costs_no_writes(
    client: rt.Client, reconciler: RayClusterReconciler, namespace: str
) -> None:
    request = await created(client, reconciler, namespace)
    await converged(client, reconciler, request)
    writes = client.rest.writes

    for _ in range(3):
        assert await reconciler.reconcile(request) == rt.Result()

    assert client.rest.writes == writes


async def test_a_flat_v1alpha1_cluster_runs_in_one_group(
    client: rt.Client, reconciler: RayClusterReconciler, namespace: str
) -> None:
    await client.create(flat_sample(NAME, namespace))
    request = rt.Request(namespace=namespace, name=NAME)

    await reconciler.reconcile(request)

    obj = await fetch(client, NAME, namespace)
    found = await deployments(client, obj)
    assert replicas(found) == {"my-ray-head": 1, "my-ray-worker-workers": 4}
    assert {image_of(d) for d in found.values()} == {"rayproject/ray:2.9.0"}


async def test_deletion_archives_the_cluster_and_the_children_are_collected(
    client: rt.Client,
    reconciler: RayClusterReconciler,
    namespace: str,
    archive: str,
    envtest_controller_manager: Environment,
) -> None:
    request = await created(client, reconciler, namespace)
    obj = await converged(client, reconciler, request)

    await client.delete(obj)
    await reconciler.reconcile(request)

    with pytest.raises(rt.NotFound):
        await fetch(client, NAME, namespace)
    record = await client.uncached.get(ConfigMap, record_name(obj), archive)
    assert record.data is not None
    assert (record.data["namespace"], record.data["name"]) == (namespace, NAME)
    assert json.loads(record.data["spec.json"])["workerReplicas"] == 3
    assert record.data["deletedAt"]

    async def collected() -> bool:
        left = await client.uncached.list(Deployment, namespace=namespace)
        services = await client.uncached.list(Service, namespace=namespace)
        return not left and not services

    await eventually(collected, message="the garbage collector to delete the children")


async def test_cleanup_is_retried_until_it_can_write_its_record(
    client: rt.Client, namespace: str
) -> None:
    missing = f"{namespace}-later"
    reconciler = RayClusterReconciler(client, archive_namespace=missing)
    request = await created(client, reconciler, namespace)
    await client.delete(await fetch(client, NAME, namespace))

    with pytest.raises(rt.NotFound):  # the archive namespace does not exist yet
        await reconciler.reconcile(request)
    held = await fetch(client, NAME, namespace)
    assert held.metadata.finalizers == [FINALIZER]

    await client.create(Namespace(metadata=ObjectMeta(name=missing)))
    try:
        await reconciler.reconcile(request)
        with pytest.raises(rt.NotFound):
            await fetch(client, NAME, namespace)
        assert await client.uncached.get(ConfigMap, record_name(held), missing)
    finally:
        await client.delete(Namespace(metadata=ObjectMeta(name=missing)))


async def test_a_converged_cluster_costs_no_writes_over_a_resync(
    envtest: Environment, client: rt.Client, namespace: str, archive: str
) -> None:
    """The manager, with a resync every second: every RayCluster is reconciled
    again and again, and once converged none of that writes."""
    manager = rt.Manager.from_kubeconfig(
        envtest.kubeconfig_path,
        options=rt.ManagerOptions(
            metrics=rt.MetricsOptions(bind_address="0"),
            probes=rt.ProbeOptions(bind_address="0"),
            cache=rt.CacheOptions(namespaces=[namespace]),
        ),
    )
    reconciler = Counting(manager.client, archive_namespace=archive)
    reconciler.setup(manager, options=rt.ControllerOptions(resync_period=1.0))
    async with running_manager(manager):
        await client.create(sample(NAME, namespace))

        async def children_made() -> bool:
            obj = await fetch(client, NAME, namespace)
            return len(await deployments(client, obj)) == 3

        await eventually(children_made, message="the manager to make the Deployments")
        await mark_all_ready(client, await fetch(client, NAME, namespace))

        async def ready() -> bool:
            obj = await fetch(client, NAME, namespace)
            return obj.status is not None and obj.status.ready

        await eventually(ready, message="the cluster to be ready")
        calls, writes = reconciler.calls, manager.rest.writes
        await eventually(lambda: reconciler.calls >= calls + 3, message="three resyncs")
        assert manager.rest.writes == writes


class Counting(RayClusterReconciler):
    """The reconciler, counting its calls."""

    calls = 0

    async def reconcile(self, request: rt.Request) -> rt.Result:
        self.calls += 1
        return await super().reconcile(request)
