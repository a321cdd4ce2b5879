"""Kubernetes value types: Quantity, IntOrString, Time, MicroTime, Duration, ...

Each is an `Annotated` alias of a plain Python type with validation and
serialisation that match the Kubernetes wire format, plus the fixed schema
controller-gen gives the Go type (`KnownSchema`), so the CRD accepts exactly
what the Python side produces.
"""

from __future__ import annotations

import base64
import binascii
import copy
import datetime
import functools
import re
from decimal import Decimal
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BeforeValidator,
    GetJsonSchemaHandler,
    PlainSerializer,
)
from pydantic_core import CoreSchema

from opgen.api._shape import Type
from opgen.engine import openapi
from opgen.engine.duration import (
    DURATION_PATTERN,
    format_go_duration,
    parse_go_duration,
)
from opgen.engine.markers import SchemaNode
from opgen.engine.openapi import QUANTITY_PATTERN
from opgen.engine.wire import rfc3339

__all__ = [
    "JSON",
    "QUANTITY_PATTERN",
    "Bytes",
    "Duration",
    "Float",
    "IntOrString",
    "KnownSchema",
    "MicroTime",
    "Quantity",
    "RawExtension",
    "Time",
    "quantity_amount",
]

_QUANTITY = re.compile(openapi.QUANTITY_PATTERN)


class KnownSchema:
    """`Annotated` metadata that gives a type a fixed Kubernetes schema."""

    __slots__ = ("schema",)

    def __init__(self, schema: SchemaNode) -> None:
        self.schema = schema

    def __repr__(self) -> str:
        return f"KnownSchema({self.schema!r})"

    def __get_pydantic_json_schema__(
        self, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> SchemaNode:
        return copy.deepcopy(self.schema)


def _quantity(value: object) -> str:
    if isinstance(value, bool):
        raise ValueError("a quantity is a number or a string like '500m' or '1Gi'")
    if isinstance(value, int):
        value = str(value)
    elif isinstance(value, float):
        value = (
            format(value, "f").rstrip("0").rstrip(".")
            if value.is_integer()
            else repr(value)
        )
    if not isinstance(value, str) or not (
        _is_quantity(value)
        if len(value) <= _REMEMBERED
        else _QUANTITY.match(value) is not None
    ):
        raise ValueError(
            f"{value!r} is not a Kubernetes quantity (e.g. 100m, 2, 1.5Gi)"
        )
    return value


_REMEMBERED = 64
"""Strings up to this long have their check remembered (quantities, times)."""


@functools.lru_cache(maxsize=1024)
def _is_quantity(text: str) -> bool:
    # a few quantities ("1", "2Gi", "500m") recur in every pod template
    return _QUANTITY.match(text) is not None


Quantity = Annotated[
    str,
    BeforeValidator(_quantity),
    KnownSchema(
        {
            "anyOf": [{"type": "integer"}, {"type": "string"}],
            "pattern": openapi.QUANTITY_PATTERN,
            "x-kubernetes-int-or-string": True,
        }
    ),
]
"""A resource quantity (`resource.Quantity`): `"500m"`, `2`, `"1.5Gi"`; kept as a string."""


def quantity_amount(quantity: str | int) -> Decimal:
    """The amount a quantity stands for, exactly: `"500m"` is 0.5, `"1Ki"` 1024,
    `2` is 2. ValueError for anything that is no quantity."""
    found = (
        None if isinstance(quantity, bool) else openapi.quantity_amount(str(quantity))
    )
    if found is None:
        raise ValueError(
            f"{quantity!r} is not a Kubernetes quantity (e.g. 100m, 2, 1.5Gi)"
        )
    return found


IntOrString = Annotated[
    int | str,
    KnownSchema(
        {
            "anyOf": [{"type": "integer"}, {"type": "string"}],
            "x-kubernetes-int-or-string": True,
        }
    ),
]
"""An integer or a string (`intstr.IntOrString`), e.g. a port number or name, or `"25%"`."""


_SERVER_TIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]Z"
)
"""How the API server writes every Time (`2024-05-01T12:00:00Z`): a quick accept
for what `openapi.is_date_time` would accept, its Go regex costing the most of
decoding a small object."""


