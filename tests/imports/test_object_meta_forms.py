"""`op.EmbeddedObjectMeta`: the form of nested metadata, per field (issue 22, class 11).

A CRD may describe one nested `metadata` (`name`, `namespace`, `labels`,
`annotations`, `finalizers`) and leave another `{type: object}`; one global
`--embedded-object-meta` cannot write both. The marker fixes the form below
a field or type, whatever the option says; `opgen import` writes it where a
CRD describes the metadata (tests/imports/test_round_trip.py, and the corpus).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opgen.errors import MarkerError
from opgen.load import load_kinds
from opgen.pipeline import crd_of
from opgen.schema.options import CrdOptions

_TYPES = '''
from typing import Annotated

import opgen.api as op


class Holder(op.Model):
    template: Annotated[op.k8s.PodTemplateSpec, op.EmbeddedObjectMeta(False)]
    other: op.k8s.PodTemplateSpec | None = None


class Spec(op.Model):
    described: Annotated[op.k8s.PodTemplateSpec, op.EmbeddedObjectMeta()] | None = None
    plain: Annotated[op.k8s.PodTemplateSpec, op.EmbeddedObjectMeta(False)] | None = None
    unmarked: op.k8s.PodTemplateSpec | None = None
    meta: Annotated[op.ObjectMeta, op.EmbeddedObjectMeta()] | None = None
    claims: Annotated[
        list[op.k8s.PersistentVolumeClaimTemplate], op.EmbeddedObjectMeta()
    ] = []
    inner_wins: Annotated[Holder, op.EmbeddedObjectMeta()] | None = None


@op.kind(group="forms.example.com", version="v1")
class Thing(op.CustomResource[Spec, None]):
    """A thing."""
'''
_DESCRIBED = ["annotations", "finalizers", "labels", "name", "namespace"]


def _spec(tmp_path: Path, types: str, *, option: bool) -> dict[str, Any]:
    path = tmp_path / "thing_types.py"
    path.write_text(types)
    loaded = load_kinds([path])
    (kind,) = loaded.kinds
    options = CrdOptions(max_description_length=0, embedded_object_meta=option)
    document, _, _ = crd_of(loaded, kind, options)
    root = document["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    spec: dict[str, Any] = root["properties"]["spec"]["properties"]
    return spec


def _form(node: dict[str, Any]) -> list[str]:
    return sorted(node.get("properties") or {})


@pytest.mark.parametrize("option", [False, True])
def test_the_marker_holds_whatever_the_option(tmp_path: Path, option: bool) -> None:
    spec = _spec(tmp_path, _TYPES, option=option)
    assert _form(spec["described"]["properties"]["metadata"]) == _DESCRIBED
    assert _form(spec["plain"]["properties"]["metadata"]) == []
    assert spec["plain"]["properties"]["metadata"] == {"type": "object"}
    assert _form(spec["meta"]) == _DESCRIBED
    assert _form(spec["claims"]["items"]["properties"]["metadata"]) == _DESCRIBED
    unmarked = spec["unmarked"]["properties"]["metadata"]
    assert _form(unmarked) == (_DESCRIBED if option else [])
    holder = spec["innerWins"]["properties"]
    assert _form(holder["template"]["properties"]["metadata"]) == []
    assert _form(holder["other"]["properties"]["metadata"]) == _DESCRIBED


def test_every_object_meta_below_and_only_there(tmp_path: Path) -> None:
    """The marked field's copy of PodSpec describes the ephemeral volume's
    claim template too (as generateEmbeddedObjectMeta does); the schema of
    the type that other fields share is left as it was."""
    spec = _spec(tmp_path, _TYPES, option=False)

    def claim(field: str) -> dict[str, Any]:
        volumes = spec[field]["properties"]["spec"]["properties"]["volumes"]
        ephemeral = volumes["items"]["properties"]["ephemeral"]["properties"]
        metadata: dict[str, Any] = ephemeral["volumeClaimTemplate"]["properties"][
            "metadata"
        ]
        return metadata

    assert _form(claim("described")) == _DESCRIBED
    assert _form(claim("unmarked")) == []
    assert _form(claim("plain")) == []


def test_the_marker_where_no_object_meta_is_below_is_an_error(tmp_path: Path) -> None:
    types = _TYPES.replace(
        "inner_wins: Annotated[Holder, op.EmbeddedObjectMeta()] | None = None",
        "inner_wins: Annotated[op.k8s.Toleration, op.EmbeddedObjectMeta()] | None = None",
    )
    with pytest.raises(MarkerError) as raised:
        _spec(tmp_path, types, option=False)
    message = str(raised.value)
    assert "op.EmbeddedObjectMeta(True)" in message
    assert "no nested ObjectMeta" in message
    assert "inner_wins" in message
