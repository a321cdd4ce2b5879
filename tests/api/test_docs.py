"""docs/markers.md covers everything `opgen.api` exports."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import opgen.api as op
from opgen.api.registry import default_registry
from opgen.engine.markers import Marker

MARKERS_DOC = Path(__file__).resolve().parents[2] / "docs" / "markers.md"


def _documented(name: str) -> bool:
    text = MARKERS_DOC.read_text(encoding="utf-8")
    return (
        re.search(rf"(?<![\w.])(op|opgen\.api)\.{re.escape(name)}\b", text) is not None
    )


@pytest.mark.parametrize("name", sorted(op.__all__))
def test_markers_md_covers_every_public_name(name: str) -> None:
    assert _documented(name), f"docs/markers.md never mentions op.{name}"


@pytest.mark.parametrize(
    "marker", list(default_registry()), ids=lambda m: m.marker_name()
)
def test_markers_md_covers_every_registered_marker(marker: type[Marker]) -> None:
    assert _documented(
        marker.marker_name()
    ), f"op.{marker.marker_name()} is undocumented"


def test_the_check_can_fail() -> None:
    assert not _documented("NoSuchMarker")