@functools.lru_cache(maxsize=1024)
def _server_time(value: str) -> bool:
    # 20 characters (its caller checks): an object's timestamps recur on every
    # decode of it
    if _SERVER_TIME.fullmatch(value) is None:
        return False
    try:
        datetime.date.fromisoformat(value[:10])
    except ValueError:
        return False
    return True


def _utc(value: object) -> object:
    if (
        isinstance(value, str)
        and not (len(value) == 20 and _server_time(value))
        and not openapi.is_date_time(value)
    ):
        # Pydantic alone also takes "2024-05-01 12:00" or no zone; the server does not.
        raise ValueError(
            f"{value!r} is not an RFC 3339 date-time the API server accepts "
            "(e.g. 2024-05-01T12:00:00Z or 2024-05-01T14:00:00.5+02:00)"
        )
    if isinstance(value, datetime.datetime) and value.tzinfo is None:
        return value.replace(tzinfo=datetime.timezone.utc)
    return value


def _whole_seconds(value: datetime.datetime) -> datetime.datetime:
    # The API server keeps a Time to the second: holding more would make a value
    # read back differ from the one written, and a status holding it be patched
    # on every reconcile.
    return value.replace(microsecond=0) if value.microsecond else value


def _rfc3339(value: datetime.datetime) -> str:
    return rfc3339(value)


def _rfc3339_micro(value: datetime.datetime) -> str:
    return rfc3339(value, micro=True)


Time = Annotated[
    datetime.datetime,
    BeforeValidator(_utc),
    AfterValidator(_whole_seconds),
    PlainSerializer(_rfc3339, return_type=str, when_used="json"),
    KnownSchema({"type": "string", "format": "date-time"}),
]
"""A timestamp (`metav1.Time`): RFC 3339 in UTC with second precision, `2024-05-01T12:00:00Z`;
held to the second, as the API server stores it."""

MicroTime = Annotated[
    datetime.datetime,
    BeforeValidator(_utc),
    PlainSerializer(_rfc3339_micro, return_type=str, when_used="json"),
    KnownSchema({"type": "string", "format": "date-time"}),
]
"""A timestamp with microseconds (`metav1.MicroTime`): `2024-05-01T12:00:00.000001Z`."""


def _duration(value: object) -> object:
    if isinstance(value, str):
        return parse_go_duration(value)
    if isinstance(value, datetime.timedelta):
        return value
    raise ValueError("a duration is a Go duration string like '1h30m' or a timedelta")


Duration = Annotated[
    datetime.timedelta,
    BeforeValidator(_duration),
    PlainSerializer(format_go_duration, return_type=str, when_used="json"),
    KnownSchema({"type": "string", "pattern": DURATION_PATTERN}),
]
"""A duration (`metav1.Duration`) as a Go duration string: `1h30m`, `300ms`, `-1.5s`.
The CRD carries a pattern (controller-gen's has none), so the API server refuses
strings Python could not parse, such as `""` or `1d`."""


def _base64(value: object) -> object:
    if isinstance(value, str):
        try:
            return base64.b64decode(value, validate=True)
        except binascii.Error as error:
            raise ValueError(f"not standard base64: {error}") from None
    return value


def _not_empty(value: bytes) -> bytes:
    if not value:
        raise ValueError(
            "the API server refuses an empty byte string (format: byte needs at least "
            "one byte); use None to leave the field out"
        )
    return value


def _to_base64(value: bytes) -> str:
    return base64.b64encode(value).decode("ascii")


Bytes = Annotated[
    bytes,
    BeforeValidator(_base64),
    AfterValidator(_not_empty),
    PlainSerializer(_to_base64, return_type=str, when_used="json"),
    KnownSchema({"type": "string", "format": "byte"}),
]
"""Binary data (`[]byte`), standard base64 on the wire; never empty (the API
server refuses `""` for `format: byte`)."""

RawExtension = Annotated[
    dict[str, Any],
    KnownSchema({"type": "object", "x-kubernetes-preserve-unknown-fields": True}),
]
"""An embedded object kept as it is (`runtime.RawExtension`)."""

JSON = Annotated[Any, KnownSchema({"x-kubernetes-preserve-unknown-fields": True})]
"""Any JSON value (`apiextensions/v1.JSON`): object, list, string, number, bool or null."""

Float = Annotated[float, Type("number")]
"""A floating-point number (`type: number`). Plain `float` fields are refused
unless they opt in like this: Go and JSON clients round floats differently, so
Kubernetes APIs prefer integers or Quantity."""
