# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""The cleanup a deleted RayCluster gets before it goes: a record in the operator's namespace.

Owner references clean up what lives beside a RayCluster (its Deployments
and Service); they cannot reach another namespace. Before the finalizer
lets a RayCluster go, `record` writes a ConfigMap in the archive namespace
(the operator's own, or `$RAY_ARCHIVE_NAMESPACE`) saying which cluster ran,
its last spec and status, and when it was deleted, the way a real operator
archives checkpoints or deregisters the cluster from systems outside
Kubernetes. It is a create-or-update of a name derived from the cluster's
UID, so a retry after a failure (the namespace missing, a lost connection)
writes the same record once; until it succeeds the finalizer stays and the
RayCluster with it. The record is found from the metadata alone: a stored
RayCluster that no longer fits the model reaches `cleanup` as a partial
object whose spec may be unset, and is archived all the same (its spec as
`null`).
"""

from __future__ import annotations

import json
import os

import opgen.api as op
from opgen import runtime as rt

from ray_operator.api.v1.raycluster_types import RayCluster

ARCHIVE_NAMESPACE_ENV = "RAY_ARCHIVE_NAMESPACE"
CLUSTER_LABEL = "ray.io/cluster"
CLUSTER_NAMESPACE_LABEL = "ray.io/cluster-namespace"


def archive_namespace(client: rt.Client) -> str:
    """`$RAY_ARCHIVE_NAMESPACE`, else the manager's own namespace (in a pod, the
    service account's; outside, the kubeconfig context's)."""
    return os.environ.get(ARCHIVE_NAMESPACE_ENV) or client.rest.default_namespace


def record_name(cluster: RayCluster) -> str:
    """`raycluster.<namespace>.<name>.<first 8 of the uid>`: one per cluster ever."""
    meta = cluster.metadata
    return f"raycluster.{meta.namespace}.{meta.name}.{str(meta.uid)[:8]}"


def record_data(cluster: RayCluster) -> dict[str, str]:
    """What the record says about `cluster`."""
    meta = cluster.metadata
    deleted = meta.deletion_timestamp
    return {
        "namespace": str(meta.namespace),
        "name": str(meta.name),
        "uid": str(meta.uid),
        "deletedAt": deleted.isoformat() if deleted else "",
        "spec.json": _json(
            cluster.spec.model_dump(mode="json", by_alias=True)
            if "spec" in cluster.model_fields_set
            else None
        ),
        "status.json": _json(
            cluster.status.model_dump(mode="json", by_alias=True, exclude_none=True)
            if cluster.status
            else {}
        ),
    }


async def record(
    client: rt.Client, cluster: RayCluster, namespace: str
) -> op.k8s.ConfigMap:
    """Write (or rewrite) `cluster`'s record in `namespace`; raises when it cannot."""
    labels = {
        CLUSTER_LABEL: str(cluster.metadata.name),
        CLUSTER_NAMESPACE_LABEL: str(cluster.metadata.namespace),
    }
    data = record_data(cluster)

    def fill(config: op.k8s.ConfigMap) -> None:
        config.metadata.labels = {**(config.metadata.labels or {}), **labels}
        config.data = data

    archived, _ = await rt.create_or_update(
        client,
        op.k8s.ConfigMap(
            metadata=op.ObjectMeta(name=record_name(cluster), namespace=namespace)
        ),
        fill,
        cached=False,  # the cache does not watch ConfigMaps; one read at deletion
    )
    return archived


def _json(value: object) -> str:
    return json.dumps(value, indent=2, sort_keys=True) + "\n"
