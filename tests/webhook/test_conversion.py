"""Conversion through the hub, called by a real API server: Gizmo v1alpha1 ↔ v1 (storage).

v1alpha1's `size` is v1's `replicas`; `color` exists only in v1 and must
survive a round trip through v1alpha1 (in the spoke view it rides in the
`conversion.opgen.dev/hub-fields` annotation, which is never stored).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

import opgen.api as op
from opgen import runtime as rt
from opgen.runtime.webhook import PRESERVED_ANNOTATION
from opgen.testing import Environment
from tests.webhook import kinds_v1, kinds_v1alpha1
from tests.webhook.conftest import Served

pytestmark = pytest.mark.envtest


@pytest.fixture
async def client(envtest: Environment, webhooks: Served) -> AsyncIterator[rt.Client]:
    async with rt.Client.from_kubeconfig(envtest.kubeconfig_path) as client:
        yield client


def old_gizmo(name: str, namespace: str, size: int) -> kinds_v1alpha1.Gizmo:
    return kinds_v1alpha1.Gizmo(
        metadata=op.ObjectMeta(name=name, namespace=namespace),
        spec=kinds_v1alpha1.GizmoSpec(size=size, label="blue-ish"),
    )


async def test_created_as_v1alpha1_read_as_v1_and_back(
    client: rt.Client, namespace: str
) -> None:
    created = await client.create(old_gizmo("a", namespace, size=3))
    assert created.spec.size == 3  # the API server converted its stored v1 back
    hub = await client.uncached.get(kinds_v1.Gizmo, "a", namespace=namespace)
    assert (hub.api_version, hub.spec.replicas, hub.spec.label) == (
        "webhook.opgen.dev/v1",
        3,
        "blue-ish",
    )
    assert hub.metadata.uid == created.metadata.uid
    again = await client.uncached.get(kinds_v1alpha1.Gizmo, "a", namespace=namespace)
    assert (again.spec.size, again.metadata.uid) == (3, created.metadata.uid)
    assert again.metadata.resource_version == hub.metadata.resource_version


async def test_lists_in_both_versions_keep_order_and_identity(
    client: rt.Client, namespace: str
) -> None:
    for index, name in enumerate(["b1", "b2", "b3"]):
        await client.create(old_gizmo(name, namespace, size=index + 1))
    await client.create(
        kinds_v1.Gizmo(
            metadata=op.ObjectMeta(name="b4", namespace=namespace),
            spec=kinds_v1.GizmoSpec(replicas=4),
        )
    )
    hubs = await client.uncached.list(kinds_v1.Gizmo, namespace=namespace)
    spokes = await client.uncached.list(kinds_v1alpha1.Gizmo, namespace=namespace)
    assert [(g.metadata.name, g.spec.replicas) for g in hubs] == [
        ("b1", 1),
        ("b2", 2),
        ("b3", 3),
        ("b4", 4),
    ]
    assert [(g.metadata.name, g.spec.size) for g in spokes] == [
        ("b1", 1),
        ("b2", 2),
        ("b3", 3),
        ("b4", 4),
    ]
    assert [g.metadata.uid for g in hubs] == [g.metadata.uid for g in spokes]


async def test_a_field_only_v1_has_survives_a_v1alpha1_round_trip(
    client: rt.Client, namespace: str
) -> None:
    await client.create(
        kinds_v1.Gizmo(
            metadata=op.ObjectMeta(name="c", namespace=namespace),
            spec=kinds_v1.GizmoSpec(replicas=2, color="red"),
        )
    )
    spoke = await client.uncached.get(kinds_v1alpha1.Gizmo, "c", namespace=namespace)
    preserved = json.loads((spoke.metadata.annotations or {})[PRESERVED_ANNOTATION])
    assert preserved == [{"hub": "red", "path": "/spec/color"}]
    spoke.spec.size = 5
    await client.update(spoke)  # written back through v1alpha1, which has no color
    hub = await client.uncached.get(kinds_v1.Gizmo, "c", namespace=namespace)
    assert (hub.spec.replicas, hub.spec.color) == (5, "red")
    assert PRESERVED_ANNOTATION not in (hub.metadata.annotations or {})


async def test_what_a_client_changes_through_the_spoke_wins(
    client: rt.Client, namespace: str
) -> None:
    """The spoke expresses `label`: a change to it is kept, not overwritten by the
    hub's old value (only what the spoke cannot express is restored)."""
    await client.create(
        kinds_v1.Gizmo(
            metadata=op.ObjectMeta(name="d", namespace=namespace),
            spec=kinds_v1.GizmoSpec(replicas=1, label="old", color="green"),
        )
    )
    spoke = await client.uncached.get(kinds_v1alpha1.Gizmo, "d", namespace=namespace)
    spoke.spec.label = "new"
    await client.update(spoke)
    hub = await client.uncached.get(kinds_v1.Gizmo, "d", namespace=namespace)
    assert (hub.spec.label, hub.spec.color) == ("new", "green")
