"""The YAML dumper writes what go-yaml (controller-gen) writes, byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from opgen.render import yaml as render_yaml
from opgen.render.yaml import dump_document, dump_documents, go_float


def test_keys_sorted_and_lists_not_indented() -> None:
    text = dump_document(
        {
            "spec": {"versions": [{"name": "v1", "served": True}], "group": "g"},
            "apiVersion": "v1",
        }
    )
    assert (
        text
        == "apiVersion: v1\nspec:\n  group: g\n  versions:\n  - name: v1\n    served: true\n"
    )


def test_documents_start_with_three_dashes() -> None:
    assert dump_documents([{"a": 1}, {"b": 2}]) == "---\na: 1\n---\nb: 2\n"


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("", '""'),
        ("true", '"true"'),
        ("124", '"124"'),
        ("1.5", '"1.5"'),
        ("null", '"null"'),
        ("y", '"y"'),
        ("2024-01-15", '"2024-01-15"'),
        ("{}", "'{}'"),
        ("*", "'*'"),
        ("a: b", "'a: b'"),
        ("it's", "it's"),
        ("TCP", "TCP"),
        ("*/5 * * * *", "'*/5 * * * *'"),
        ("café", "café"),
    ],
)
def test_string_quoting(value: str, written: str) -> None:
    assert dump_document({"k": value}) == f"k: {written}\n"


def test_multi_line_strings_are_literal_blocks() -> None:
    assert (
        dump_document({"description": "first\nsecond"})
        == "description: |-\n  first\n  second\n"
    )


def test_long_lines_fold_at_80_columns() -> None:
    text = dump_document({"description": "word " * 20 + "end"})
    assert text.splitlines() == [
        "description: word word word word word word word word word word word word word word",
        "  word word word word word word end",
    ]


@pytest.mark.parametrize(
    ("value", "written"),
    [
        (1.0, "1"),
        (-2.0, "-2"),
        (0.5, "0.5"),
        (-0.5, "-0.5"),
        (1e-05, "1e-05"),
        (1234567.5, "1.2345675e+06"),
        (100000.5, "100000.5"),
    ],
)
def test_floats_like_go(value: float, written: str) -> None:
    assert dump_document({"k": value}) == f"k: {written}\n"
    assert go_float(value) == written or value.is_integer()


def test_empty_containers_and_no_aliases() -> None:
    shared = {"type": "string"}
    text = dump_document({"a": shared, "b": shared, "c": {}, "d": []})
    assert text == "a:\n  type: string\nb:\n  type: string\nc: {}\nd: []\n"
    assert "&" not in text and "*" not in text


GOLDEN_FILES = sorted((Path(__file__).parent).rglob("*.yaml"))


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.name)
def test_node_builder_writes_what_the_representer_writes(path: Path) -> None:
    """dump_document builds PyYAML's node tree itself (the fast path); on every golden
    CRD it gives the bytes PyYAML's own representer gives, and the file's bytes."""
    text = path.read_text(encoding="utf-8")
    for document in yaml.safe_load_all(text):
        by_representer = yaml.dump(
            document,
            Dumper=render_yaml._Dumper,
            **render_yaml._DUMP_OPTIONS,
        )
        assert dump_document(document) == by_representer
    documents = list(yaml.safe_load_all(text))
    assert dump_documents(documents) == text
