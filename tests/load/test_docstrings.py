"""Attribute docstrings read from the source give the CRD Pydantic's own reading gives.

`op.Model` leaves attribute docstrings to the schema stage, which reads them from
one parse per file per run (opgen.load.docstrings); the same types with every
model asking Pydantic to read them (`use_attribute_docstrings=True`) must give
the same CRD, byte for byte, across the cases where Pydantic's rule has a say.
"""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path, PurePosixPath

import pytest

import opgen.api as op
from opgen.api._model import BuiltinModel
from opgen.cachedir import CACHE_ENV
from opgen.load import LoadedKinds, RunContext, docstrings, load_kinds
from opgen.load.discover import discover
from opgen.load.merge import merge_kinds
from opgen.pipeline import crds

TYPES = textwrap.dedent('''\
    """Docstring cases."""

    from __future__ import annotations

    from typing import Annotated

    from pydantic import ConfigDict, Field

    import opgen.api as op


    class Base(op.Model):
        """A base with documented fields."""

        inherited: int = 0
        """Declared in the base."""
        redeclared: int = 0
        """The base's words."""


    class Quiet(op.Model):
        model_config = ConfigDict(use_attribute_docstrings=False)

        hushed: str = ""
        """Not a description: this model turned docstrings off."""


    if True:
        class Twice(op.Model):
            first: str = ""
            """The first Twice."""
    else:
        class Twice(op.Model):
            second: str = ""
            """The second Twice."""


    class Spec(Base):
        """The spec."""

        redeclared: int = 1
        plain: str = ""
        """A plain docstring,
            over two lines."""
        explicit: Annotated[str, Field(description="Field's words win.")] = ""
        """Not used: the Field says."""
        described: str = Field("", description="Also the Field's.")
        """Not used either."""
        undocumented: int = 0
        quiet: Quiet | None = None
        twice: Twice | None = None
        nested: Spec.Inner | None = None
        """A nested model."""

        class Inner(op.Model):
            deep: bool = False
            """Inside Spec."""


    class Status(op.Model):
        ready: bool = False
        """Whether it is ready."""


    @op.kind(group="docs.example.com", version="v1")
    @op.subresource_status()
    class Documented(op.CustomResource[Spec, Status]):
        """A kind full of docstrings."""
    ''')


def crds_of(loaded: LoadedKinds, run: RunContext | None = None) -> list[str]:
    files, _ = crds(loaded, PurePosixPath("."), run=run)
    return [file.content for file in files]


READ_BY_PYDANTIC = TYPES.replace("(op.Model)", "(Read)").replace(
    "\n\nclass Base(",
    "\n\nclass Read(op.Model):\n"
    "    model_config = ConfigDict(use_attribute_docstrings=True)\n\n\n"
    "class Base(",
)


def test_docstrings_read_from_source_equal_pydantic_s(tmp_path: Path) -> None:
    assert READ_BY_PYDANTIC.count("(Read)") == 6
    path = tmp_path / "doc_cases_types.py"
    path.write_text(TYPES, encoding="utf-8")
    run = RunContext()
    through_loader = crds_of(load_kinds([path], run), run)

    read_path = tmp_path / "doc_read_types.py"
    read_path.write_text(READ_BY_PYDANTIC, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("doc_cases_plain", read_path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        assert module.Spec.model_fields["plain"].description is not None
        found, _ = discover(module)
        kinds, _ = merge_kinds(found)
        models = {(f.info.group, f.info.kind, f.info.version): f.model for f in found}
        by_pydantic = crds_of(LoadedKinds(tuple(kinds), models=models))
    finally:
        del sys.modules[spec.name]

    assert through_loader == by_pydantic
    crd = through_loader[0]
    for words in (
        "Declared in the base.",
        "A plain docstring,",
        "Field's words win.",
        "Also the Field's.",
        "The first Twice.",
        "Inside Spec.",
        "Whether it is ready.",
    ):
        assert words in crd, words
    for words in ("Not used", "Not a description", "The base's words"):
        assert words not in crd, words


def test_loading_changes_no_model_s_pydantic_settings(tmp_path: Path) -> None:
    path = tmp_path / "doc_settings_types.py"
    path.write_text(TYPES, encoding="utf-8")
    before = {cls: dict(cls.model_config) for cls in (op.Model, BuiltinModel)}
    loaded = load_kinds([path], RunContext())
    assert {cls: dict(cls.model_config) for cls in before} == before
    spec = loaded.models["docs.example.com", "Documented", "v1"].model_fields["spec"]
    assert spec.annotation is not None
    plain = spec.annotation.model_fields["plain"]
    assert plain.description is None  # the CRD has it; Pydantic did not read it


def test_a_types_file_is_parsed_once_across_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The class statements of a file's source are kept in the cache directory:
    a second run reads them instead of parsing, and writes the same CRD."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    path = tmp_path / "doc_kept_types.py"
    path.write_text(TYPES, encoding="utf-8")
    first = RunContext()
    parsed = crds_of(load_kinds([path], first), first)

    def no_parse(*args: object, **kwargs: object) -> None:
        raise AssertionError("parsed again")

    monkeypatch.setattr("opgen.load.docstrings.ast.parse", no_parse)
    second = RunContext()
    assert crds_of(load_kinds([path], second), second) == parsed

    path.write_text(TYPES.replace("The first Twice.", "Edited."), encoding="utf-8")
    with pytest.raises(AssertionError, match="parsed again"):
        docstrings._definitions(path.read_bytes(), path)
