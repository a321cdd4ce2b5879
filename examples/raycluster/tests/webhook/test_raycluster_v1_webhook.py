# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""The webhooks of RayCluster v1, called by a real API server (envtest).

opgen's pytest plugin serves this project's webhooks (`main.setup_webhooks`)
for the whole test session on a local address, and installs the webhook
configurations and CRD conversions pointing there, so every object the tests
create goes through them. `opgen create webhook` adds tests for the webhooks
it adds above the `+opgen:insert:tests` line.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from opgen import runtime as rt
from opgen.api import ObjectMeta
from opgen.api.k8s import ResourceQuota, ResourceQuotaSpec
from opgen.testing import Environment, assert_round_trips
from opgen.testing.e2e import kubectl
from rayclusters import fetch, flat_sample, sample, sample_document

# +opgen:scaffold:imports
from ray_operator.api.v1.raycluster_types import RayCluster
from ray_operator.api.v1alpha1 import raycluster_types as v1alpha1
from ray_operator.webhook.v1.raycluster_webhook import (
    RayClusterDefaulter,
    RayClusterV1alpha1Conversion,
    RayClusterValidator,
)

# +opgen:scaffold:imports:end

pytestmark = pytest.mark.envtest


def images(obj: RayCluster) -> list[str | None]:
    """The image of each template's Ray container: the head's, then each group's."""
    templates = [obj.spec.head_group.template if obj.spec.head_group else None]
    templates += [g.template for g in obj.spec.worker_groups]
    return [t.spec.containers[0].image if t and t.spec else None for t in templates]


async def test_the_sample_goes_through_the_webhooks(
    client: rt.Client, namespace: str
) -> None:
    """Create, update and delete pass every webhook of the kind (with failurePolicy
    Fail, the API server would refuse them if the webhook server did not answer)."""
    obj = await client.create(sample("my-ray", namespace))
    obj.metadata.labels = {**(obj.metadata.labels or {}), "webhook-test": "updated"}
    await client.update(obj)
    await client.delete(obj)


async def test_defaulting_fills_the_images_and_the_total(
    client: rt.Client, namespace: str
) -> None:
    obj = await client.create(sample("my-ray", namespace))
    assert images(obj) == ["rayproject/ray:2.9.0"] * 3
    assert obj.spec.worker_replicas == 3

    # A new cluster image: the containers that ran the old one follow it.
    await client.patch(obj, {"spec": {"image": "rayproject/ray:2.9.3"}})
    assert (
        images(await fetch(client, "my-ray", namespace)) == ["rayproject/ray:2.9.3"] * 3
    )

    # Groups edited, the total left alone: the total follows the groups.
    patch = [{"op": "replace", "path": "/spec/workerGroups/0/replicas", "value": 5}]
    await client.patch(obj, patch, patch_type="json")
    assert (await fetch(client, "my-ray", namespace)).spec.worker_replicas == 6


async def test_defaulting_keeps_what_the_sample_sets(client: rt.Client) -> None:
    """The defaulter fills in fields; it never changes one the user set."""
    document = sample_document()
    document["metadata"] = {"name": "raycluster-defaulting", "namespace": "default"}
    document["spec"]["workerReplicas"] = 7
    large = document["spec"]["workerGroups"][1]["template"]["spec"]["containers"][0]
    large["image"] = "myorg/ray-ml:2.9.0-gpu"
    obj = RayCluster.model_validate(document)
    await RayClusterDefaulter(client).default(obj)
    assert obj.spec.worker_replicas == 7
    assert images(obj) == [
        "rayproject/ray:2.9.0",
        "rayproject/ray:2.9.0",
        "myorg/ray-ml:2.9.0-gpu",
    ]


async def test_validation_accepts_the_sample(client: rt.Client) -> None:
    """The sample meets every rule: no refusal, no warning."""
    validator = RayClusterValidator(client)
    obj = sample("raycluster-validation", "default")
    assert await validator.validate_create(obj) == []
    assert await validator.validate_update(obj, obj) == []


def invalid(envtest: Environment, namespace: str, spec: dict[str, Any]) -> str:
    """What kubectl says when it creates a RayCluster with `spec`."""
    document = sample_document()
    document["metadata"] = {"name": "bad", "namespace": namespace}
    document["spec"] = {**document["spec"], **spec}
    done = kubectl(
        envtest.kubeconfig_path,
        "create",
        "-f",
        "-",
        stdin=yaml.safe_dump(document),
        check=False,
    )
    assert done.returncode == 1, done.stdout
    return done.stderr.strip()


