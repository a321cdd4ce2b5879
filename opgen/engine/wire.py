"""A Python value as it travels to the API server (its wire form).

Models by alias and without `None` fields, enums by value, `timedelta` as a Go
duration, naive or aware `datetime` as RFC 3339 in UTC, bytes as standard
base64. Used for CRD defaults and examples, and by markers that validate
values the way the server will see them.
"""

from __future__ import annotations

import base64
import datetime
import enum
from typing import Any

import pydantic_core

from opgen.engine.duration import format_go_duration

__all__ = ["rfc3339", "to_wire_value"]


def rfc3339(value: datetime.datetime, *, micro: bool = False) -> str:
    """`value` in UTC as RFC 3339 (naive means UTC), four-digit year always.

    (`strftime("%Y")` drops the leading zeros of years before 1000, which the
    API server refuses.)
    """
    moment = value if value.tzinfo else value.replace(tzinfo=datetime.timezone.utc)
    if moment.utcoffset():
        moment = moment.astimezone(datetime.timezone.utc)
    # isoformat writes in C (every object with a time is written through here):
    # `2024-05-01T12:00:00+00:00`, the zone replaced by `Z`
    text = moment.isoformat(timespec="microseconds" if micro else "seconds")
    return text[:-6] + "Z"


_SCALARS = frozenset({str, int, bool, float, type(None)})
"""Types whose values travel as they are (checked first: most values are these)."""


def to_wire_value(value: object) -> Any:
    """A Python value as it travels on the wire (models by alias, durations Go-style)."""
    if type(value) in _SCALARS:
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(value, enum.Enum):
        return to_wire_value(value.value)
    if isinstance(value, datetime.timedelta):
        return format_go_duration(value)
    if isinstance(value, datetime.datetime):
        return rfc3339(value)
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, dict):
        return {str(k): to_wire_value(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [to_wire_value(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(to_wire_value(v) for v in value)
    return pydantic_core.to_jsonable_python(value)
