"""A child made with `rt.owner.set_controller_reference` is created in its owner's shard."""

from __future__ import annotations

from opgen import runtime as rt
from opgen.api import ObjectMeta
from opgen.api.k8s import ConfigMap
from tests.runtime.kinds import Widget, WidgetSpec
from tests.runtime.sharding.inprocess import SHARD


def owner(labels: dict[str, str]) -> Widget:
    return Widget(
        metadata=ObjectMeta(name="w", namespace="ns", uid="u-1", labels=labels),
        spec=WidgetSpec(),
    )


def child(labels: dict[str, str] | None = None) -> ConfigMap:
    return ConfigMap(metadata=ObjectMeta(name="c", namespace="ns", labels=labels))


def test_the_child_gets_its_owners_shard_label_and_keeps_its_own() -> None:
    made = child({"app": "web"})
    rt.owner.set_controller_reference(owner({SHARD: "a", "tier": "x"}), made)
    assert made.metadata.labels == {"app": "web", SHARD: "a"}


def test_the_owners_current_shard_replaces_a_stale_one() -> None:
    made = child({SHARD: "old"})
    rt.owner.set_controller_reference(owner({SHARD: "new"}), made)
    assert made.metadata.labels == {SHARD: "new"}


def test_without_sharding_no_label_is_added() -> None:
    made = child()
    rt.owner.set_controller_reference(owner({"tier": "x"}), made)
    assert not made.metadata.labels
