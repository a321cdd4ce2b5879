# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""The rules of the RayCluster webhooks, called directly (ray_operator.webhook.v1).

tests/webhook/ has the same rules called by a real API server.
"""

from __future__ import annotations

from decimal import Decimal

import opgen.api as op
import pytest
from opgen import runtime as rt
from opgen.api import ObjectMeta
from opgen.api.k8s import ResourceQuota, ResourceQuotaSpec

from ray_operator.api.v1.raycluster_types import (
    RayCluster,
    RayClusterSpec,
    UpscalingMode,
)
from ray_operator.api.v1alpha1 import raycluster_types as v1alpha1
from ray_operator.webhook.v1.raycluster_webhook import (
    RayClusterV1alpha1Conversion,
    check_quota,
    deprecations,
    fill_images,
    keep_total,
    pod_needs,
)


def template(image: str | None = None, **requests: str) -> dict[str, object]:
    container: dict[str, object] = {"name": "ray"}
    if image:
        container["image"] = image
    if requests:
        container["resources"] = {"requests": requests}
    return {
        "spec": {"containers": [container, {"name": "sidecar", "image": "busybox"}]}
    }


def spec(**fields: object) -> RayClusterSpec:
    return RayClusterSpec.model_validate(fields)


def images(value: RayClusterSpec) -> list[str | None]:
    templates = [value.head_group.template if value.head_group else None]
    templates += [g.template for g in value.worker_groups]
    return [t.spec.containers[0].image if t and t.spec else None for t in templates]


def test_ray_containers_without_an_image_get_the_cluster_image() -> None:
    value = spec(
        image="rayproject/ray:2.9.0",
        headGroup={"template": template()},
        workerGroups=[
            {"groupName": "cpu", "template": template()},
            {"groupName": "gpu", "template": template("rayproject/ray-ml:2.9.0-gpu")},
            {"groupName": "bare"},
        ],
    )
    fill_images(value, None)
    assert images(value) == [
        "rayproject/ray:2.9.0",
        "rayproject/ray:2.9.0",
        "rayproject/ray-ml:2.9.0-gpu",
        None,  # no template: the reconciler builds its container with spec.image
    ]
    # Only the Ray container (the first) takes the default.
    assert (
        value.head_group
        and value.head_group.template
        and value.head_group.template.spec
    )
    assert value.head_group.template.spec.containers[1].image == "busybox"


def test_a_container_on_the_old_default_follows_a_new_one() -> None:
    value = spec(
        image="rayproject/ray:2.9.0-py310",
        workerGroups=[
            {"groupName": "cpu", "template": template("rayproject/ray:2.9.0")},
            {"groupName": "gpu", "template": template("rayproject/ray-ml:2.9.0-gpu")},
        ],
    )
    fill_images(value, "rayproject/ray:2.9.0")
    assert images(value)[1:] == [
        "rayproject/ray:2.9.0-py310",
        "rayproject/ray-ml:2.9.0-gpu",  # pinned: not the old default
    ]


def groups(**replicas: int) -> list[dict[str, object]]:
    return [{"groupName": name, "replicas": n} for name, n in replicas.items()]


def test_an_unset_total_becomes_the_sum_of_the_groups() -> None:
    value = spec(image="ray", workerGroups=groups(a=2, b=1))
    keep_total(value, None)
    assert value.worker_replicas == 3
    flat = spec(image="ray")
    keep_total(flat, None)
    assert flat.worker_replicas == 0


def test_editing_the_groups_moves_the_total_with_them() -> None:
    # kubectl scale left workerReplicas at 7 over groups of 2 + 1; the user
    # edits group a to 4 and leaves workerReplicas alone: the groups say 5.
    old = spec(image="ray", workerReplicas=7, workerGroups=groups(a=2, b=1))
    edited = spec(image="ray", workerReplicas=7, workerGroups=groups(a=4, b=1))
    keep_total(edited, old)
    assert edited.worker_replicas == 5


def test_a_total_given_with_the_edit_or_alone_is_kept() -> None:
    old = spec(image="ray", workerReplicas=7, workerGroups=groups(a=2, b=1))
    both = spec(image="ray", workerReplicas=9, workerGroups=groups(a=4, b=1))
    keep_total(both, old)
    assert both.worker_replicas == 9
    scaled = spec(image="ray", workerReplicas=3, workerGroups=groups(a=2, b=1))
    keep_total(scaled, old)
    assert scaled.worker_replicas == 3
    unrelated = spec(image="other", workerReplicas=7, workerGroups=groups(a=2, b=1))
    keep_total(unrelated, old)
    assert unrelated.worker_replicas == 7


def cluster(value: RayClusterSpec) -> RayCluster:
    return RayCluster(
        metadata=op.ObjectMeta(name="my-ray", namespace="prod"), spec=value
    )


def quota(**hard: str) -> ResourceQuota:
    return ResourceQuota(
        metadata=ObjectMeta(name="team", namespace="prod"),
        spec=ResourceQuotaSpec(hard=hard),
    )


GPU = {"limits": {"nvidia.com/gpu": "1"}, "requests": {"cpu": "4"}}


def gpu_groups(workers: int) -> RayClusterSpec:
    return spec(
        image="ray",
        workerReplicas=workers,
        headGroup={"template": template(cpu="500m")},
        workerGroups=[
            {
                "groupName": "gpu",
                "replicas": 2,
                "maxReplicas": 8,
                "template": {
                    "spec": {"containers": [{"name": "ray", "resources": GPU}]}
                },
            }
        ],
    )


def test_what_the_pods_need_counts_every_pod_at_its_replicas() -> None:
    needs = pod_needs(cluster(gpu_groups(3)))
    assert needs["pods"] == needs["count/pods"] == 4
    assert needs["requests.cpu"] == needs["cpu"] == Decimal("12.5")
    # An extended resource's request defaults to its limit.
    assert needs["limits.nvidia.com/gpu"] == needs["requests.nvidia.com/gpu"] == 3


def test_a_cluster_its_quota_cannot_hold_is_refused() -> None:
    with pytest.raises(rt.webhook.Denied) as refused:
        check_quota(cluster(gpu_groups(5)), quota(**{"requests.nvidia.com/gpu": "4"}))
    assert str(refused.value) == (
        "the cluster needs requests.nvidia.com/gpu=5 (head and 5 workers);"
        " ResourceQuota team allows 4"
    )
    with pytest.raises(rt.webhook.Denied, match="needs pods=6"):
        check_quota(cluster(gpu_groups(5)), quota(pods="5"))


def test_a_cluster_within_its_quota_passes() -> None:
    check_quota(cluster(gpu_groups(4)), quota(**{"requests.nvidia.com/gpu": "4"}))
    check_quota(cluster(gpu_groups(4)), quota(cpu="20", memory="1Ti", services="1"))


def test_the_deprecated_upscaling_mode_is_warned_about() -> None:
    assert deprecations(spec(image="ray", upscalingMode="Aggressive")) == [
        "spec.upscalingMode: Aggressive is deprecated, an alias for Default;"
        " set Default"
    ]
    assert (
        deprecations(spec(image="ray", upscalingMode=UpscalingMode.CONSERVATIVE)) == []
    )


def test_conversion_maps_the_flat_fields_both_ways() -> None:
    converter = RayClusterV1alpha1Conversion()
    old = v1alpha1.RayCluster.model_validate(
        {
            "apiVersion": "ray.io/v1alpha1",
            "kind": "RayCluster",
            "metadata": {"name": "my-ray", "namespace": "prod"},
            "spec": {
                "headReplicas": 1,
                "workerReplicas": 4,
                "image": "rayproject/ray:2.9.0",
            },
            "status": {"ready": True, "workerReady": 4},
        }
    )
    hub = converter.convert_to_hub(old)
    assert (hub.spec.head_replicas, hub.spec.worker_replicas, hub.spec.image) == (
        1,
        4,
        "rayproject/ray:2.9.0",
    )
    assert hub.status is not None and (hub.status.ready, hub.status.worker_ready) == (
        True,
        4,
    )
    assert converter.convert_from_hub(hub) == old
