"""Models enforce their CEL rules as the API server does; decoding does not."""

from __future__ import annotations

import json
from typing import Annotated, Any

import pytest
from pydantic import ValidationError

import opgen.api as op
from opgen.runtime.decoding import Decoder, decode
from opgen.runtime.resources import resource_type


@op.Rule(
    "self.minReplicas <= self.maxReplicas",
    message="minReplicas must not exceed maxReplicas",
    field_path=".minReplicas",
)
class Scaling(op.Model):
    min_replicas: int = 0
    max_replicas: int = 10


class Group(op.Model):
    name: str
    size: Annotated[int, op.Rule("self % 2 == 0", message="must be even")] = 2
    zone: Annotated[str, op.Immutable()] | None = None


class WidgetSpec(op.Model):
    name: Annotated[
        str,
        op.Rule("self.startsWith('app-')", message="must start with app-"),
        op.Rule(
            "size(self) <= 20",
            message_expression="'name ' + self + ' is longer than 20 characters'",
        ),
    ]
    scaling: Scaling = Scaling()
    replicas: Annotated[
        int,
        op.Rule(
            "oldSelf.hasValue() || self == 0",
            optional_old_self=True,
            message="must be 0 on creation",
        ),
    ] = 0
    groups: Annotated[list[Group], op.ListType("map"), op.ListMapKey("name")] = []
    tags: Annotated[
        list[str], op.Items(op.Rule("self != ''", reason="FieldValueRequired"))
    ] = []


@op.kind(group="cel.opgen.dev", version="v1")
class Widget(op.CustomResource[WidgetSpec, None]):
    """A kind with CEL rules at every level."""


def _body(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "cel.opgen.dev/v1",
        "kind": "Widget",
        "metadata": {"name": "w"},
        "spec": {"name": "app-a", **spec},
    }


def _causes(body: dict[str, Any]) -> list[tuple[str, str, str]]:
    with pytest.raises(ValidationError) as caught:
        Widget.model_validate(body)
    return [(c.field, c.message, c.reason) for c in op.rule_causes(caught.value)]


def test_a_valid_object_passes() -> None:
    assert Widget.model_validate(_body(groups=[{"name": "a"}])).spec.name == "app-a"


def test_field_rules_report_the_field_and_message() -> None:
    assert _causes(_body(name="web")) == [
        (
            "spec.name",
            'Invalid value: "web": must start with app-',
            "FieldValueInvalid",
        )
    ]


def test_message_expressions_are_evaluated() -> None:
    name = "app-" + "x" * 20
    assert _causes(_body(name=name)) == [
        (
            "spec.name",
            f'Invalid value: "{name}": name {name} is longer than 20 characters',
            "FieldValueInvalid",
        )
    ]


def test_rules_on_nested_models_apply_at_their_node_with_their_field_path() -> None:
    assert _causes(_body(scaling={"minReplicas": 5, "maxReplicas": 1})) == [
        (
            "spec.scaling.minReplicas",
            "Invalid value: minReplicas must not exceed maxReplicas",
            "FieldValueInvalid",
        )
    ]
    assert _causes(_body(groups=[{"name": "a"}, {"name": "b", "size": 3}])) == [
        (
            "spec.groups[1].size",
            "Invalid value: 3: must be even",
            "FieldValueInvalid",
        )
    ]


def test_item_rules_and_reasons() -> None:
    assert _causes(_body(tags=["a", ""])) == [
        (
            "spec.tags[1]",
            "Required value: failed rule: self != ''",
            "FieldValueRequired",
        )
    ]


def test_optional_old_self_runs_on_create_with_no_old_value() -> None:
    assert _causes(_body(replicas=3)) == [
        (
            "spec.replicas",
            "Invalid value: 3: must be 0 on creation",
            "FieldValueInvalid",
        )
    ]


def test_updates_check_transition_rules_against_the_old_object() -> None:
    old = Widget.model_validate(_body(groups=[{"name": "a", "zone": "z1"}]))
    # optionalOldSelf: the update has an old value, so replicas may change
    updated = op.validate_update(
        old, _body(replicas=3, groups=[{"name": "a", "zone": "z1"}])
    )
    assert updated.spec.replicas == 3
    with pytest.raises(ValidationError) as caught:
        op.validate_update(
            old, _body(groups=[{"name": "b"}, {"name": "a", "zone": "z2"}])
        )
    assert [(c.field, c.message) for c in op.rule_causes(caught.value)] == [
        ("spec.groups[1].zone", 'Invalid value: "z2": field is immutable')
    ]
    with pytest.raises(ValidationError) as caught:
        op.validate_update(old, _body(groups=[{"name": "a"}]))
    assert [(c.field, c.message) for c in op.rule_causes(caught.value)] == [
        ("spec.groups[0]", "Invalid value: field zone is immutable once set")
    ]


