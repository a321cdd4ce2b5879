"""set_controller_reference's scope rules (no API server)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

import opgen.api as op
from opgen.api import ObjectMeta
from opgen.api.k8s import ConfigMap, Namespace
from opgen.runtime import owner
from tests.runtime.kinds import Gadget, WidgetSpec, widget


def cm(namespace: str = "a") -> ConfigMap:
    return ConfigMap(metadata=ObjectMeta(name="child", namespace=namespace))


def test_sets_a_controller_reference_once() -> None:
    parent = widget("p", "a")
    parent.metadata.uid = "uid-p"
    child = cm()
    owner.set_controller_reference(parent, child)
    owner.set_controller_reference(parent, child)  # idempotent
    assert child.metadata is not None and child.metadata.owner_references is not None
    (ref,) = child.metadata.owner_references
    assert (ref.api_version, ref.kind, ref.name, ref.uid, ref.controller, ref.block_owner_deletion) == (
        "test.opgen.dev/v1", "Widget", "p", "uid-p", True, True,
    )  # fmt: skip
    assert owner.controller_of(child) is not None
    validated = op.OwnerReference.model_validate(ref.model_dump())
    assert ref == validated and ref.model_fields_set == validated.model_fields_set


def test_a_reference_to_an_owner_without_a_name_is_refused() -> None:
    parent = widget("p", "a")
    parent.metadata.uid = "uid-p"
    parent.metadata.name = None
    with pytest.raises(ValidationError):
        owner.set_controller_reference(parent, cm())


def test_refusals() -> None:
    parent = widget("p", "a")
    with pytest.raises(owner.OwnerReferenceError, match="no uid"):
        owner.set_controller_reference(parent, cm())
    parent.metadata.uid = "uid-p"
    with pytest.raises(owner.OwnerReferenceError, match="cross namespaces"):
        owner.set_controller_reference(parent, cm("b"))
    with pytest.raises(owner.OwnerReferenceError, match="cluster-scoped"):
        owner.set_controller_reference(parent, Namespace(metadata=ObjectMeta(name="n")))
    child = cm()
    owner.set_controller_reference(parent, child)
    rival = widget("q", "a")
    rival.metadata.uid = "uid-q"
    with pytest.raises(
        owner.AlreadyOwnedError, match="already controlled by Widget 'p'"
    ):
        owner.set_controller_reference(rival, child)


def test_cluster_scoped_owner_may_own_namespaced_and_cluster_children() -> None:
    parent = Gadget(metadata=op.ObjectMeta(name="g", uid="uid-g"), spec=WidgetSpec())
    child = widget("w", "anywhere")
    owner.set_controller_reference(parent, child)
    assert (
        child.metadata.owner_references
        and child.metadata.owner_references[0].uid == "uid-g"
    )
    other = Gadget(metadata=op.ObjectMeta(name="g2"), spec=WidgetSpec())
    owner.set_controller_reference(parent, other)
    assert (
        other.metadata.owner_references
        and other.metadata.owner_references[0].kind == "Gadget"
    )
