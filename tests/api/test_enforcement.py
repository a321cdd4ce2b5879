"""Markers that constrain values are enforced in Python, as the API server enforces them.

Before, `Annotated[int, op.Minimum(1)]` only wrote `minimum: 1` into the CRD:
Pydantic accepted 0 and the API server refused the object later (found by
tests/proof). Each case: a model accepts the good value and refuses the bad
one with a message naming the marker.
"""

from __future__ import annotations

import datetime
from typing import Annotated, Any

import pytest
from pydantic import ValidationError
from typing_extensions import TypeAliasType

import opgen.api as op
from opgen.engine.goregex import go_regex
from opgen.engine.values import is_json_integer, validate_value


def _model(annotation: Any) -> type[op.Model]:
    return type("M", (op.Model,), {"__annotations__": {"x": annotation}})


CASES: list[tuple[str, Any, Any, Any, str]] = [
    ("Minimum", Annotated[int, op.Minimum(1)], 1, 0, "greater than or equal to 1"),
    ("Maximum", Annotated[int, op.Maximum(10)], 10, 11, "less than or equal to 10"),
    (
        "ExclusiveMinimum",
        Annotated[int, op.ExclusiveMinimum(0)],
        1,
        0,
        "greater than 0",
    ),
    ("ExclusiveMaximum", Annotated[int, op.ExclusiveMaximum(5)], 4, 5, "less than 5"),
    ("MultipleOf", Annotated[int, op.MultipleOf(256)], 512, 300, "multiple of 256"),
    (
        "MultipleOf float",
        Annotated[op.Float, op.MultipleOf(0.1)],
        0.3,
        0.35,
        "multiple of 0.1",
    ),
    ("MinLength", Annotated[str, op.MinLength(2)], "ab", "a", "at least 2 chars"),
    (
        "MaxLength counts code points",
        Annotated[str, op.MaxLength(2)],
        "éé",
        "abc",
        "more than 2 chars",
    ),
    (
        "MaxLength ignores ints",
        Annotated[op.IntOrString, op.MaxLength(2)],
        12345,
        "abc",
        "more than 2",
    ),
    ("Pattern", Annotated[str, op.Pattern("^[a-z]+$")], "abc", "ABC", "should match"),
    (
        "Pattern $ is the very end",
        Annotated[str, op.Pattern(r"^\d+$")],
        "12",
        "12\n",
        "should match",
    ),
    (
        "Pattern \\d is ASCII",
        Annotated[str, op.Pattern(r"^\d+$")],
        "12",
        "١٢",
        "should match",
    ),
    (
        "Pattern \\s has no \\v",
        Annotated[str, op.Pattern(r"^[^\s]+$")],
        "a\x0bb",
        "a b",
        "should match",
    ),
    (
        "Pattern on a Duration's wire form",
        Annotated[op.Duration, op.Pattern("^[0-9]+s$")],
        "30s",
        "1m",
        "should match",
    ),
    (
        "Format int32",
        Annotated[int, op.Format("int32")],
        2**31 - 1,
        2**31,
        "format int32",
    ),
    (
        "Format date-time",
        Annotated[str, op.Format("date-time")],
        "2024-05-01T12:00:00Z",
        "2024-05-01T12:00:00",
        "valid date-time",
    ),
    (
        "Format uuid",
        Annotated[str, op.Format("uuid")],
        "0f8fad5b-d9cb-469f-a165-70867728950e",
        "0f8fad5b",
        "valid uuid",
    ),
    ("Enum", Annotated[str, op.Enum("Fast", "Safe")], "Safe", "Slow", "must be one of"),
    ("MinItems", Annotated[list[str], op.MinItems(1)], ["a"], [], "at least 1 items"),
    (
        "MaxItems",
        Annotated[list[str], op.MaxItems(1)],
        ["a"],
        ["a", "b"],
        "at most 1 items",
    ),
    (
        "UniqueItems",
        Annotated[list[str], op.UniqueItems()],
        ["a", "b"],
        ["a", "a"],
        "item 1: Duplicate value",
    ),
    (
        "ListType set",
        Annotated[list[int], op.ListType("set")],
        [1, 2],
        [2, 2],
        "Duplicate value",
    ),
    (
        "Items",
        Annotated[list[str], op.Items(op.MinLength(1))],
        ["a"],
        ["a", ""],
        "item 1: should be at least 1",
    ),
    (
        "nested item markers",
        list[Annotated[int, op.Minimum(0)]],
        [0],
        [1, -1],
        "greater than or equal to 0",
    ),
    (
        "map values",
        dict[str, Annotated[str, op.MaxLength(1)]],
        {"a": "b"},
        {"a": "bc"},
        "more than 1",
    ),
    (
        "MinProperties",
        Annotated[dict[str, str], op.MinProperties(1)],
        {"a": "b"},
        {},
        "at least 1 properties",
    ),
    (
        "MaxProperties",
        Annotated[dict[str, str], op.MaxProperties(1)],
        {"a": "b"},
        {"a": "b", "c": "d"},
        "at most 1 properties",
    ),
    (
        "named type",
        TypeAliasType("Port", Annotated[int, op.Minimum(1), op.Maximum(65535)]),
        80,
        0,
        "greater than or equal to 1",
    ),
]


