"""What opgen removes from a project: every such decision is made here.

- `opgen delete api`: `plan_deletion` gives the PROJECT that remains and the
  kind's own files (`files_to_remove`: types, controller, webhooks and their
  tests), never shared ones, refusing (without `force`) when the user edited
  a file `create api` or `create webhook` scaffolded, and refusing a version
  another version's conversions convert.
- `opgen generate`: `stale_outputs` gives the files an earlier run wrote that
  this run no longer produces: a CRD in `config/crd/bases/` carrying opgen's
  annotation, `config/webhook/manifests.yaml` once no webhook is left,
  (`clients=True`) a typed-client module left in a folder that no longer holds
  kinds, the modules and CRD copies of imports PROJECT no longer records
  (`imported_leftovers`), and a template of the Helm chart that starts with
  opgen's mark (templates of your own are left alone).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import yaml

from opgen.errors import ProjectError, ScaffoldError
from opgen.model.kinds import VERSION_ANNOTATION
from opgen.project.config import Project, Resource
from opgen.project.imported import COPY_HEADER, written_by_opgen
from opgen.project.layout import (
    CHART_DIR,
    CLIENT_MODULE,
    CRD_BASES,
    GENERATED_MARK,
    GENERATED_TEMPLATE_MARK,
    IMPORTED_CRDS,
    WEBHOOK_MANIFESTS,
    Layout,
)
from opgen.write.files import Removal
from opgen.write.hashes import edited_files

__all__ = [
    "Deletion",
    "client_modules",
    "crd_of_kind",
    "files_to_remove",
    "generated_chart_templates",
    "generated_crds",
    "imported_leftovers",
    "plan_deletion",
    "stale_outputs",
]


@dataclass(frozen=True)
class Deletion:
    """What `delete api` leaves: PROJECT without the API, and the files to remove."""

    remaining: Project
    removals: tuple[Removal, ...]


# libyaml's safe loader where PyYAML has it: the same documents, ten times faster
# (every CRD in config/crd/bases/ is read on each `opgen generate`).
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def plan_deletion(
    root: Path, project: Project, group: str, version: str, kind: str, *, force: bool
) -> Deletion:
    """The deletion of one API from the project under `root`.

    Raises `ProjectError` for an API the project does not have, and
    `ScaffoldError` (unless `force`) when files it scaffolded were edited since.
    """
    entry = project.require(group, version, kind)
    for hub in project.resources:
        if (
            (hub.group, hub.kind) == (group, kind)
            and hub.webhooks
            and version in hub.webhooks.spoke
        ):
            raise ProjectError(
                f"not deleting {kind} {version}: the conversions of the hub {hub.version} "
                f"({Layout(project).webhook_file(hub)}) convert it",
                hint=f"delete the hub's webhooks first (opgen delete api --version "
                f"{hub.version} ...), or keep {version}",
            )
    owned, generated = files_to_remove(project, entry)
    if generated:
        # The types file may have renamed the plural since `create api`: the CRD
        # to remove is the generated one of this kind, wherever it is.
        generated = (crd_of_kind(root, entry.api_group, entry.kind) or generated[0],)
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


def stale_outputs(
    root: Path,
    project: Project,
    produced: Collection[PurePosixPath],
    *,
    clients: bool,
) -> tuple[Removal, ...]:
    """The files an earlier `opgen generate` wrote under `root` that are not in `produced`."""
    written = generated_crds(root, skip=produced)
    manifests = root.joinpath(*WEBHOOK_MANIFESTS.parts)
    if manifests.is_file() and manifests.read_text(encoding="utf-8").startswith(
        GENERATED_MARK
    ):
        written.append(WEBHOOK_MANIFESTS)
    if project.chart:
        written += generated_chart_templates(root)
    if clients:
        written += client_modules(root, project)
        written += imported_leftovers(root, project, produced)
    return tuple(Removal(path) for path in written if path not in produced)


def imported_leftovers(
    root: Path, project: Project, produced: Iterable[PurePosixPath]
) -> list[PurePosixPath]:
    """Files an earlier import wrote that the current imports no longer produce:
    modules under `<pkg>/imported/`, and copies in config/imported/ (recognised by
    their header) of CRDs PROJECT no longer records."""
    layout = Layout(project)
    keep = set(produced) | {
        layout.imported_crd_file(r.group, r.plural) for r in project.imports
    }
    found: list[PurePosixPath] = []
    package = root.joinpath(*layout.imported_root.parts)
    if package.is_dir():
        for file in sorted(package.rglob("*.py")):
            relative = PurePosixPath(*file.relative_to(root).parts)
            if relative not in keep and written_by_opgen(file):
                found.append(relative)
    copies = root.joinpath(*IMPORTED_CRDS.parts)
    if copies.is_dir():
        for file in sorted(copies.glob("*.yaml")):
            relative = PurePosixPath(*file.relative_to(root).parts)
            if relative not in keep and written_by_opgen(file, COPY_HEADER):
                found.append(relative)
    return found


def client_modules(root: Path, project: Project) -> list[PurePosixPath]:
    """The typed-client modules under `<pkg>/api/`, sorted."""
    api_dir = root.joinpath(*Layout(project).api_root.parts)
    return [
        PurePosixPath(*path.relative_to(root).parts)
        for path in sorted(api_dir.rglob(f"{CLIENT_MODULE}.py"))
    ]


def generated_chart_templates(root: Path) -> list[PurePosixPath]:
    """The files under the chart's `templates/` that opgen wrote (they start with its mark)."""
    templates = root.joinpath(*CHART_DIR.parts, "templates")
    found = []
    for path in sorted(templates.rglob("*")):
        try:
            generated = path.is_file() and path.read_text(encoding="utf-8").startswith(
                GENERATED_TEMPLATE_MARK
            )
        except (OSError, UnicodeDecodeError):
            continue  # not a file opgen wrote
        if generated:
            found.append(PurePosixPath(*path.relative_to(root).parts))
    return found


def generated_crds(
    root: Path, *, skip: Collection[PurePosixPath] = ()
) -> list[PurePosixPath]:
    """The files in `config/crd/bases/` that opgen wrote (they carry its annotation),
    leaving out those in `skip` unread (a CRD this run writes again is not stale;
    reading one can mean parsing a megabyte of YAML)."""
    found = []
    for path in sorted(root.joinpath(*CRD_BASES.parts).glob("*.yaml")):
        if CRD_BASES / path.name in skip:
            continue
        try:
            documents = list(
                yaml.load_all(path.read_text(encoding="utf-8"), Loader=_SAFE_LOADER)
            )
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue  # not a file opgen wrote
        if any(_annotated(document) for document in documents):
            found.append(CRD_BASES / path.name)
    return found


def crd_of_kind(root: Path, group: str, kind: str) -> PurePosixPath | None:
    """The CRD file in `config/crd/bases/` opgen wrote for `kind` of `group`."""
    for path in generated_crds(root):
        text = root.joinpath(*path.parts).read_text(encoding="utf-8")
        for document in yaml.load_all(text, Loader=_SAFE_LOADER):
            spec = document.get("spec") if isinstance(document, dict) else None
            if not isinstance(spec, dict):
                continue
            names = spec.get("names")
            if (
                isinstance(names, dict)
                and spec.get("group") == group
                and names.get("kind") == kind
            ):
                return path
    return None


def _annotated(document: object) -> bool:
    if not isinstance(document, dict):
        return False
    metadata = document.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    return isinstance(annotations, dict) and VERSION_ANNOTATION in annotations
