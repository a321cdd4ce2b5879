"""A child made with `rt.owner.set_controller_reference` is created in its owner's
slot (the one the assigner would give it), so it is in the cache of the replica
that reconciles its owner from its creation on."""

from __future__ import annotations

from opgen import runtime as rt
from opgen.api import ObjectMeta
from opgen.api.k8s import ConfigMap
from tests.runtime.kinds import Widget, WidgetSpec
from tests.runtime.sharding.inprocess import SLOT


def owner(labels: dict[str, str]) -> Widget:
    return Widget(
        metadata=ObjectMeta(name="w", namespace="ns", uid="u-1", labels=labels),
        spec=WidgetSpec(),
    )


def child(labels: dict[str, str] | None = None) -> ConfigMap:
    return ConfigMap(metadata=ObjectMeta(name="c", namespace="ns", labels=labels))


def test_the_child_gets_its_owners_slot_label_and_keeps_its_own() -> None:
    made = child({"app": "web"})
    rt.owner.set_controller_reference(owner({SLOT: "7", "tier": "x"}), made)
    assert made.metadata.labels == {"app": "web", SLOT: "7"}


def test_the_previous_protocols_shard_label_is_not_copied() -> None:
    made = child()
    shard = "shard.sharding.opgen.dev/widgets"
    rt.owner.set_controller_reference(owner({SLOT: "7", shard: "a"}), made)
    assert made.metadata.labels == {SLOT: "7"}


def test_without_sharding_no_label_is_added() -> None:
    made = child()
    rt.owner.set_controller_reference(owner({"tier": "x"}), made)
    assert not made.metadata.labels
