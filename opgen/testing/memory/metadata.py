"""What the API server sets and checks in `metadata` itself."""

from __future__ import annotations

import datetime
import functools
import re
import secrets
import uuid
from collections.abc import Callable
from typing import Any

from opgen.testing.memory.answers import Cause

__all__ = [
    "SERVER_OWNED",
    "Clock",
    "generated_name",
    "label_causes",
    "name_causes",
    "new_uid",
    "timestamp",
]

Clock = Callable[[], datetime.datetime]

SERVER_OWNED = (
    "uid",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "generation",
)
"""Fields an update cannot change: the stored object's values are kept."""

_SUBDOMAIN = re.compile(
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
)
_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_SUBDOMAIN_MESSAGE = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric character "
    "(e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
_LABEL_MESSAGE = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters "
    "or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  "
    "or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
_GENERATED_CHARACTERS = "bcdfghjklmnpqrstvwxz2456789"
"""The alphabet of a generated name's suffix (apimachinery's, without vowels)."""


def timestamp(clock: Clock) -> str:
    """A metadata timestamp: RFC 3339 in UTC, whole seconds."""
    t = clock()
    if t.tzinfo is not datetime.timezone.utc:
        t = t.astimezone(datetime.timezone.utc)
    # formatted by hand: strftime costs twice as much, on every write
    return (
        f"{t.year:04d}-{t.month:02d}-{t.day:02d}T"
        f"{t.hour:02d}:{t.minute:02d}:{t.second:02d}Z"
    )


def new_uid() -> str:
    return str(uuid.uuid4())


def generated_name(prefix: str) -> str:
    """`prefix` and five random characters, as the server completes `generateName`."""
    suffix = "".join(secrets.choice(_GENERATED_CHARACTERS) for _ in range(5))
    return prefix[: 63 - 5] + suffix


_NAME_PART = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_NAME_PART_MESSAGE = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  "
    "or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
_LABEL_VALUE_MESSAGE = (
    "a valid label must be an empty string or consist of alphanumeric characters, "
    "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
    "'MyValue',  or 'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


@functools.lru_cache(maxsize=4096)
def _key_problems(key: str) -> tuple[str, ...]:
    """Why a label or annotation key is not a qualified name (`prefix/name`);
    remembered: every write of an object checks its labels again."""
    prefix, _, name = key.rpartition("/")
    problems = []
    if prefix and not _SUBDOMAIN.match(prefix):
        problems.append(f"prefix part {_SUBDOMAIN_MESSAGE}")
    if len(name) > 63:
        problems.append("name part must be no more than 63 characters")
    if not _NAME_PART.match(name):
        problems.append(_NAME_PART_MESSAGE)
    return tuple(f'"{key}": {p}' for p in problems)


@functools.lru_cache(maxsize=4096)
def _label_problems(key: str, value: str) -> tuple[str, ...]:
    """Why a label is not one (its key's problems, then its value's)."""
    problems = list(_key_problems(key))
    if len(value) > 63:
        problems.append(f'"{value}": must be no more than 63 characters')
    if not _LABEL_VALUE.match(value):
        problems.append(f'"{value}": {_LABEL_VALUE_MESSAGE}')
    return tuple(problems)


def label_causes(meta: dict[str, Any]) -> list[Cause]:
    """The server's checks of label keys and values and annotation keys."""
    causes = []
    for field in ("labels", "annotations"):
        for key, value in (meta.get(field) or {}).items():
            if field == "labels":
                problems = _label_problems(key, value)
            else:
                problems = _key_problems(key)
            causes += [
                Cause(f"metadata.{field}", "FieldValueInvalid", f"Invalid value: {p}")
                for p in problems
            ]
    return causes


def name_causes(meta: dict[str, Any], *, dns_label: bool) -> list[Cause]:
    """The server's checks of `metadata.name` (a DNS subdomain; a DNS label for a Namespace)."""
    name = meta.get("name")
    if not name:
        return [
            Cause(
                "metadata.name",
                "FieldValueRequired",
                "Required value: name or generateName is required",
            )
        ]
    pattern, message, limit = (
        (_LABEL, _LABEL_MESSAGE, 63)
        if dns_label
        else (_SUBDOMAIN, _SUBDOMAIN_MESSAGE, 253)
    )
    causes = []
    if len(name) > limit:
        causes.append(
            Cause(
                "metadata.name",
                "FieldValueInvalid",
                f'Invalid value: "{name}": must be no more than {limit} characters',
            )
        )
    if not pattern.match(name):
        causes.append(
            Cause(
                "metadata.name",
                "FieldValueInvalid",
                f'Invalid value: "{name}": {message}',
            )
        )
    return causes
