"""A project's resources as this run's IR defines them: for rendering only.

PROJECT records what `create api` was given (`--plural`, `--namespaced` /
`--cluster`); the types file is the user's, and they may change the kind's
plural or scope there later. What `opgen generate` renders from a resource
(the CRD list in `config/crd/kustomization.yaml`, the CRD names of
conversions, the clients) must name the CRD the engine writes, so the
pipeline renders from `as_defined(project, kinds)`, whose plural and scope are
the IR's, and writes PROJECT from the project as read: the derived facts
never reach the file.
"""

from __future__ import annotations

from collections.abc import Sequence

from opgen.model.kinds import Kind
from opgen.project.config import Project

__all__ = ["as_defined"]


def as_defined(project: Project, kinds: Sequence[Kind]) -> Project:
    """`project` with the plural and scope of each scaffolded kind as `kinds`
    define them (not to be written to PROJECT)."""
    by_name = {(kind.group, kind.names.kind): kind for kind in kinds}
    resources = []
    for resource in project.resources:
        kind = by_name.get((resource.api_group, resource.kind))
        if resource.api and not resource.core and kind is not None:
            resource = resource.model_copy(
                update={
                    "given_plural": kind.names.plural,
                    "given_namespaced": kind.namespaced,
                }
            )
        resources.append(resource)
    return project.model_copy(update={"resources": tuple(resources)})
