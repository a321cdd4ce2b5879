"""The sources of a generated project that generators read.

Kinds live in `<pkg>/api/**/*_types.py`, reconcilers under `<pkg>/controller/`. While
they are imported, the project root is on `sys.path` and the project's
package is fresh (any module of the same name from an earlier import is
dropped first and again afterwards), so that one process can generate several
projects. `generated_crds` and `client_modules` find the files an earlier
`opgen generate` wrote, so that those no kind produces any more can go.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import sys
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

import yaml

from opgen.model.kinds import VERSION_ANNOTATION
from opgen.project.config import Project
from opgen.project.layout import CLIENT_MODULE, CRD_BASES, Layout


def api_sources(root: Path, project: Project) -> list[Path]:
    """The types files under `<pkg>/api/` (`*_types.py`, as `create api` names them), sorted."""
    api_dir = root.joinpath(*Layout(project).api_root.parts)
    return sorted(
        p for p in api_dir.rglob("*_types.py") if "__pycache__" not in p.parts
    )


def controller_files(root: Path, project: Project) -> list[Path]:
    """Every module under `<pkg>/controller/` (`__init__.py` aside), sorted."""
    controller_dir = root.joinpath(*Layout(project).controller_root.parts)
    return sorted(
        path
        for path in controller_dir.rglob("*.py")
        if "__pycache__" not in path.parts and path.name != "__init__.py"
    )


@contextlib.contextmanager
def importable(root: Path, project: Project) -> Iterator[None]:
    """Make the project's package importable from `root` for the duration."""
    _forget(project.package)
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(str(root))
        _forget(project.package)


def _forget(package: str) -> None:
    for name in [n for n in sys.modules if n == package or n.startswith(f"{package}.")]:
        del sys.modules[name]


def reconciler_classes(root: Path, project: Project) -> list[type]:
    """Classes defined in the controller modules, in module then definition order.

    Each module is imported with the loader's `import_module_from_path`, so an
    error in it is reported with its file and line. Call inside
    `importable(root, project)`.
    """
    from opgen.load import import_module_from_path

    classes: list[type] = []
    for path in controller_files(root, project):
        module = import_module_from_path(path)
        classes.extend(
            obj
            for obj in vars(module).values()
            if inspect.isclass(obj) and obj.__module__ == module.__name__
        )
    return classes


def client_modules(root: Path, project: Project) -> list[PurePosixPath]:
    """The typed-client modules under `<pkg>/api/`, sorted."""
    api_dir = root.joinpath(*Layout(project).api_root.parts)
    return [
        PurePosixPath(*path.relative_to(root).parts)
        for path in sorted(api_dir.rglob(f"{CLIENT_MODULE}.py"))
    ]


def generated_crds(root: Path) -> list[PurePosixPath]:
    """The files in `config/crd/bases/` that opgen wrote (they carry its annotation)."""
    found = []
    for path in sorted(root.joinpath(*CRD_BASES.parts).glob("*.yaml")):
        try:
            documents = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue  # not a file opgen wrote
        if any(_annotated(document) for document in documents):
            found.append(CRD_BASES / path.name)
    return found


def _annotated(document: object) -> bool:
    if not isinstance(document, dict):
        return False
    metadata = document.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    return isinstance(annotations, dict) and VERSION_ANNOTATION in annotations
