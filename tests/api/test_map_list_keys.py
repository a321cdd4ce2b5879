"""The quick accept of a `map` list's keys agrees with the full check.

A model's check (`model_check`) first compares the items' keys dumped alone
(`_keys_differ`); only when that cannot tell (a duplicate, a key that is no
plain value, items that are no models) does it dump the items whole and
compare their keys' JSON text as the API server does. These tests hold the
quick accept to that full check: it may only ever accept what the full check
accepts.
"""

from __future__ import annotations

import random
from typing import Annotated, Any, Literal

import pytest
from pydantic import ConfigDict, Field, PlainSerializer, ValidationError
from typing_extensions import TypeAliasType

import opgen.api as op
from opgen.api._enforce import _attributes_differ, _key_fields, _keys_differ, _wire_keys
from opgen.engine.values import constraint_problem
from opgen.engine.wire import to_wire_value


class Port(op.Model):
    name: str | None = None
    protocol: str | int | bool | None = None
    port: int = 80


class Renamed(op.Model):
    """A key whose wire name is an alias, and a key a serializer rewrites."""

    group_name: str | None = Field(default=None, alias="group")
    shade: Annotated[str, PlainSerializer(lambda value: "same")] = "a"


class Loose(op.Model):
    model_config = ConfigDict(extra="allow")


def _full_check(items: list[Any], keys: tuple[str, ...]) -> str | None:
    wire = to_wire_value(items)
    return constraint_problem(
        wire,
        {
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": _wire_keys(wire, keys),
        },
    )


def _ports(draw: random.Random) -> list[Port]:
    names = [None, "a", "b", "\x00missing"]
    protocols: list[Any] = [None, "TCP", "1", 1, True, "true"]
    return [
        Port(
            name=draw.choice(names),
            protocol=draw.choice(protocols),
            port=draw.choice([80, 81]),
        )
        for _ in range(draw.randint(2, 4))
    ]


@pytest.mark.parametrize("seed", range(40))
def test_it_accepts_only_what_the_full_check_accepts(seed: int) -> None:
    draw = random.Random(seed)
    accepted = refused = 0
    for _ in range(50):
        items = _ports(draw)
        for keys in (("name",), ("name", "protocol"), ("protocol",), ("port",)):
            quick = _keys_differ(items, keys)
            full = _full_check(items, keys)
            if quick:
                assert full is None, (items, keys)
                accepted += 1
            elif full is not None:
                refused += 1
    assert accepted and refused  # both outcomes were drawn


def test_it_leaves_to_the_full_check_what_it_cannot_tell() -> None:
    # 1, True and "1" are three keys on the wire (by JSON text): told apart
    assert _keys_differ(
        [Port(protocol=1), Port(protocol=True), Port(protocol="1")], ("protocol",)
    )
    # a duplicate, including two missing keys, is for the full check to phrase
    assert not _keys_differ([Port(name="a"), Port(name="a", port=81)], ("name",))
    assert not _keys_differ([Port(), Port(port=81)], ("name",))
    # what the dump spells: an alias, a key named by its Python name
    renamed = [Renamed(group="x"), Renamed(group="y")]
    assert _keys_differ(renamed, ("group",))
    assert _keys_differ(renamed, ("group_name",)) == (
        _full_check(renamed, ("group_name",)) is None
    )
    # a serializer that writes every key alike: a duplicate on the wire
    assert not _keys_differ([Renamed(shade="a"), Renamed(shade="b")], ("shade",))
    assert _full_check([Renamed(shade="a"), Renamed(shade="b")], ("shade",))
    # extra fields, and items that are no models
    loose = [Loose(key="a"), Loose(key="b")]
    assert _keys_differ(loose, ("key",)) and _full_check(loose, ("key",)) is None
    assert not _keys_differ([{"name": "a"}, {"name": "b"}], ("name",))


def test_a_model_refuses_duplicate_keys_with_the_same_message() -> None:
    class Spec(op.Model):
        ports: Annotated[
            list[Port],
            op.ListType("map"),
            op.ListMapKey("name"),
            op.ListMapKey("protocol"),
        ] = []

    Spec(ports=[Port(name="a", protocol="TCP"), Port(name="a", protocol="UDP")])
    Spec(ports=[Port(name="a", protocol=1), Port(name="a", protocol=True)])
    with pytest.raises(ValidationError, match=r"ports: item 1: Duplicate value"):
        Spec(ports=[Port(name="a", port=1), Port(name="a", port=2)])
    with pytest.raises(ValidationError, match=r"ports: item 2: Duplicate value"):
        Spec(ports=[Port(name="a"), Port(name="b"), Port(name="a", port=2)])


Kind = TypeAliasType("Kind", Annotated[str, Field(description="a kind")])
Shaded = TypeAliasType("Shaded", Annotated[str, PlainSerializer(lambda value: "x")])


class Plain(op.Model):
    """Keys read from the attributes: plain fields, aliased, literal, aliased types."""

    group_name: Annotated[str, op.MinLength(1)] = "g"
    kind: Kind | None = None
    level: Literal["low", "high"] = "low"
    count: int = 0


class Unplain(op.Model):
    """Keys the attributes cannot tell: serialized by a type alias, a union."""

    shade: Shaded = "a"
    either: str | int | None = None


def test_the_attributes_tell_plain_keys_as_the_full_check() -> None:
    draw = random.Random(7)
    told = 0
    for _ in range(300):
        items = [
            Plain(
                group_name=draw.choice(["a", "b"]),
                kind=draw.choice([None, "x", "y"]),
                level=draw.choice(["low", "high"]),
                count=draw.choice([0, 1]),
            )
            for _ in range(draw.randint(2, 3))
        ]
        for keys in (("groupName",), ("group_name", "kind"), ("level", "count")):
            assert _key_fields(Plain, keys) is not None
            if _attributes_differ(items, keys):
                assert _full_check(items, keys) is None, (items, keys)
                told += 1
    assert told


def test_the_attributes_leave_what_the_wire_may_change() -> None:
    assert _key_fields(Unplain, ("shade",)) is None
    assert _key_fields(Unplain, ("either",)) is None
    assert _key_fields(Renamed, ("group_name",)) is None  # its wire name is `group`
    assert _key_fields(Renamed, ("shade",)) is None
    assert _key_fields(Loose, ("key",)) is None
    assert _key_fields(Port, ("name", "port")) == ("name", "port")
    shaded = [Unplain(shade="a"), Unplain(shade="b")]
    assert not _keys_differ(shaded, ("shade",))
    assert _full_check(shaded, ("shade",))
    # a duplicate is left to the full check, which phrases it
    assert not _attributes_differ([Plain(), Plain(count=1)], ("groupName",))
    # a value of another type than the field's (a str subclass): not told here
    assert not _attributes_differ(
        [Plain.model_construct(group_name=_Text("a")), Plain(group_name="b")],
        ("groupName",),
    )


class _Text(str):
    pass
