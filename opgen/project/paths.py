"""Finding the project a command runs in, and reading its PROJECT file."""

from __future__ import annotations

from pathlib import Path

from opgen.errors import Location, ProjectError
from opgen.project.config import PROJECT_FILE, Project, parse_project
from opgen.project.consistency import check_project


def load_project(root: Path) -> Project:
    """Read and check `root/PROJECT`; a `ProjectError` when `root` is not an opgen
    project or PROJECT no longer matches it (`consistency.check_project`)."""
    path = root / PROJECT_FILE
    if not path.is_file():
        raise ProjectError(
            f"{root} is not an opgen project: there is no {PROJECT_FILE} file here",
            location=Location(file=str(path)),
            hint="run the command from the project's root folder, or create a "
            "project with `opgen init --domain example.com`",
        )
    project = parse_project(path.read_text(encoding="utf-8"), path=str(path))
    check_project(project, root, path=str(path))
    return project


def require_project_root(root: Path, *, command: str) -> None:
    """`command` (e.g. `opgen generate`) runs in a project's root folder, which holds PROJECT."""
    if not (root / PROJECT_FILE).is_file():
        raise ProjectError(
            f"`{command}` must run in the root folder of a project made by "
            f"`opgen init` (there is no {PROJECT_FILE} file here)",
            location=Location(file=str(root / PROJECT_FILE)),
            hint="cd to the project's root folder; for CRDs from a standalone types "
            "file run `opgen generate crd --types FILE.py --out DIR`; to start a "
            "project run `opgen init --domain example.com`",
        )


def ensure_empty_for_init(root: Path) -> None:
    """`opgen init` runs in an empty folder, or one holding only `.git`."""
    if (root / PROJECT_FILE).exists():
        raise ProjectError(
            f"{root} is already an opgen project ({PROJECT_FILE} exists)",
            hint="use `opgen create api` to add to it, or run init in an empty folder",
        )
    clutter = sorted(p.name for p in root.iterdir() if p.name != ".git")
    if clutter:
        shown = ", ".join(clutter[:5]) + (", ..." if len(clutter) > 5 else "")
        raise ProjectError(
            f"{root} is not empty ({shown}); opgen init only scaffolds into an empty "
            "folder (a .git folder is fine)",
            hint="run it in a new folder: mkdir my-operator && cd my-operator",
        )
