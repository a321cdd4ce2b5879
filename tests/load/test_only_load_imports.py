"""User code, and any module named by input, is imported by the load stage only."""

from __future__ import annotations

import ast
from pathlib import Path

import opgen

GENERATOR = ("api", "model", "schema", "project", "render", "write", "cli")
"""The generator's packages besides `opgen.load` (design.md section 1)."""
IMPORTING = {"importlib", "runpy", "imp", "pkgutil", "zipimport"}


def _problems(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module.split(".")[0]]
        elif isinstance(node, ast.Name) and node.id == "__import__":
            names = ["__import__"]
        elif (
            isinstance(node, ast.Attribute)
            and node.attr == "path"
            and isinstance(node.value, ast.Name)
            and node.value.id == "sys"
        ):
            names = ["sys.path"]
        else:
            continue
        for name in names:
            if name in IMPORTING or name in ("__import__", "sys.path"):
                found.append(f"{path.name}:{node.lineno}: {name}")
    return found


def test_no_generator_stage_but_load_imports_modules() -> None:
    root = Path(opgen.__file__).parent
    problems = {
        str(path.relative_to(root)): found
        for package in GENERATOR
        for path in sorted((root / package).rglob("*.py"))
        if (found := _problems(path))
    }
    assert problems == {}


def test_the_check_sees_an_import_by_name(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import importlib\nimport sys\nsys.path.insert(0, '.')\n")
    assert _problems(sample) == ["sample.py:1: importlib", "sample.py:3: sys.path"]
