"""The API server's OpenAPI dialect: its types, the formats it knows, and their checks.

`OPENAPI_TYPES` are the values of `type`; `STRING_FORMATS` and
`NUMBER_FORMATS` the formats the API server knows (`is_known_format` answers
for one node; the server ignores the others). `CHECKED_FORMATS` holds the
format checks of go-openapi's `strfmt` that opgen ports (by normalised name,
without dashes); `is_date_time` is RFC 3339 as the server reads it;
`quantity_amount` the amount a `resource.Quantity` string stands for.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import ipaddress
import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation

from opgen.engine.duration import parse_go_duration
from opgen.engine.goregex import go_regex

__all__ = [
    "CHECKED_FORMATS",
    "NUMBER_FORMATS",
    "OPENAPI_TYPES",
    "QUANTITY_PATTERN",
    "STRING_FORMATS",
    "is_date_time",
    "is_known_format",
    "quantity_amount",
]

_MAX_INT64 = 2**63 - 1

OPENAPI_TYPES = ("string", "number", "integer", "boolean", "array", "object")
"""The values `type` may take in a Kubernetes schema."""

QUANTITY_PATTERN = (
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?"
    r"(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
"""The pattern controller-gen writes for `resource.Quantity` (an int-or-string)."""

_QUANTITY = re.compile(
    r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$"
)
_QUANTITY_SUFFIXES = {
    "Ki": Decimal(2**10),
    "Mi": Decimal(2**20),
    "Gi": Decimal(2**30),
    "Ti": Decimal(2**40),
    "Pi": Decimal(2**50),
    "Ei": Decimal(2**60),
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "": Decimal(1),
    "k": Decimal("1e3"),
    "M": Decimal("1e6"),
    "G": Decimal("1e9"),
    "T": Decimal("1e12"),
    "P": Decimal("1e15"),
    "E": Decimal("1e18"),
}


def quantity_amount(text: str) -> Decimal | None:
    """The amount a quantity string stands for (`500m` is 0.5, `1Ki` 1024); None
    when `text` is no quantity."""
    match = _QUANTITY.match(text)
    if match is None:
        return None
    number, suffix = match.group(1), match.group(2) or ""
    try:
        if suffix[:1] in ("e", "E"):
            return Decimal(number) * (Decimal(10) ** int(suffix[1:]))
        return Decimal(number) * _QUANTITY_SUFFIXES[suffix]
    except (InvalidOperation, KeyError):
        return None


STRING_FORMATS = frozenset(
    {
        "bsonobjectid",
        "uri",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "cidr",
        "mac",
        "uuid",
        "uuid3",
        "uuid4",
        "uuid5",
        "isbn",
        "isbn10",
        "isbn13",
        "creditcard",
        "ssn",
        "hexcolor",
        "rgbcolor",
        "byte",
        "password",
        "date",
        "duration",
        "date-time",
        "datetime",
        "k8s-short-name",
        "k8s-long-name",
    }
)
"""String formats the API server validates (others are silently ignored by it)."""

NUMBER_FORMATS = {
    "integer": frozenset({"int32", "int64"}),
    "number": frozenset({"float", "double"}),
}

_NORMALISED_STRING_FORMATS = frozenset(f.replace("-", "") for f in STRING_FORMATS)


def is_known_format(fmt: str, json_type: str | None) -> bool:
    """Whether the API server knows `fmt` for values of `json_type` (None or ""
    for an untyped or int-or-string node); it ignores the others. String formats
    are matched without dashes, as the server does (`datetime` = `date-time`)."""
    if json_type in NUMBER_FORMATS:
        return fmt in NUMBER_FORMATS[json_type]
    if json_type in (None, "", "string"):
        return fmt.replace("-", "") in _NORMALISED_STRING_FORMATS
    return False


# --- checks of string formats -----------------------------------------------------

_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_TIME = re.compile(
    r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$"
)
_UUID = {
    "uuid": r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$",
    "uuid3": r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$",
    "uuid4": r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$",
    "uuid5": r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$",
}
_BASE64 = re.compile(
    r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$"
)
_SHORT_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_LONG_NAME = re.compile(
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
)


def _is_date(value: str) -> bool:
    if not _DATE.fullmatch(value):
        return False
    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def is_date_time(value: str) -> bool:
    # strfmt.IsDateTime: a date, a `t`, then the time of day with a zone.
    if len(value) < 4:
        return False
    parts = value.lower().split("t")
    if len(parts) < 2 or not _is_date(parts[0]):
        return False
    match = go_regex(_TIME.pattern).search(parts[1])
    if match is None:
        return False
    hour, minute, second = match.group(1), match.group(2), match.group(3)
    return hour <= "23" and minute <= "59" and second <= "59"


_DURATION_PART = re.compile(r"(([0-9]+)[\t\n\f\r ]*([A-Za-zµ]+))")
_DURATION_UNITS = (
    ("ns", "nano"),
    ("us", "µs", "micro"),
    ("ms", "milli"),
    ("s", "sec"),
    ("m", "min"),
    ("h", "hr", "hour"),
    ("d", "day"),
    ("w", "wk", "week"),
)


def _is_duration(value: str) -> bool:
    # strfmt.ParseDuration: a Go duration, or else any "<digits> <unit word>"
    # found in the text ("3 days", "1 hour and 5 mins").
    try:
        parse_go_duration(value)
    except ValueError:
        pass
    else:
        return True
    found = False
    for match in _DURATION_PART.finditer(value):
        if int(match.group(2)) > _MAX_INT64:
            return False  # strconv.Atoi overflows
        unit = match.group(3).lower()
        for variants in _DURATION_UNITS:
            last = len(variants) - 1
            for position, variant in enumerate(variants):
                if (position == last and unit.startswith(variant)) or unit == variant:
                    found = True
    return found


def _is_base64(value: str) -> bool:
    if not _BASE64.match(value):
        return False
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _is_ip(separator: str) -> Callable[[str], bool]:
    # govalidator: Go's net.ParseIP accepts it and it contains the separator
    # (so "::ffff:1.2.3.4" counts as ipv4 too). Go knows no zones ("%eth0").
    def check(value: str) -> bool:
        if "%" in value:
            return False
        try:
            ipaddress.ip_address(value)
        except ValueError:
            return False
        return separator in value

    return check


def _uuid(name: str) -> Callable[[str], bool]:
    pattern = go_regex(_UUID[name])
    return lambda value: pattern.search(value) is not None


CHECKED_FORMATS: dict[str, Callable[[str], bool]] = {
    "datetime": is_date_time,
    "date": _is_date,
    "duration": _is_duration,
    "byte": _is_base64,
    "ipv4": _is_ip("."),
    "ipv6": _is_ip(":"),
    **{name: _uuid(name) for name in _UUID},
    "k8sshortname": lambda v: len(v) <= 63 and _SHORT_NAME.match(v) is not None,
    "k8slongname": lambda v: len(v) <= 253 and _LONG_NAME.match(v) is not None,
    "password": lambda v: True,
}
"""String formats checked on the Python side, by normalised name (no dashes)."""
