"""The sources of a generated project that the generators read.

Kinds live in `<pkg>/api/**/*_types.py`, reconcilers under `<pkg>/controller/`,
webhook handlers under `<pkg>/webhook/`.
This module only finds the files; the load stage imports them
(`opgen.load.importable`, `load_kinds`, `load_classes`). The chart's
`values.yaml` is read as text: the values the user set survive regeneration.
"""

from __future__ import annotations

from pathlib import Path

from opgen.project.config import Project
from opgen.project.layout import CHART_VALUES, Layout

__all__ = ["api_sources", "chart_values", "controller_files", "webhook_files"]


def api_sources(root: Path, project: Project) -> list[Path]:
    """The types files under `<pkg>/api/` (`*_types.py`, as `create api` names them), sorted."""
    api_dir = root.joinpath(*Layout(project).api_root.parts)
    return sorted(
        p for p in api_dir.rglob("*_types.py") if "__pycache__" not in p.parts
    )


def _modules(folder: Path) -> list[Path]:
    return sorted(
        path
        for path in folder.rglob("*.py")
        if "__pycache__" not in path.parts and path.name != "__init__.py"
    )


def controller_files(root: Path, project: Project) -> list[Path]:
    """Every module under `<pkg>/controller/` (`__init__.py` aside), sorted."""
    return _modules(root.joinpath(*Layout(project).controller_root.parts))


def webhook_files(root: Path, project: Project) -> list[Path]:
    """Every module under `<pkg>/webhook/` (`__init__.py` aside), sorted."""
    return _modules(root.joinpath(*Layout(project).webhook_root.parts))


def chart_values(root: Path) -> str | None:
    """The text of the chart's `values.yaml`, or None when there is none yet."""
    path = root.joinpath(*CHART_VALUES.parts)
    return path.read_text(encoding="utf-8") if path.is_file() else None
