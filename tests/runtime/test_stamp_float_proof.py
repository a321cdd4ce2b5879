"""The stamp's text without a second parse: `applied._float_check(cls)` proves
from the model's types that a wire form holds no float, where msgspec and json
would write one differently. The proof must never pass a wire form with a float,
and the stamp's text must stay json's whatever the values."""

from __future__ import annotations

import enum
import json
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, PlainSerializer

import opgen.api as op
from opgen.runtime.applied import _canonical, _float_check


class Colour(enum.Enum):
    RED = "red"
    ONE = 1


class Ratio(enum.Enum):
    HALF = 0.5


class Plain(BaseModel):
    name: str = ""
    count: int | None = None
    on: bool = False
    colour: Colour | None = None
    mode: Literal["a", "b", 3] | None = None
    tags: list[str] = []
    labels: dict[str, str] = {}
    both: int | str | None = None


class Floats(BaseModel):
    plain: Plain | None = None
    ratio: float | None = None
    anything: Any = None
    ratios: list[Ratio] = []
    numbers: dict[str, int | float] = {}
    as_number: Annotated[int, PlainSerializer(lambda v: v / 1, return_type=float)] = 0
    as_text: Annotated[float, PlainSerializer(str, return_type=str)] = 0.0


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str = ""


class Tree(BaseModel):
    leaf: float | None = None
    children: list[Tree] = []
    opened: Open | None = None


def _has_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(_has_float(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_float(v) for v in value)
    return False


CASES: list[BaseModel] = [
    Plain(name="x", count=10**20, colour=Colour.ONE, mode=3, tags=["1.5e3"]),
    Floats(plain=Plain(name="p")),
    Floats(ratio=1e16),
    Floats(anything={"deep": [1, 2.5]}),
    Floats(anything={"deep": [1, 2]}),
    Floats(ratios=[Ratio.HALF]),
    Floats(numbers={"a": 1e-7}),
    Floats(as_number=3),
    Floats(as_text=1e16),
    Open(name="o"),
    Open(name="o", more=1e16),
    Tree(children=[Tree(children=[Tree()])]),
    Tree(children=[Tree(children=[Tree(leaf=1e-7)])]),
    Tree(children=[Tree(opened=Open(x=0.5))]),
]


@pytest.mark.parametrize("obj", CASES, ids=lambda obj: repr(obj)[:60])
def test_the_proof_passes_no_float_and_the_text_stays_json(obj: BaseModel) -> None:
    wire = obj.model_dump(mode="json", by_alias=True, exclude_none=True)
    proven = _float_check(type(obj))(wire)
    assert not (proven and _has_float(wire))
    expected = json.dumps(wire, sort_keys=True, separators=(",", ":")).encode()
    assert _canonical(wire, _float_check(type(obj))) == expected


def test_the_proof_holds_for_the_kinds_the_example_applies() -> None:
    """The point of it: a Deployment and a Service, as a reconciler builds them,
    need no second parse (a float in their metadata's extras or managedFields
    would, and the proof says so)."""
    deployment = op.k8s.Deployment(
        metadata=op.ObjectMeta(name="d", labels={"a": "b"}),
        spec=op.k8s.DeploymentSpec(
            replicas=1,
            selector=op.k8s.LabelSelector(match_labels={"a": "b"}),
            template=op.k8s.PodTemplateSpec(
                metadata=op.ObjectMeta(labels={"a": "b"}),
                spec=op.k8s.PodSpec(
                    containers=[op.k8s.Container(name="c", image="ray:2.9.0")]
                ),
            ),
        ),
    )
    service = op.k8s.Service(
        metadata=op.ObjectMeta(name="s"),
        spec=op.k8s.ServiceSpec(ports=[op.k8s.ServicePort(port=1, target_port="x")]),
    )
    for obj in (deployment, service):
        wire = obj.model_dump(mode="json", by_alias=True, exclude_none=True)
        wire.update(apiVersion="v", kind="K")
        assert _float_check(type(obj))(wire)
    with_float = deployment.model_copy(deep=True)
    with_float.metadata.managed_fields = [{"fieldsV1": {"f:x": 0.5}}]
    wire = with_float.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert not _float_check(op.k8s.Deployment)(wire)
    wire["metadata"].pop("managedFields")
    wire["metadata"]["extra"] = 1e16
    assert not _float_check(op.k8s.Deployment)(wire)
