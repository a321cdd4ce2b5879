"""Typed clients: one generated module per group/version, one client class per kind.

`render_clients(kinds, project)` writes `zz_generated_client.py` next to the types
files of each version (`<pkg>/api/<version>/`, or `<pkg>/api/<group>/<version>/`
with --multigroup). Each class subclasses `opgen.runtime.typed`'s generic bases
with the user's model: the namespaced or cluster-scoped base as the kind is, and
the status and scale mixins only when the kind has those subresources, so that
misuse (a wrong model, a missing or extra namespace, scaling a kind without
/scale) fails `mypy --strict`. The views
(`opgen.render.views.client_module_view`) make every decision; the template
only substitutes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from opgen.errors import Location, ProjectError
from opgen.model.kinds import Kind, KindVersion
from opgen.project.config import Project
from opgen.render.templating import render
from opgen.render.views import KindVersionEntry, client_module_view, project_view
from opgen.write.files import File, Ownership

__all__ = ["render_clients"]

TEMPLATE = "client/zz_generated_client.py.j2"


def render_clients(kinds: Sequence[Kind], project: Project) -> list[File]:
    """One generated client module per folder of types files, sorted by path."""
    by_package: dict[str, list[KindVersionEntry]] = defaultdict(list)
    for kind in kinds:
        for version in kind.versions:
            by_package[_package_of(version, project)].append(
                KindVersionEntry.of(kind, version)
            )
    project_data = project_view(project)
    files = []
    for package in sorted(by_package):
        module = client_module_view(package, by_package[package])
        content = render(TEMPLATE, project=project_data, module=module)
        files.append(File(module.path, content, Ownership.GENERATED))
    return files


def _package_of(version: KindVersion, project: Project) -> str:
    """The package (folder) holding the class of this version."""
    package, _, _ = version.source.module.rpartition(".")
    if not package.startswith(f"{project.package}.api"):
        raise ProjectError(
            f"{version.source.cls} is defined in {version.source.module}, "
            f"outside the {project.package}.api package",
            location=Location(file=version.source.file, cls=version.source.cls),
            hint=f"keep types files under {project.package}/api/, in folders with an "
            "__init__.py (as `opgen create api` lays them out)",
        )
    return package
