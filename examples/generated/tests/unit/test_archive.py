# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""The record `cleanup` writes: from the metadata, whatever still decodes."""

from __future__ import annotations

import datetime
import json
from typing import Any

import opgen.api as op
from rayclusters import sample

from ray_operator.api.v1.raycluster_types import RayCluster
from ray_operator.controller.archive import record_data, record_name

DELETED = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)


def metadata() -> op.ObjectMeta:
    return op.ObjectMeta(
        name="my-ray",
        namespace="team-a",
        uid="0123456789abcdef",
        deletion_timestamp=DELETED,
    )


def test_the_record_holds_the_spec_and_is_named_after_the_uid() -> None:
    cluster = sample("my-ray", "team-a")  # a spec its CEL rules accept
    cluster.metadata = metadata()
    data = record_data(cluster)
    assert record_name(cluster) == "raycluster.team-a.my-ray.01234567"
    assert (data["namespace"], data["name"], data["uid"]) == (
        "team-a",
        "my-ray",
        "0123456789abcdef",
    )
    assert data["deletedAt"] == "2026-01-02T03:04:05+00:00"
    assert (
        json.loads(data["spec.json"])["workerReplicas"] == cluster.spec.worker_replicas
    )
    assert json.loads(data["status.json"]) == {}


def test_a_cluster_whose_spec_no_longer_decodes_is_archived_too() -> None:
    """What rt.status.reconcile hands `cleanup` for a stored object that no longer
    fits the model: its metadata, without the spec."""
    fields: dict[str, Any] = {"metadata": metadata()}  # no spec: it did not fit
    partial = RayCluster.model_construct(**fields)
    data = record_data(partial)
    assert record_name(partial) == "raycluster.team-a.my-ray.01234567"
    assert json.loads(data["spec.json"]) is None