async def test_invalid_clusters_are_refused_with_the_rule_they_break(
    envtest: Environment, client: rt.Client, namespace: str
) -> None:
    # The schema's minimums: the defaulting webhook, which runs first, cannot
    # read such an object as a RayCluster and lets it through to the schema,
    # whose message names the field as the user wrote it.
    assert invalid(envtest, namespace, {"headReplicas": 0}) == (
        'The RayCluster "bad" is invalid: spec.headReplicas: Invalid value: 0:'
        " spec.headReplicas in body should be greater than or equal to 1"
    )
    refused = invalid(envtest, namespace, {"workerReplicas": -1})
    assert refused.startswith('The RayCluster "bad" is invalid: '), refused
    assert (
        "spec.workerReplicas: Invalid value: -1: spec.workerReplicas in body should"
        " be greater than or equal to 0"
    ) in refused  # with the CEL rules the total also breaks
    # CEL: a group's replicas must lie between its bounds (the webhook set the
    # total to the groups' sum, 10, which the total's rule allows).
    groups = sample_document()["spec"]["workerGroups"]
    groups[0]["replicas"] = 9
    assert invalid(envtest, namespace, {"workerGroups": groups}) == (
        'The RayCluster "bad" is invalid: spec.workerGroups[0].replicas: Invalid'
        " value: replicas must lie between minReplicas and maxReplicas"
    )
    # CEL: the total must fit between the sums of the groups' bounds (1 and 12).
    assert invalid(envtest, namespace, {"workerReplicas": 13}) == (
        'The RayCluster "bad" is invalid: spec.workerReplicas: Invalid value:'
        " workerReplicas must lie between the sums of the groups' minReplicas"
        " and maxReplicas"
    )
    # The validating webhook: the cluster can never fit the namespace's quota.
    quota = ResourceQuota(
        metadata=ObjectMeta(name="pods", namespace=namespace),
        spec=ResourceQuotaSpec(hard={"pods": "3"}),
    )
    await client.create(quota)
    assert invalid(envtest, namespace, {}) == (
        'Error from server (Forbidden): error when creating "STDIN": admission'
        ' webhook "vraycluster-v1.ray.io" denied the request: the cluster needs'
        " pods=4 (head and 3 workers); ResourceQuota pods allows 3"
    )
    await client.delete(quota)


async def test_ray_version_cannot_change_once_set(
    envtest: Environment, client: rt.Client, namespace: str
) -> None:
    """CEL transition rules: rayVersion can be set once, and never changed or removed."""
    obj = await client.create(sample("my-ray", namespace))
    assert obj.spec.ray_version == "2.9.0"
    refusals = {
        "2.10.0": 'spec.rayVersion: Invalid value: "2.10.0": field is immutable',
        None: "spec: Invalid value: field rayVersion is immutable once set",
    }
    for version, message in refusals.items():
        with pytest.raises(rt.Invalid) as refused:
            await client.patch(obj, {"spec": {"rayVersion": version}})
        assert str(refused.value) == (
            f'422 Invalid: RayCluster.ray.io "my-ray" is invalid: {message}'
        )
    assert (await fetch(client, "my-ray", namespace)).spec.ray_version == "2.9.0"


async def test_a_deprecated_setting_is_warned_about(
    envtest: Environment, namespace: str
) -> None:
    document = sample_document()
    document["metadata"] = {"name": "warned", "namespace": namespace}
    document["spec"]["upscalingMode"] = "Aggressive"
    done = kubectl(
        envtest.kubeconfig_path, "create", "-f", "-", stdin=yaml.safe_dump(document)
    )
    assert (
        "Warning: spec.upscalingMode: Aggressive is deprecated, an alias for"
        " Default; set Default" in done.stderr
    )


async def test_a_flat_v1alpha1_cluster_reads_back_as_v1(
    envtest: Environment, client: rt.Client, namespace: str
) -> None:
    """The seed's YAML, as v1alpha1: stored as v1, read in both versions."""
    done = kubectl(
        envtest.kubeconfig_path,
        "create",
        "-n",
        namespace,
        "-f",
        "-",
        stdin=yaml.safe_dump(sample_document("v1alpha1")),
    )
    assert "ray.io/v1alpha1 RayCluster is deprecated; use ray.io/v1" in done.stderr
    name = "raycluster-sample-v1alpha1"
    hub = await fetch(client, name, namespace)
    assert (hub.api_version, hub.spec.head_replicas, hub.spec.worker_replicas) == (
        "ray.io/v1",
        1,
        4,
    )
    assert hub.spec.image == "rayproject/ray:2.9.0"
    assert hub.spec.worker_groups == []
    old = await client.uncached.get(v1alpha1.RayCluster, name, namespace)
    assert old.spec == flat_sample(name, namespace).spec


async def test_a_v1_cluster_reads_back_as_v1alpha1_and_round_trips(
    client: rt.Client, namespace: str
) -> None:
    created = await client.create(sample("my-ray", namespace))
    old = await client.uncached.get(v1alpha1.RayCluster, "my-ray", namespace)
    assert old.api_version == "ray.io/v1alpha1"
    assert old.metadata.uid == created.metadata.uid
    assert (old.spec.head_replicas, old.spec.worker_replicas, old.spec.image) == (
        1,
        3,
        "rayproject/ray:2.9.0",
    )
    # Written back through v1alpha1, nothing only v1 has is lost.
    old.metadata.labels = {**(old.metadata.labels or {}), "touched": "v1alpha1"}
    await client.update(old)
    back = await fetch(client, "my-ray", namespace)
    assert back.spec == created.spec
    assert (back.metadata.labels or {})["touched"] == "v1alpha1"


def test_v1alpha1_conversion_loses_no_field() -> None:
    """v1alpha1 → v1 → v1alpha1 and v1 → v1alpha1 → v1 give back what was sent, on
    objects drawn from both versions' schemas (fields only v1 has ride in the
    annotation the runtime keeps)."""
    assert_round_trips(RayClusterV1alpha1Conversion())


# +opgen:insert:tests
