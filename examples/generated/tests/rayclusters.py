# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""What the RayCluster tests share: the samples, and reads from the API server."""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import opgen.api as op
import yaml
from opgen import runtime as rt
from opgen.testing import mark_ready

from ray_operator.api.v1.raycluster_types import RayCluster
from ray_operator.api.v1alpha1 import raycluster_types as v1alpha1
from ray_operator.controller import children

Deployment = op.k8s.Deployment

ROOT = Path(__file__).parents[1]
SAMPLES = ROOT / "config/samples"


@functools.cache
def _parsed(version: str) -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(
        (SAMPLES / f"ray_{version}_raycluster.yaml").read_text()
    )
    return document


def sample_document(version: str = "v1") -> dict[str, Any]:
    """The sample of `version` as YAML data (read once; each call gets a copy)."""
    return copy.deepcopy(_parsed(version))


@functools.cache
def _validated(version: str) -> RayCluster | v1alpha1.RayCluster:
    model = RayCluster if version == "v1" else v1alpha1.RayCluster
    return model.model_validate(_parsed(version))


def sample(name: str, namespace: str) -> RayCluster:
    """The v1 sample, renamed into `namespace` (validated once; each call gets a copy)."""
    obj = _validated("v1").model_copy(deep=True)
    assert isinstance(obj, RayCluster)
    obj.metadata = op.ObjectMeta(name=name, namespace=namespace)
    return obj


def flat_sample(name: str, namespace: str) -> v1alpha1.RayCluster:
    """The v1alpha1 sample (the seed's flat shape), renamed into `namespace`."""
    obj = _validated("v1alpha1").model_copy(deep=True)
    assert isinstance(obj, v1alpha1.RayCluster)
    obj.metadata = op.ObjectMeta(name=name, namespace=namespace)
    return obj


async def fetch(client: rt.Client, name: str, namespace: str) -> RayCluster:
    """The RayCluster as the API server has it now."""
    return await client.uncached.get(RayCluster, name, namespace)


async def deployment(client: rt.Client, name: str, namespace: str) -> Deployment:
    """A Deployment as the API server has it now."""
    return await client.uncached.get(Deployment, name, namespace)


async def deployments(client: rt.Client, cluster: RayCluster) -> dict[str, Deployment]:
    """The cluster's Deployments by name, from the API server."""
    found = await client.uncached.list(
        Deployment,
        namespace=cluster.metadata.namespace,
        labels={children.CLUSTER_LABEL: str(cluster.metadata.name)},
    )
    return {str(d.metadata.name): d for d in found}


async def mark_all_ready(
    client: rt.Client, cluster: RayCluster
) -> dict[str, Deployment]:
    """Every Deployment of the cluster marked ready (`opgen.testing.mark_ready`: envtest
    runs no kubelet); the Deployments as marked."""
    found = await deployments(client, cluster)
    for item in found.values():
        await mark_ready(client, item)
    return await deployments(client, cluster)


def conditions(obj: RayCluster) -> dict[str, tuple[str, str]]:
    """Condition type -> (status, reason)."""
    assert obj.status is not None
    return {c.type: (c.status, c.reason) for c in obj.status.conditions}


def image_of(target: Deployment) -> str | None:
    """The image of the Ray container (the first) of a Deployment's pods."""
    assert target.spec is not None and target.spec.template.spec is not None
    return target.spec.template.spec.containers[0].image
