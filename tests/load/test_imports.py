"""Importing users' files: once, cleanly, with errors that point at the line."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from opgen.errors import LoadError, MarkerError
from opgen.load import RunContext, import_module_from_path


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_executes_once_per_run_and_leaves_sys_modules_alone(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    file = _write(
        tmp_path / "counted_types.py",
        f"open({str(log)!r}, 'a').write('x')\nVALUE = 1\n",
    )
    before = set(sys.modules)
    path_before = list(sys.path)
    run = RunContext()
    first = import_module_from_path(file, run)
    second = import_module_from_path(str(file), run)
    assert first is second and first.VALUE == 1
    assert log.read_text() == "x"
    assert set(sys.modules) - before == set()
    assert sys.path == path_before
    next_run = import_module_from_path(file, RunContext())
    assert next_run is not first and log.read_text() == "xx"


def test_sibling_modules_are_shared_not_re_executed(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    _write(
        tmp_path / "shared_common.py",
        f"open({str(log)!r}, 'a').write('c')\nX = object()\n",
    )
    a = _write(tmp_path / "a_types.py", "import shared_common\nX = shared_common.X\n")
    b = _write(tmp_path / "b_types.py", "import shared_common\nX = shared_common.X\n")
    run = RunContext()
    module_a = import_module_from_path(a, run)
    module_b = import_module_from_path(b, run)
    common = import_module_from_path(tmp_path / "shared_common.py", run)
    assert module_a.X is module_b.X is common.X
    assert log.read_text() == "c"
    assert "shared_common" not in sys.modules


def test_files_in_packages_get_their_dotted_name(tmp_path: Path) -> None:
    root = tmp_path / "project"
    _write(root / "demo_operator" / "__init__.py", "")
    _write(root / "demo_operator" / "api" / "__init__.py", "")
    _write(root / "demo_operator" / "api" / "v1" / "__init__.py", "")
    _write(root / "demo_operator" / "api" / "v1" / "helpers.py", "NAME = 'helpers'\n")
    file = _write(
        root / "demo_operator" / "api" / "v1" / "widget_types.py",
        "from .helpers import NAME\nfrom demo_operator.api.v1 import helpers\n",
    )
    module = import_module_from_path(file)
    assert module.__name__ == "demo_operator.api.v1.widget_types"
    assert module.NAME == "helpers"
    assert not any(name.startswith("demo_operator") for name in sys.modules)


def test_a_file_named_like_a_stdlib_module_does_not_shadow_it(tmp_path: Path) -> None:
    import json

    file = _write(tmp_path / "json.py", "VALUE = 'mine'\n")
    module = import_module_from_path(file)
    assert module.VALUE == "mine"
    assert module.__name__.startswith("_opgen_user_")
    assert sys.modules["json"] is json


def test_syntax_error_names_the_line(tmp_path: Path) -> None:
    file = _write(tmp_path / "broken_types.py", "x = 1\n\ndef f(:\n    pass\n")
    with pytest.raises(LoadError, match=r"broken_types.py:3: syntax error"):
        import_module_from_path(file)


def test_import_error_names_the_line_and_hints(tmp_path: Path) -> None:
    file = _write(
        tmp_path / "importing_types.py",
        "import os\nimport not_installed_anywhere_xyz\n",
    )
    with pytest.raises(LoadError) as raised:
        import_module_from_path(file)
    assert "importing_types.py:2: ModuleNotFoundError" in str(raised.value)
    assert raised.value.hint is not None and "installed" in raised.value.hint


def test_exception_in_a_sibling_names_the_sibling(tmp_path: Path) -> None:
    _write(tmp_path / "bad_helper.py", "\n\nraise ValueError('nope')\n")
    file = _write(tmp_path / "uses_helper.py", "import bad_helper\n")
    with pytest.raises(LoadError, match=r"bad_helper.py:3: ValueError: nope"):
        import_module_from_path(file)
    assert "bad_helper" not in sys.modules


def test_marker_errors_keep_their_class_and_get_the_line(tmp_path: Path) -> None:
    file = _write(
        tmp_path / "marker_types.py",
        "import opgen.api as op\n\n\nBAD = op.MinLength(-1)\n",
    )
    with pytest.raises(MarkerError) as raised:
        import_module_from_path(file)
    assert raised.value.location is not None
    assert (
        raised.value.location.file is not None
        and raised.value.location.file.endswith("marker_types.py:4")
    )


def test_a_failed_file_can_be_fixed_and_loaded(tmp_path: Path) -> None:
    file = _write(tmp_path / "fixable_types.py", "raise RuntimeError('first try')\n")
    with pytest.raises(LoadError):
        import_module_from_path(file)
    _write(file, "VALUE = 2\n")
    assert import_module_from_path(file).VALUE == 2


def test_forward_references_are_completed(tmp_path: Path) -> None:
    file = _write(
        tmp_path / "forward_types.py",
        """\
        from __future__ import annotations
        import opgen.api as op

        class Spec(op.Model):
            later: Later | None = None

        class Later(op.Model):
            value: int = 0
        """,
    )
    module = import_module_from_path(file)
    assert module.Spec.__pydantic_complete__
    assert module.Spec.model_validate({"later": {"value": 3}}).later.value == 3


def test_unresolvable_annotations_are_a_load_error(tmp_path: Path) -> None:
    file = _write(
        tmp_path / "dangling_types.py",
        """\
        from __future__ import annotations
        import opgen.api as op

        class Spec(op.Model):
            other: Missing
        """,
    )
    with pytest.raises(LoadError, match="Spec: cannot resolve its type annotations"):
        import_module_from_path(file)


def test_not_a_file(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="no such file"):
        import_module_from_path(tmp_path / "missing.py")
    with pytest.raises(LoadError, match="not a Python file"):
        import_module_from_path(_write(tmp_path / "x.txt", "x"))


def test_an_edited_file_is_executed_again(tmp_path: Path) -> None:
    import os

    file = _write(tmp_path / "edited_types.py", "VALUE = 1\n")
    assert import_module_from_path(file).VALUE == 1
    _write(file, "VALUE = 22\n")
    os.utime(file, ns=(file.stat().st_atime_ns, file.stat().st_mtime_ns + 1_000_000))
    assert import_module_from_path(file).VALUE == 22


def _project(root: Path, group: str) -> Path:
    _write(root / "same_operator" / "__init__.py", "")
    _write(root / "same_operator" / "api" / "__init__.py", "")
    _write(root / "same_operator" / "api" / "groupinfo.py", f"GROUP = {group!r}\n")
    return _write(
        root / "same_operator" / "api" / "thing_types.py",
        "from same_operator.api.groupinfo import GROUP\n",
    )


def test_a_package_of_the_same_name_elsewhere_is_not_mistaken_for_this_one(
    tmp_path: Path,
) -> None:
    first = _project(tmp_path / "one", "one.example.com")
    second = _project(tmp_path / "two", "two.example.com")
    assert import_module_from_path(first).GROUP == "one.example.com"
    assert import_module_from_path(second).GROUP == "two.example.com"
    assert import_module_from_path(first).GROUP == "one.example.com"


def test_an_edited_sibling_is_executed_again_for_a_new_importer(
    tmp_path: Path,
) -> None:
    import os

    root = tmp_path / "project"
    first = _project(root, "before.example.com")
    assert import_module_from_path(first).GROUP == "before.example.com"
    info = _write(
        root / "same_operator" / "api" / "groupinfo.py", "GROUP = 'after.example.com'\n"
    )
    os.utime(info, ns=(info.stat().st_atime_ns, info.stat().st_mtime_ns + 1_000_000))
    other = _write(
        root / "same_operator" / "api" / "other_types.py",
        "from same_operator.api.groupinfo import GROUP\n",
    )
    assert import_module_from_path(other).GROUP == "after.example.com"
