"""Pydantic's own constraints, Literal, Enum and defaults give what the markers give."""

from __future__ import annotations

import enum
from typing import Annotated, Any, Literal

import pytest
from pydantic import Field

import opgen.api as op
from tests.schema.util import field


class Mode(str, enum.Enum):
    FAST = "Fast"
    SAFE = "Safe"


PAIRS: list[tuple[Any, Any]] = [
    (Annotated[int, Field(ge=1)], Annotated[int, op.Minimum(1)]),
    (Annotated[int, Field(le=9)], Annotated[int, op.Maximum(9)]),
    (Annotated[int, Field(gt=0)], Annotated[int, op.ExclusiveMinimum(0)]),
    (Annotated[int, Field(lt=9)], Annotated[int, op.ExclusiveMaximum(9)]),
    (Annotated[int, Field(multiple_of=4)], Annotated[int, op.MultipleOf(4)]),
    (Annotated[str, Field(min_length=1)], Annotated[str, op.MinLength(1)]),
    (Annotated[str, Field(max_length=9)], Annotated[str, op.MaxLength(9)]),
    (Annotated[str, Field(pattern="^a")], Annotated[str, op.Pattern("^a")]),
    (Annotated[list[int], Field(min_length=1)], Annotated[list[int], op.MinItems(1)]),
    (Annotated[list[int], Field(max_length=3)], Annotated[list[int], op.MaxItems(3)]),
    (
        Annotated[dict[str, int], Field(min_length=1)],
        Annotated[dict[str, int], op.MinProperties(1)],
    ),
    (
        Annotated[dict[str, int], Field(max_length=3)],
        Annotated[dict[str, int], op.MaxProperties(3)],
    ),
    (Literal["Fast", "Safe"], Annotated[str, op.Enum("Fast", "Safe")]),
    (Mode, Annotated[str, op.Enum("Fast", "Safe")]),
    (set[str], Annotated[list[str], op.UniqueItems()]),
]


@pytest.mark.parametrize(("pydantic_way", "marker_way"), PAIRS)
def test_same_schema(pydantic_way: Any, marker_way: Any) -> None:
    class ByPydantic(op.Model):
        value: pydantic_way

    class ByMarker(op.Model):
        value: marker_way

    assert field(ByPydantic, "value") == field(ByMarker, "value")


def test_python_default_equals_default_marker() -> None:
    class ByPython(op.Model):
        value: int = 3

    class ByMarker(op.Model):
        value: Annotated[int, op.Default(3), op.Optional()]

    assert (
        field(ByPython, "value")
        == field(ByMarker, "value")
        == {"type": "integer", "default": 3}
    )


def test_models_still_give_a_plain_json_schema() -> None:
    """Markers and special types do not get in the way of Pydantic's own JSON schema."""
    from pathlib import Path

    from opgen.load import import_module_from_path

    example = (
        Path(__file__).resolve().parents[2]
        / "examples"
        / "standalone"
        / "raycluster_types.py"
    )
    schema = import_module_from_path(example).RayCluster.model_json_schema()
    assert schema["properties"]["spec"]["$ref"].endswith("RayClusterSpec")
