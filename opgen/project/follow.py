"""PROJECT follows the types files: each kind's plural and scope as `@op.kind` declares them.

`create api` records the plural and scope it scaffolded, but the types file is
the user's, and they may change either there later. `opgen generate` then
updates PROJECT, so that what is derived from it (the CRD list in
`config/crd/kustomization.yaml`, the files `delete api` removes, the replayed
commands) names the CRD the engine writes.
"""

from __future__ import annotations

from collections.abc import Sequence

from opgen.model.kinds import Kind
from opgen.project.config import Project

__all__ = ["follow_kinds"]


def follow_kinds(project: Project, kinds: Sequence[Kind]) -> Project:
    """`project` with the plural and scope of each scaffolded kind as `kinds` define them."""
    by_name = {(kind.group, kind.names.kind): kind for kind in kinds}
    resources = []
    for resource in project.resources:
        kind = by_name.get((resource.api_group, resource.kind))
        if resource.api and not resource.core and kind is not None:
            resource = resource.model_copy(
                update={"plural": kind.names.plural, "namespaced": kind.namespaced}
            )
        resources.append(resource)
    return project.model_copy(update={"resources": tuple(resources)})
