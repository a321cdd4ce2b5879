"""Kubernetes value types validate and serialise like the Go types."""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any

import pytest
from pydantic import ValidationError

import opgen.api as op


class Values(op.Model):
    quantity: op.Quantity = "0"
    int_or_string: op.IntOrString = 0
    time: op.Time | None = None
    micro_time: op.MicroTime | None = None
    duration: op.Duration | None = None
    data: op.Bytes | None = None
    raw: op.RawExtension = {}
    anything: op.JSON = None
    ratio: op.Float = 0.0


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("500m", "500m"),
        ("1.5Gi", "1.5Gi"),
        (2, "2"),
        ("1e3", "1e3"),
        (0.5, "0.5"),
        (2.0, "2"),
    ],
)
def test_quantity(given: Any, kept: str) -> None:
    assert Values(quantity=given).quantity == kept


@pytest.mark.parametrize("given", ["1.5 Gi", "abc", "1Gb", True, [1]])
def test_quantity_refuses(given: Any) -> None:
    with pytest.raises(ValidationError):
        Values(quantity=given)


def test_int_or_string_keeps_the_kind() -> None:
    assert Values(int_or_string=8080).int_or_string == 8080
    assert Values(int_or_string="http").int_or_string == "http"
    assert Values.model_validate({"intOrString": "25%"}).int_or_string == "25%"


def test_time_is_rfc3339_utc_seconds() -> None:
    moment = datetime.datetime(
        2024,
        5,
        1,
        14,
        0,
        0,
        123456,
        tzinfo=datetime.timezone(datetime.timedelta(hours=2)),
    )
    dumped = Values(time=moment, micro_time=moment).model_dump(
        mode="json", exclude_none=True
    )
    assert dumped["time"] == "2024-05-01T12:00:00Z"
    assert dumped["microTime"] == "2024-05-01T12:00:00.123456Z"
    parsed = Values.model_validate({"time": "2024-05-01T12:00:00Z"}).time
    assert parsed == datetime.datetime(2024, 5, 1, 12, tzinfo=datetime.timezone.utc)


def test_naive_time_is_utc() -> None:
    value = Values(time=datetime.datetime(2024, 1, 1)).time
    assert value is not None and value.tzinfo == datetime.timezone.utc


def test_duration_is_a_go_string_on_the_wire() -> None:
    values = Values.model_validate({"duration": "1h30m"})
    assert values.duration == datetime.timedelta(minutes=90)
    assert values.model_dump(mode="json")["duration"] == "1h30m0s"
    assert (
        Values(duration=datetime.timedelta(seconds=1.5)).model_dump(mode="json")[
            "duration"
        ]
        == "1.5s"
    )
    with pytest.raises(ValidationError, match="invalid duration"):
        Values.model_validate({"duration": "PT30S"})
    with pytest.raises(ValidationError):
        Values.model_validate({"duration": 30})


def test_bytes_are_standard_base64() -> None:
    values = Values(data=b"\xfb\xff\xfe")
    assert values.model_dump(mode="json")["data"] == "+//+"
    assert Values.model_validate({"data": "+//+"}).data == b"\xfb\xff\xfe"
    with pytest.raises(ValidationError, match="not standard base64"):
        Values.model_validate({"data": "-__-"})


def test_raw_and_json_keep_anything() -> None:
    values = Values.model_validate(
        {"raw": {"a": [1, {"b": None}]}, "anything": [1, "x"]}
    )
    assert values.raw == {"a": [1, {"b": None}]}
    assert values.anything == [1, "x"]


def test_condition_round_trip() -> None:
    condition = op.Condition(
        type="Ready",
        status="True",
        reason="AllGood",
        message="",
        last_transition_time=datetime.datetime(
            2024, 1, 1, tzinfo=datetime.timezone.utc
        ),
        observed_generation=3,
    )
    wire = condition.model_dump(mode="json", exclude_none=True)
    assert wire == {
        "type": "Ready",
        "status": "True",
        "observedGeneration": 3,
        "lastTransitionTime": "2024-01-01T00:00:00Z",
        "reason": "AllGood",
        "message": "",
    }
    assert op.Condition.model_validate(wire) == condition
    with pytest.raises(ValidationError):
        op.Condition.model_validate({**wire, "status": "Maybe"})


def test_object_meta_keeps_unknown_server_fields() -> None:
    meta = op.ObjectMeta.model_validate(
        {
            "name": "a",
            "uid": "123",
            "creationTimestamp": "2024-01-01T00:00:00Z",
            "ownerReferences": [
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "name": "p",
                    "uid": "u",
                    "controller": True,
                }
            ],
            "somethingNew": {"x": 1},
        }
    )
    assert meta.name == "a"
    assert (
        meta.owner_references is not None
        and meta.owner_references[0].controller is True
    )
    wire = meta.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert wire["somethingNew"] == {"x": 1}
    assert wire["creationTimestamp"] == "2024-01-01T00:00:00Z"


def test_references() -> None:
    reference = op.ObjectReference(api_version="v1", kind="Pod", name="p")
    assert reference.model_dump(mode="json", exclude_none=True) == {
        "apiVersion": "v1",
        "kind": "Pod",
        "name": "p",
    }
    assert op.LocalObjectReference().name == ""


def test_bytes_refuse_empty_values_as_the_api_server_does() -> None:
    # format: byte needs at least one base64 group; "" is refused (tests/proof).
    class Spec(op.Model):
        ca: op.Bytes | None = None

    assert Spec(ca="aGk=").ca == b"hi"
    for empty in ("", b""):
        with pytest.raises(ValidationError, match="refuses an empty byte string"):
            Spec(ca=empty)


@pytest.mark.parametrize(
    "text",
    [
        "2024-05-01 12:00:00Z",
        "2024-05-01T12:00:00",
        "2024-05-01T12:00Z",
        "20240501T120000Z",
    ],
)
def test_time_strings_follow_the_api_servers_date_time_format(text: str) -> None:
    # Pydantic alone accepted these; the server's format: date-time refuses them.
    with pytest.raises(ValidationError, match="not an RFC 3339 date-time"):
        Values(time=text)


def test_time_keeps_lower_case_separators_and_offsets() -> None:
    values = Values(time="2024-05-01t14:00:00.5+02:00")
    assert values.model_dump(mode="json")["time"] == "2024-05-01T12:00:00Z"


def test_early_years_have_four_digits() -> None:
    # strftime("%Y") wrote "5-01-01T00:00:00Z", which the server refuses.
    early = datetime.datetime(5, 1, 1, 0, 0, 0, 7, tzinfo=datetime.timezone.utc)
    dumped = Values(time=early, micro_time=early).model_dump(mode="json")
    assert dumped["time"] == "0005-01-01T00:00:00Z"
    assert dumped["microTime"] == "0005-01-01T00:00:00.000007Z"


@pytest.mark.parametrize(
    ("given", "amount"),
    [
        ("500m", Decimal("0.5")),
        ("1Ki", Decimal(1024)),
        ("1.5Gi", Decimal(1610612736)),
        ("2k", Decimal(2000)),
        ("1e3", Decimal(1000)),
        (2, Decimal(2)),
    ],
)
def test_quantity_amount(given: str | int, amount: Decimal) -> None:
    assert op.quantity_amount(given) == amount


@pytest.mark.parametrize("given", ["1Gb", "", "abc", True])
def test_quantity_amount_refuses_what_is_no_quantity(given: Any) -> None:
    with pytest.raises(ValueError, match="is not a Kubernetes quantity"):
        op.quantity_amount(given)