def test_updates_also_check_the_plain_rules() -> None:
    old = Widget.model_validate(_body())
    with pytest.raises(ValidationError):
        op.validate_update(old, _body(name="web"))


def test_objects_decoded_from_the_server_are_not_checked_again() -> None:
    # A stored object that breaks a rule (written before the rule was tightened):
    # the server judged it already, so decoding keeps it.
    stored = json.dumps(_body(name="web", replicas=4)).encode()
    rtype = resource_type(Widget)
    assert decode(rtype, stored).spec.name == "web"
    decoder = Decoder(rtype)
    assert decoder.fresh(stored, decoder.prepare(stored)).spec.replicas == 4
    with pytest.raises(ValidationError):
        Widget.model_validate_json(stored)


@op.Rule("!has(self.labels) || size(self.labels) > 0", message="labels set empty")
class Pool(op.Model):
    labels: dict[str, str] = {}
    size: Annotated[int, op.Rule("self > 0", message="must be positive")] = 1


@op.Rule("self.primary in self.pools", message="primary must name a pool")
class FleetSpec(op.Model):
    primary: str
    pools: dict[str, Pool] = {}
    notes: str = ""
    spare: list[Pool] = []


@op.kind(group="cel.opgen.dev", version="v1")
class Fleet(op.CustomResource[FleetSpec, None]):
    """Rules in maps and lists of models, reading fields with empty defaults."""


def _fleet_causes(spec: dict[str, Any]) -> list[tuple[str, str]]:
    body = {"apiVersion": "cel.opgen.dev/v1", "kind": "Fleet", "spec": spec}
    with pytest.raises(ValidationError) as caught:
        Fleet.model_validate(body)
    return [(c.field, c.message) for c in op.rule_causes(caught.value)]


def test_a_kind_checks_rules_deep_in_maps_and_lists_as_the_server_sees_them() -> None:
    # An unset empty default is left out, as on the wire; set explicitly, it is
    # there for the rules to read (what the kind dumps for its rules is only
    # what they read, so this pins that nothing they read is left out).
    valid = {"primary": "a", "pools": {"a": {}}, "spare": [{}], "notes": "n"}
    fleet = Fleet.model_validate(
        {"apiVersion": "cel.opgen.dev/v1", "kind": "Fleet", "spec": valid}
    )
    assert fleet.spec.pools["a"].labels == {}
    assert _fleet_causes(
        {
            "primary": "b",
            "pools": {"a": {"labels": {}}, "c": {"size": 0}},
            "spare": [{}, {"labels": {}, "size": -1}],
        }
    ) == [
        ("spec", "Invalid value: primary must name a pool"),
        ("spec.pools[a]", "Invalid value: labels set empty"),
        ("spec.pools[c].size", "Invalid value: 0: must be positive"),
        ("spec.spare[1]", "Invalid value: labels set empty"),
        ("spec.spare[1].size", "Invalid value: -1: must be positive"),
    ]


class Entry(op.Model):
    name: str
    labels: dict[str, str] = {}


@op.Rule("size(self.entries) <= 2", message="at most 2 entries")
@op.Rule("!has(self.labels) || self.labels.size() <= size(self.entries[0].name)")
class Ledger(op.Model):
    entries: list[Entry] = []
    labels: dict[str, str] = {}


def test_sizes_count_items_keys_and_characters_of_what_the_rule_reads() -> None:
    # The models hand a rule only the parts of an object it reads; for size()
    # that is how many items or keys there are, not their contents.
    assert Ledger.model_validate({"entries": [{"name": "a", "labels": {"k": "v"}}]})
    with pytest.raises(ValidationError) as caught:
        Ledger.model_validate({"entries": [{"name": n} for n in "abc"]})
    assert [c.message for c in op.rule_causes(caught.value)] == [
        "Invalid value: at most 2 entries"
    ]
    with pytest.raises(ValidationError) as caught:
        Ledger.model_validate(
            {"entries": [{"name": "a"}], "labels": {"k": "", "l": ""}}
        )
    assert [c.rule for c in op.rule_causes(caught.value)] == [
        "!has(self.labels) || self.labels.size() <= size(self.entries[0].name)"
    ]
    assert Ledger.model_validate(
        {"entries": [{"name": "ab"}], "labels": {"k": "", "l": ""}}
    )
