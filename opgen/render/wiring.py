"""What opgen keeps between the scaffold markers of user-owned files.

Every region is computed from the PROJECT file alone, so `create api` and
`delete api` only change PROJECT and recompute the regions: wiring and
unwiring are the same operation, and re-running it changes nothing.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from opgen.project.config import Project
from opgen.project.layout import Layout
from opgen.render.templating import format_python_lines
from opgen.render.views import resource_view
from opgen.write.regions import Region

MAIN_IMPORTS = "imports"
MAIN_CONTROLLERS = "controllers"
DEFAULT_CRD = "crd"
CRD_BASES = "crd-bases"
RBAC_KIND_ROLES = "kind-roles"
SAMPLES = "samples"

CONTROLLER_INDENT = "    "


def _items(paths: list[str]) -> str:
    return "".join(f"- {path}\n" for path in paths)


def regions(project: Project) -> dict[PurePosixPath, tuple[Region, ...]]:
    """Every injected file of the project and the regions opgen keeps in it."""
    layout = Layout(project)
    with_controller = [r for r in project.resources if r.controller]
    with_api = [r for r in project.resources if r.api]

    # Versions of one kind share its controller, CRD file and helper roles:
    # each is wired once.
    views = sorted(
        {
            (v.controller_module, v.reconciler): v
            for v in (resource_view(project, r) for r in with_controller)
        }.values(),
        key=lambda v: v.controller_module,
    )
    imports = "".join(
        f"from {v.controller_module} import {v.reconciler}\n" for v in views
    )
    imports_text = format_python_lines(imports) + ("\n" if imports else "")
    setups = "".join(f"{v.reconciler}(manager.client).setup(manager)\n" for v in views)
    controllers_text = format_python_lines(setups, CONTROLLER_INDENT)

    crd_bases = sorted(
        {str(layout.crd_file(r).relative_to("config/crd")) for r in with_api}
    )
    roles = sorted(
        {
            str(path.relative_to("config/rbac"))
            for r in with_api
            for path in layout.role_files(r)
        }
    )
    samples = sorted(
        str(layout.sample_file(r).relative_to("config/samples")) for r in with_api
    )
    return {
        layout.main_file: (
            Region(MAIN_IMPORTS, imports_text),
            Region(MAIN_CONTROLLERS, controllers_text),
        ),
        PurePosixPath("config/default/kustomization.yaml"): (
            Region(DEFAULT_CRD, _items(["../crd"] if with_api else [])),
        ),
        PurePosixPath("config/crd/kustomization.yaml"): (
            Region(CRD_BASES, _items(crd_bases)),
        ),
        PurePosixPath("config/rbac/kustomization.yaml"): (
            Region(RBAC_KIND_ROLES, _items(roles)),
        ),
        PurePosixPath("config/samples/kustomization.yaml"): (
            Region(SAMPLES, _items(samples)),
        ),
    }
