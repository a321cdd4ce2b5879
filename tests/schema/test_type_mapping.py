"""Python and Pydantic types → Kubernetes schema nodes (the generator's overrides)."""

from __future__ import annotations

import datetime
import enum
import uuid
from typing import Annotated, Any, Literal

import pytest
from pydantic import ConfigDict, Field

import opgen.api as op
from opgen.errors import SchemaError
from tests.schema.util import field, spec_schema, warnings_of


class Color(str, enum.Enum):
    """A color."""

    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Inner(op.Model):
    """Inner type."""

    a: int


def test_scalars() -> None:
    class Spec(op.Model):
        s: str
        i: int
        b: bool
        u: uuid.UUID
        d: datetime.date
        t: datetime.datetime

    props = spec_schema(Spec)["properties"]
    assert props["s"] == {"type": "string"}
    assert props["i"] == {"type": "integer"}
    assert props["b"] == {"type": "boolean"}
    assert props["u"] == {"type": "string", "format": "uuid"}
    assert props["d"] == {"type": "string", "format": "date"}
    assert props["t"] == {"type": "string", "format": "date-time"}


def test_optional_is_optional_not_nullable() -> None:
    class Spec(op.Model):
        a: int | None = None
        b: int

    node = spec_schema(Spec)
    assert node["properties"]["a"] == {"type": "integer"}
    assert node["required"] == ["b"]


def test_optional_without_default_is_optional_with_a_warning() -> None:
    class Spec(op.Model):
        a: int | None

    assert "required" not in spec_schema(Spec)
    (warning,) = warnings_of(Spec)
    assert "`X | None` without a default" in str(warning)
    assert warning.location is not None and warning.location.field == "a"


def test_none_inside_a_list_is_nullable() -> None:
    class Spec(op.Model):
        items: list[int | None] = []

    assert field(Spec, "items")["items"] == {"type": "integer", "nullable": True}


def test_exclusive_bounds_use_the_openapi_3_form() -> None:
    class Spec(op.Model):
        a: Annotated[int, Field(gt=0, lt=10)]

    assert field(Spec, "a") == {
        "type": "integer",
        "minimum": 0,
        "exclusiveMinimum": True,
        "maximum": 10,
        "exclusiveMaximum": True,
    }


def test_literal_and_enum_become_enum_with_a_type() -> None:
    class Spec(op.Model):
        single: Literal["v1"]
        many: Literal[1, 2]
        mixed: Literal[1, "a"]
        color: Color
        level: Level

    props = spec_schema(Spec)["properties"]
    assert props["single"] == {"type": "string", "enum": ["v1"]}
    assert props["many"] == {"type": "integer", "enum": [1, 2]}
    assert props["mixed"] == {
        "anyOf": [{"type": "integer"}, {"type": "string"}],
        "x-kubernetes-int-or-string": True,
        "enum": [1, "a"],
    }
    assert props["color"] == {
        "type": "string",
        "enum": ["red", "blue"],
        "description": "A color.",
    }
    assert props["level"] == {"type": "integer", "enum": [1, 2]}


def test_containers() -> None:
    class Spec(op.Model):
        names: list[str] = []
        tags: set[str] = set()
        frozen: frozenset[int] = frozenset()
        many: tuple[int, ...] = ()
        env: dict[str, str] = {}
        anything: dict[str, Any] = {}
        raw: list[Any] = []

    props = spec_schema(Spec)["properties"]
    assert props["names"] == {"type": "array", "items": {"type": "string"}}
    assert props["tags"] == {
        "type": "array",
        "items": {"type": "string"},
        "x-kubernetes-list-type": "set",
    }
    assert props["frozen"]["x-kubernetes-list-type"] == "set"
    assert props["many"] == {"type": "array", "items": {"type": "integer"}}
    assert props["env"] == {
        "type": "object",
        "additionalProperties": {"type": "string"},
    }
    assert props["anything"] == {
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": True,
    }
    assert props["raw"] == {
        "type": "array",
        "items": {"x-kubernetes-preserve-unknown-fields": True},
    }


def test_any_and_int_or_string() -> None:
    class Spec(op.Model):
        value: Any = None
        port: int | str = 80

    props = spec_schema(Spec)["properties"]
    assert props["value"] == {"x-kubernetes-preserve-unknown-fields": True}
    assert props["port"] == {
        "anyOf": [{"type": "integer"}, {"type": "string"}],
        "x-kubernetes-int-or-string": True,
        "default": 80,
    }


def test_models_are_inlined_with_descriptions() -> None:
    class Spec(op.Model):
        plain: Inner
        documented: Inner
        """Field doc."""

    props = spec_schema(Spec)["properties"]
    assert props["plain"]["description"] == "Inner type."
    assert props["documented"]["description"] == "Field doc."
    assert props["plain"]["properties"] == {"a": {"type": "integer"}}
    assert "title" not in props["plain"]


def test_extra_forbid_and_allow() -> None:
    class Closed(op.Model):
        model_config = ConfigDict(extra="forbid")
        a: int = 0

    class Open(op.Model):
        model_config = ConfigDict(extra="allow")
        a: int = 0

    class Spec(op.Model):
        closed: Closed = Closed()
        open: Open = Open()

    props = spec_schema(Spec)["properties"]
    assert "additionalProperties" not in props["closed"]
    assert props["open"]["x-kubernetes-preserve-unknown-fields"] is True


def test_pydantic_formats_the_api_server_ignores_are_dropped() -> None:
    from pathlib import Path

    class Spec(op.Model):
        path: Path
        when: datetime.time

    props = spec_schema(Spec)["properties"]
    assert props["path"] == {"type": "string"}
    assert props["when"] == {"type": "string"}


def test_examples_become_example() -> None:
    class Spec(op.Model):
        a: Annotated[int, Field(examples=[3])]

    assert field(Spec, "a") == {"type": "integer", "example": 3}


@pytest.mark.parametrize(
    ("annotation", "message"),
    [
        (float, "float fields are refused"),
        (bytes, "URL-safe base64"),
        (datetime.timedelta, "use op.Duration"),
        (tuple[int, str], "fixed-shape tuple"),
        (dict[int, str], "map keys must be plain strings"),
        (Inner | Color, "has no structural Kubernetes schema"),
        (int | float, "a union (integer, number)"),
    ],
)
def test_refused_types(annotation: Any, message: str) -> None:
    class Spec(op.Model):
        value: annotation

    with pytest.raises(SchemaError) as raised:
        spec_schema(Spec)
    assert message in str(raised.value)
    assert raised.value.location is not None
    assert raised.value.location.field == "value"


def test_decimal_is_refused() -> None:
    from decimal import Decimal

    class Spec(op.Model):
        amount: Decimal

    with pytest.raises(SchemaError, match="Decimal has no exact Kubernetes type"):
        spec_schema(Spec)


def test_float_opt_in() -> None:
    class Spec(op.Model):
        a: op.Float
        b: Annotated[float, op.Type("number")]
        c: Annotated[list[float], op.Items(op.Type("number"))] = []

    props = spec_schema(Spec)["properties"]
    assert props["a"] == props["b"] == {"type": "number"}
    assert props["c"]["items"] == {"type": "number"}