@pytest.mark.parametrize(
    ("annotation", "good", "bad", "message"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_value_markers_are_enforced(
    annotation: Any, good: Any, bad: Any, message: str
) -> None:
    model = _model(annotation)
    model(x=good)
    with pytest.raises(ValidationError) as raised:
        model(x=bad)
    assert message in str(raised.value)
    assert "kubernetes_constraint" in str(raised.value)


def test_the_message_names_the_marker() -> None:
    with pytest.raises(ValidationError, match=r"\(op\.Minimum\(1\)\)"):
        _model(Annotated[int, op.Minimum(1)])(x=0)


def test_none_is_not_checked_for_optional_fields() -> None:
    model = _model(Annotated[str, op.MinLength(3)] | None)
    assert model(x=None).x is None  # type: ignore[attr-defined]


def test_class_decorator_markers_are_enforced() -> None:
    @op.MinProperties(1)
    class Selector(op.Model):
        name: str | None = None
        zone: str | None = None

    Selector(name="a")
    with pytest.raises(ValidationError, match="at least 1 properties"):
        Selector()


@pytest.mark.parametrize(
    ("group", "good", "bad", "message"),
    [
        (op.AtMostOneOf, [{"cpu": 1}, {}], [{"cpu": 1, "gpu": 2}], "at most one"),
        (op.ExactlyOneOf, [{"cpu": 1}], [{}, {"cpu": 1, "gpu": 1}], "exactly one"),
        (op.AtLeastOneOf, [{"gpu": 1}, {"cpu": 1, "gpu": 1}], [{}], "at least one"),
    ],
)
def test_one_of_groups_are_enforced(
    group: Any, good: list[dict[str, int]], bad: list[dict[str, int]], message: str
) -> None:
    @group("cpu", "gpu")
    class Resources(op.Model):
        cpu: int | None = None
        gpu: int | None = None

    for value in good:
        Resources(**value)
    for value in bad:
        with pytest.raises(ValidationError, match=message):
            Resources(**value)


def test_map_list_keys_must_differ() -> None:
    class Port(op.Model):
        name: str
        protocol: str = "TCP"
        port: int = 80

    class Spec(op.Model):
        ports: Annotated[
            list[Port],
            op.ListType("map"),
            op.ListMapKey("name"),
            op.ListMapKey("protocol"),
        ] = []

    Spec(ports=[Port(name="a"), Port(name="a", protocol="UDP")])
    with pytest.raises(ValidationError, match=r"ports: item 1: Duplicate value"):
        Spec(ports=[Port(name="a", port=1), Port(name="a", port=2)])


def test_conditions_are_a_map_keyed_by_type() -> None:
    class Status(op.Model):
        conditions: op.Conditions = []

    moment = datetime.datetime(2024, 5, 1, tzinfo=datetime.timezone.utc)
    ready = {
        "type": "Ready",
        "status": "True",
        "reason": "Ok",
        "message": "",
        "lastTransitionTime": moment,
    }
    Status(conditions=[ready, {**ready, "type": "Synced"}])
    with pytest.raises(ValidationError, match="Duplicate value"):
        Status(conditions=[ready, ready])


def test_required_marker_refuses_none() -> None:
    class Spec(op.Model):
        tag: Annotated[str | None, op.Required()] = None

    Spec(tag="v1")
    with pytest.raises(ValidationError, match="tag: Required value"):
        Spec()


def test_cel_rules_are_enforced_too() -> None:
    # tests/cel has the rest: Kubernetes' CEL environment, causes, updates.
    @op.Rule("self.minReplicas <= self.maxReplicas", message="min <= max")
    class Scaling(op.Model):
        min_replicas: int = 0
        max_replicas: int = 10

    with pytest.raises(ValidationError, match="min <= max"):
        Scaling(min_replicas=5, max_replicas=1)


@pytest.mark.parametrize(
    ("number", "integral"),
    [
        (3.0, True),
        (10 * 0.3, True),
        (2.9999999999999996, False),
        (-2.0, True),
        (-2.5, False),
        (0.5, False),
        (2.0**53, False),
    ],
)
def test_float_tolerance_follows_go_openapi(number: float, integral: bool) -> None:
    assert is_json_integer(number) is integral


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        ("^a$", "a\n", False),
        ("(?m)^a$", "a\nb", True),
        (r"^\d$", "٣", False),
        (r"[\s]", "\x0b", False),
        (r"[]a]", "]", True),
        (r"^x\z", "x", True),
        (r"\$", "$", True),
    ],
)
def test_patterns_behave_like_go(pattern: str, text: str, matches: bool) -> None:
    assert (go_regex(pattern).search(text) is not None) is matches


