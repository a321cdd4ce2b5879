"""Discovering kinds and merging their versions into the IR."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from opgen.errors import LoadError
from opgen.load import load_kinds
from opgen.model import PrinterColumn, ScaleSubresource

HEADER = "from __future__ import annotations\nimport opgen.api as op\n\n"


def _write(path: Path, text: str) -> Path:
    path.write_text(HEADER + textwrap.dedent(text), encoding="utf-8")
    return path


def _version(tmp_path: Path, version: str, *decorators: str) -> Path:
    path = tmp_path / f"widget_{version}.py"
    path.write_text(
        HEADER
        + "class Spec(op.Model):\n    size: int = 1\n\n"
        + f'@op.kind(group="demo.example.com", version="{version}")\n'
        + "".join(f"{decorator}\n" for decorator in decorators)
        + "class Widget(op.CustomResource[Spec, None]):\n    pass\n",
        encoding="utf-8",
    )
    return path


def test_one_kind_in_full(tmp_path: Path) -> None:
    file = _write(
        tmp_path / "full_types.py",
        """\
        class Spec(op.Model):
            replicas: int = 1

        class Status(op.Model):
            replicas: int = 0
            selector: str = ""

        @op.kind(group="demo.example.com", version="v1", short_names=["w"], categories=["demo"])
        @op.subresource_status()
        @op.subresource_scale(".spec.replicas", ".status.replicas", ".status.selector")
        @op.print_column(name="Ready", type="integer", json_path=".status.replicas", priority=1)
        @op.selectable_field(".spec.replicas")
        @op.crd_metadata(annotations={"a": "1"}, labels={"b": "2"})
        class Widget(op.CustomResource[Spec, Status]):
            pass
        """,
    )
    loaded = load_kinds([file])
    assert loaded.diagnostics == ()
    (kind,) = loaded.kinds
    assert kind.crd_name == "widgets.demo.example.com"
    assert kind.names.short_names == ("w",) and kind.names.list_kind == "WidgetList"
    assert kind.annotations == (("a", "1"),) and kind.labels == (("b", "2"),)
    (version,) = kind.versions
    assert version.storage and version.served and version.status_subresource
    assert version.scale == ScaleSubresource(
        ".spec.replicas", ".status.replicas", ".status.selector"
    )
    assert version.printer_columns == (
        PrinterColumn("Ready", "integer", ".status.replicas", priority=1),
    )
    assert version.selectable_fields == (".spec.replicas",)
    assert version.source.cls == "Widget" and version.source.file.endswith(
        "full_types.py"
    )
    assert loaded.models[kind.key(version)].__name__ == "Widget"


def test_versions_merge_sorted_by_name(tmp_path: Path) -> None:
    files = [
        _version(tmp_path, "v2", "@op.storage_version()"),
        _version(tmp_path, "v1", '@op.deprecated_version(warning="old")'),
        _version(tmp_path, "v1beta1", "@op.unserved_version()"),
        _version(tmp_path, "v3", "@op.skip_version()"),
    ]
    (kind,) = load_kinds(files).kinds
    assert [v.version for v in kind.versions] == ["v1", "v1beta1", "v2"]
    assert [v.storage for v in kind.versions] == [False, False, True]
    assert [v.served for v in kind.versions] == [True, False, True]
    assert kind.versions[0].deprecated and kind.versions[0].deprecation_warning == "old"
    assert kind.storage_version.version == "v2"


def test_every_version_skipped_writes_nothing(tmp_path: Path) -> None:
    loaded = load_kinds([_version(tmp_path, "v1", "@op.skip_version()")])
    assert loaded.kinds == ()
    assert "no CRD is written" in str(loaded.diagnostics[0])


def test_kinds_are_sorted_and_files_can_repeat(tmp_path: Path) -> None:
    file = _write(
        tmp_path / "two_types.py",
        """\
        class Spec(op.Model):
            size: int = 1

        @op.kind(group="z.example.com", version="v1")
        class Alpha(op.CustomResource[Spec, None]):
            pass

        @op.kind(group="a.example.com", version="v1")
        class Zulu(op.CustomResource[Spec, None]):
            pass
        """,
    )
    loaded = load_kinds([file, file])
    assert [k.crd_name for k in loaded.kinds] == [
        "zulus.a.example.com",
        "alphas.z.example.com",
    ]


def test_imported_kinds_are_not_discovered_twice(tmp_path: Path) -> None:
    _version(tmp_path, "v1")
    other = _write(tmp_path / "reexport_types.py", "from widget_v1 import Widget\n")
    loaded = load_kinds([tmp_path / "widget_v1.py", other])
    assert len(loaded.kinds) == 1 and len(loaded.kinds[0].versions) == 1


def test_custom_resource_without_kind_warns(tmp_path: Path) -> None:
    file = _write(
        tmp_path / "forgot_types.py",
        """\
        class Spec(op.Model):
            size: int = 1

        class Base(op.CustomResource[Spec, None]):
            pass

        @op.kind(group="demo.example.com", version="v1")
        class Real(Base):
            pass

        class Forgotten(op.CustomResource[Spec, None]):
            pass
        """,
    )
    loaded = load_kinds([file])
    assert [k.names.kind for k in loaded.kinds] == ["Real"]
    (warning,) = loaded.diagnostics
    assert "Forgotten" in str(warning) and "has no @op.kind" in str(warning)


def test_conflicting_crd_metadata(tmp_path: Path) -> None:
    files = [
        _version(
            tmp_path,
            "v1",
            "@op.storage_version()",
            '@op.crd_metadata(labels={"x": "1"})',
        ),
        _version(tmp_path, "v2", '@op.crd_metadata(labels={"x": "2"})'),
    ]
    with pytest.raises(LoadError, match="sets label 'x' to '1'"):
        load_kinds(files)


def test_no_files_and_no_kinds(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match=r"\(no files\): no kinds found"):
        load_kinds([])
    with pytest.raises(LoadError, match=r"empty_types\.py: no kinds found"):
        load_kinds([_write(tmp_path / "empty_types.py", "X = 1\n")])
