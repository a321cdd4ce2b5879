"""What `opgen delete api` removes: the kind's own files, never shared ones.

`plan_deletion` decides it: the PROJECT that remains and the files to remove,
refusing (without `force`) when the user edited a file `create api` scaffolded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from opgen.errors import ScaffoldError
from opgen.project.config import Project, Resource
from opgen.project.layout import Layout
from opgen.write.files import Removal
from opgen.write.hashes import edited_files

__all__ = ["Deletion", "files_to_remove", "plan_deletion"]


@dataclass(frozen=True)
class Deletion:
    """What `delete api` leaves: PROJECT without the API, and the files to remove."""

    remaining: Project
    removals: tuple[Removal, ...]


def plan_deletion(
    root: Path, project: Project, group: str, version: str, kind: str, *, force: bool
) -> Deletion:
    """The deletion of one API from the project under `root`.

    Raises `ProjectError` for an API the project does not have, and
    `ScaffoldError` (unless `force`) when files it scaffolded were edited since.
    """
    entry = project.require(group, version, kind)
    owned, generated = files_to_remove(project, entry)
    edited = edited_files(root, owned, project.scaffolded)
    if edited and not force:
        listed = ", ".join(str(p) for p in edited)
        raise ScaffoldError(
            f"not deleting {kind}: you edited files that create api scaffolded: {listed}",
            hint="commit or move your changes, then re-run with --force to delete them anyway",
        )
    remaining = project.without_resource(entry).with_hashes(
        {}, drop=frozenset(str(p) for p in owned)
    )
    return Deletion(remaining, tuple(Removal(p) for p in (*owned, *generated)))


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
