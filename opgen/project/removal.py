"""What `opgen delete api` removes: the kind's own files, never shared ones."""

from __future__ import annotations

from pathlib import PurePosixPath

from opgen.project.config import Project, Resource
from opgen.project.layout import Layout


def files_to_remove(
    project: Project, resource: Resource
) -> tuple[tuple[PurePosixPath, ...], tuple[PurePosixPath, ...]]:
    """(user-owned files, generated files) that belong to `resource` alone.

    A file another API of the project also needs (a version's
    `groupversion_info.py`, a group's package, a CRD shared by several
    versions of one kind) stays.
    """
    layout = Layout(project)
    others = [r for r in project.resources if r.key != resource.key]
    shared = {path for other in others for path in layout.resource_files(other)}
    owned = tuple(p for p in layout.resource_files(resource) if p not in shared)
    generated: tuple[PurePosixPath, ...] = ()
    if resource.api and not any(
        o.api and layout.crd_file(o) == layout.crd_file(resource) for o in others
    ):
        generated = (layout.crd_file(resource),)
    return owned, generated
