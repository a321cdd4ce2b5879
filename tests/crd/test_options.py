"""CRD options: controller-gen's maxDescLen cut and generateEmbeddedObjectMeta."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from opgen.cli import app
from opgen.load import load_kinds
from opgen.pipeline import crd_of
from opgen.schema.options import CrdOptions, truncate_description

TYPES = Path(__file__).parent / "cases" / "special_types.py"


@pytest.mark.parametrize(
    ("text", "limit", "cut"),
    [
        ("Short.", 40, "Short."),
        (
            "APIVersion defines the versioned schema of this representation of an object.",
            48,
            "APIVersion defines the versioned schema of this...",
        ),
        ("One sentence. Another sentence that is long.", 20, "One sentence."),
        ("nowhitespaceatallinthisdescription", 10, "nowhitespa..."),
        ("Ends exactly here.", 18, "Ends exactly here."),
        ("Größe ändern. Mehr Text", 16, "Größe ändern."),  # 16 bytes in UTF-8
        ("Größe ändern. Mehr Text", 15, "Größe..."),
    ],
)
def test_descriptions_are_cut_as_controller_gen_cuts_them(
    text: str, limit: int, cut: str
) -> None:
    assert truncate_description(text, limit) == cut


def test_a_negative_length_is_refused() -> None:
    with pytest.raises(ValueError):
        CrdOptions(max_description_length=-1)


def _object_meta_case(options: CrdOptions) -> dict[str, object]:
    loaded = load_kinds([TYPES])
    kinds = {k.names.kind: k for k in loaded.kinds}
    document, _, _ = crd_of(loaded, kinds["ObjectMetaCase"], options)
    schema = document["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    template: dict[str, object] = schema["properties"]["spec"]["properties"][
        "template"
    ]["properties"]
    assert schema["properties"]["metadata"] == {"type": "object"}
    return template


def test_nested_object_meta_is_an_object_unless_embedded_object_meta() -> None:
    assert _object_meta_case(CrdOptions())["metadata"] == {"type": "object"}
    embedded = _object_meta_case(CrdOptions(embedded_object_meta=True))["metadata"]
    assert embedded == {
        "type": "object",
        "properties": {
            "annotations": {
                "type": "object",
                "additionalProperties": {"type": "string"},
            },
            "finalizers": {"type": "array", "items": {"type": "string"}},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "name": {"type": "string"},
            "namespace": {"type": "string"},
        },
    }


def test_zero_drops_every_description_the_root_included() -> None:
    loaded = load_kinds([TYPES])
    kinds = {k.names.kind: k for k in loaded.kinds}
    document, _, _ = crd_of(
        loaded, kinds["ConditionsCase"], CrdOptions(max_description_length=0)
    )
    assert "description" not in str(document["spec"]["versions"])


def test_generate_crd_takes_both_options(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(
        app,
        [
            "generate",
            "crd",
            "--types",
            str(TYPES),
            "--out",
            str(tmp_path),
            "--embedded-object-meta",
            "--max-description-length",
            "0",
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.stderr
    text = (tmp_path / "cases.opgen.dev_objectmetacases.yaml").read_text()
    assert "description:" not in text and "finalizers:" in text
    refused = runner.invoke(
        app,
        [
            *("generate", "crd", "--types", str(TYPES), "--out", str(tmp_path)),
            *("--max-description-length", "-1"),
        ],
    )
    assert refused.exit_code == 2
