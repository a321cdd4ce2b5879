# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""The Deployments and Service built from a RayCluster (ray_operator.controller.children)."""

from __future__ import annotations

from pathlib import Path

import opgen.api as op
import pytest
import yaml
from opgen import runtime as rt

from ray_operator.api.v1.raycluster_types import RayCluster
from ray_operator.controller import children

SAMPLE = Path(__file__).parents[2] / "config/samples/ray_v1_raycluster.yaml"
UID = "0a1b2c3d-0000-4000-8000-000000000000"


def cluster(spec: dict[str, object] | None = None) -> RayCluster:
    """The sample (or `spec`) as stored: named, in a namespace, with a uid."""
    document = yaml.safe_load(SAMPLE.read_text())
    if spec is not None:
        document["spec"] = spec
    obj = RayCluster.model_validate(document)
    obj.metadata = op.ObjectMeta(name="my-ray", namespace="prod", uid=UID)
    return obj


def test_names_are_derived_from_the_cluster_and_group() -> None:
    obj = cluster()
    assert children.head_name(obj) == "my-ray-head"
    assert children.worker_name(obj, "small") == "my-ray-worker-small"
    assert (
        children.worker_selector(obj) == "ray.io/cluster=my-ray,ray.io/node-type=worker"
    )


def test_every_child_is_controlled_by_the_cluster() -> None:
    obj = cluster()
    for child in (
        children.head_deployment(obj, 1),
        children.head_service(obj),
        children.worker_deployment(obj, "small", 2),
    ):
        assert rt.owner.controller_of(child) == {
            "apiVersion": "ray.io/v1",
            "kind": "RayCluster",
            "name": "my-ray",
            "uid": UID,
            "controller": True,
            "blockOwnerDeletion": True,
        }


def test_a_worker_deployment_runs_its_template_with_the_cluster_image() -> None:
    deployment = children.worker_deployment(cluster(), "small", 3)
    assert deployment.metadata is not None and deployment.spec is not None
    assert deployment.metadata.name == "my-ray-worker-small"
    assert deployment.metadata.namespace == "prod"
    assert deployment.spec.replicas == 3
    labels = {
        "ray.io/cluster": "my-ray",
        "ray.io/node-type": "worker",
        "ray.io/group": "small",
    }
    assert deployment.spec.selector.match_labels == labels
    template = deployment.spec.template
    assert template.metadata is not None and template.spec is not None
    assert template.metadata.labels == {"team": "ml", **labels}
    (ray,) = template.spec.containers
    assert ray.name == "ray-worker"
    assert ray.image == "rayproject/ray:2.9.0"
    assert ray.command == [
        "ray",
        "start",
        "--block",
        "--address=my-ray-head:6379",
    ]
    assert ray.resources is not None
    assert ray.resources.requests == {"cpu": "1", "memory": "2Gi"}


def test_the_status_selector_selects_the_worker_pods() -> None:
    obj = cluster()
    selector = dict(
        term.split("=") for term in children.worker_selector(obj).split(",")
    )
    for group in ("small", "large"):
        deployment = children.worker_deployment(obj, group, 1)
        assert deployment.spec is not None and deployment.spec.template.metadata
        pod_labels = deployment.spec.template.metadata.labels or {}
        assert selector.items() <= pod_labels.items()
        assert (
            deployment.metadata
            and selector.items() <= (deployment.metadata.labels or {}).items()
        )
    head = children.head_deployment(obj, 1)
    assert head.spec is not None and head.spec.template.metadata
    assert not selector.items() <= (head.spec.template.metadata.labels or {}).items()


def test_the_head_starts_ray_with_its_params_and_ports() -> None:
    deployment = children.head_deployment(cluster(), 1)
    assert deployment.spec is not None and deployment.spec.template.spec
    (ray,) = deployment.spec.template.spec.containers
    assert ray.command == [
        "ray",
        "start",
        "--head",
        "--block",
        "--port=6379",
        "--dashboard-host=0.0.0.0",
        "--num-cpus=0",
    ]
    assert [(p.name, p.container_port) for p in ray.ports or ()] == [
        ("gcs-server", 6379),
        ("dashboard", 8265),
        ("client", 10001),
    ]


def test_the_head_service_serves_the_ray_ports_by_name() -> None:
    service = children.head_service(cluster())
    assert service.metadata is not None and service.spec is not None
    assert service.metadata.name == "my-ray-head"
    assert service.spec.type == "ClusterIP"
    assert service.spec.selector == {
        "ray.io/cluster": "my-ray",
        "ray.io/node-type": "head",
        "ray.io/group": "head",
    }
    assert [(p.name, p.port, p.target_port) for p in service.spec.ports or ()] == [
        ("gcs-server", 6379, "gcs-server"),
        ("dashboard", 8265, "dashboard"),
        ("client", 10001, "client"),
    ]


def test_what_a_template_sets_is_kept() -> None:
    obj = cluster(
        {
            "image": "rayproject/ray:2.9.0",
            "headGroup": {
                "serviceType": "NodePort",
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "name": "head",
                                "image": "myorg/ray:2.9.0-gpu",
                                "args": ["custom"],
                                "ports": [{"name": "gcs", "containerPort": 7000}],
                            },
                            {"name": "sidecar", "image": "busybox"},
                        ]
                    }
                },
            },
        }
    )
    deployment = children.head_deployment(obj, 1)
    assert deployment.spec is not None and deployment.spec.template.spec
    ray, sidecar = deployment.spec.template.spec.containers
    assert (ray.image, ray.command, ray.args) == (
        "myorg/ray:2.9.0-gpu",
        None,
        ["custom"],
    )
    assert sidecar.image == "busybox" and sidecar.command is None
    service = children.head_service(obj)
    assert service.spec is not None
    assert service.spec.type == "NodePort"
    assert [(p.name, p.port) for p in service.spec.ports or ()] == [("gcs", 7000)]


def test_the_flat_shape_gets_a_default_head_and_one_worker_group() -> None:
    obj = cluster(
        {"headReplicas": 1, "workerReplicas": 4, "image": "rayproject/ray:2.9.0"}
    )
    deployment = children.worker_deployment(obj, "workers", 4)
    assert deployment.metadata and deployment.metadata.name == "my-ray-worker-workers"
    assert deployment.spec is not None and deployment.spec.template.spec
    (ray,) = deployment.spec.template.spec.containers
    assert (ray.name, ray.image) == ("ray-worker", "rayproject/ray:2.9.0")
    head = children.head_deployment(obj, 1)
    assert head.spec is not None and head.spec.template.spec
    assert head.spec.template.spec.containers[0].name == "ray-head"


def test_building_leaves_the_cluster_as_it_was() -> None:
    obj = cluster()
    before = obj.model_copy(deep=True)
    children.head_deployment(obj, 1)
    children.worker_deployment(obj, "small", 2)
    children.head_service(obj)
    assert obj == before


def test_a_cluster_not_yet_stored_cannot_own_children() -> None:
    obj = cluster()
    obj.metadata.uid = None
    with pytest.raises(rt.owner.OwnerReferenceError):
        children.head_deployment(obj, 1)