def test_validate_value_reports_paths() -> None:
    schema = {
        "type": "object",
        "required": ["a"],
        "properties": {
            "b": {"type": "array", "items": {"type": "integer", "maximum": 1}}
        },
    }
    assert validate_value({"b": [1, 2]}, schema, "spec") == [
        "spec.a: Required value",
        "spec.b[1]: must be less than or equal to 1",
    ]


def test_map_list_keys_on_a_named_type() -> None:
    class Port(op.Model):
        port: int
        protocol: str = "TCP"

    Ports = TypeAliasType(
        "Ports",
        Annotated[
            list[Port],
            op.ListType("map"),
            op.ListMapKey("port"),
            op.ListMapKey("protocol"),
        ],
    )

    class Spec(op.Model):
        by_number: Ports = []

    Spec(by_number=[{"port": 80}, {"port": 80, "protocol": "UDP"}])
    with pytest.raises(ValidationError, match="Duplicate value"):
        Spec(by_number=[{"port": 80}, {"port": 80}])


def test_scale_replicas_stay_in_the_int32_range() -> None:
    class Spec(op.Model):
        replicas: int = 1

    class Status(op.Model):
        replicas: int = 0

    @op.kind(group="enforce.example.com", version="v1")
    @op.subresource_status()
    @op.subresource_scale(".spec.replicas", ".status.replicas")
    class Scaled(op.CustomResource[Spec, Status]):
        pass

    Scaled(spec=Spec(replicas=2**31 - 1))
    for bad in (2**31, -1):
        with pytest.raises(
            ValidationError, match=r"\.spec\.replicas: must be between 0"
        ):
            Scaled(spec=Spec(replicas=bad))
    with pytest.raises(ValidationError, match=r"\.status\.replicas"):
        Scaled(spec=Spec(), status=Status(replicas=2**32))


def test_required_nullable_fields_may_hold_none() -> None:
    class Spec(op.Model):
        note: Annotated[str | None, op.Nullable(), op.Required()]

    assert Spec(note=None).note is None


def test_markers_count_and_match_the_wire_form() -> None:
    # the validators' quick accepts judge plain values as they are; a map's None
    # values are not sent, so they do not count
    class Spec(op.Model):
        labels: Annotated[dict[str, str | None], op.MaxProperties(1)] = {}
        names: Annotated[list[str], op.MaxItems(1)] = []
        size: Annotated[int | float, op.Maximum(2)] = 0
        tag: Annotated[str, op.Pattern("^v[0-9]+$"), op.MaxLength(2)] = "v1"

    Spec(labels={"a": "x", "b": None}, names=["a"], size=2.0, tag="v2")
    with pytest.raises(ValidationError, match="at most 1 properties"):
        Spec(labels={"a": "x", "b": "y"})
    with pytest.raises(ValidationError, match="at most 1 items"):
        Spec(names=["a", "b"])
    with pytest.raises(ValidationError, match="less than or equal to 2"):
        Spec(size=2.5)
    with pytest.raises(ValidationError, match="should match"):
        Spec(tag="x1")
    with pytest.raises(ValidationError, match=r"op\.MaxLength"):
        Spec(tag="v10")
