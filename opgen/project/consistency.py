"""PROJECT checked on every command: its values are valid and agree with each other.

PROJECT is opgen's record of what `init` and `create api` were given, and
everything else is derived from it: a hand edit (say `domain:`) would
otherwise go unnoticed, since the derived text between scaffold markers does
not change, while the types files, CRDs and RBAC keep the old values.
`check_project` re-validates every input as the commands did and checks
the values that depend on each other (the package is the project name's, a
core resource's group is a Kubernetes group, one group without `multigroup`,
no imported CRD is one of the project's own kinds, ...), reporting every
mismatch at once. `check_kinds` does the same against the kinds the types
files define (`opgen generate`): PROJECT records no fact the types define
(plural, scope), so those are checked against the IR, not against PROJECT.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from opgen.errors import Location, ProjectError
from opgen.model.kinds import Kind
from opgen.project import validate
from opgen.project.config import PROJECT_FILE, Project, Resource
from opgen.project.coregroups import CORE_GROUPS
from opgen.project.layout import Layout

__all__ = ["check_kinds", "check_project"]

HINT = (
    "PROJECT is written by opgen and records what its commands were given; restore "
    "it (`git checkout PROJECT`). A project's domain, name or layout cannot be changed "
    "there: they are also in the types files, CRDs, RBAC and main.py"
)


KINDS_HINT = (
    "if PROJECT was edited, restore it (`git checkout PROJECT`); if the kind was "
    "renamed or moved in its types file, put it back, or run `opgen delete api` for "
    "the old kind and `opgen create api` for the new one"
)


SCOPE_HINT = (
    "a namespaced project's operator may only reconcile namespaced kinds: make the "
    'kind namespaced (@op.kind(..., scope="Namespaced")), or run `opgen delete '
    "api` for its controller"
)


def _label(position: int, resource: Resource) -> str:
    return (
        f"resources[{position}] {resource.kind} ({resource.group}/{resource.version})"
    )


def _invalid(check: Callable[[], object]) -> str | None:
    """What the input check `check` says is wrong (without its `--flag` dashes), or None."""
    try:
        check()
    except ProjectError as error:
        return error.message.replace("--", "", 1)
    return None


def _project_problems(project: Project, root: Path) -> list[str]:
    problems = []
    for problem in (
        _invalid(lambda: validate.domain(project.domain)),
        _invalid(
            lambda: validate.project_name(project.project_name, from_directory=False)
        ),
        _invalid(lambda: validate.owner(project.owner)),
    ):
        if problem is not None:
            problems.append(problem)
    expected = validate.package_name(project.project_name)
    if project.package != expected:
        problems.append(
            f"package is {project.package!r}, but projectName "
            f"{project.project_name!r} makes it {expected!r}"
        )
    elif not (root / project.package).is_dir():
        problems.append(
            f"package {project.package!r} has no folder {project.package}/ here"
        )
    return problems


def _resource_problems(
    project: Project, position: int, resource: Resource
) -> list[str]:
    label = _label(position, resource)
    given_plural = resource.given_plural
    problems = [
        f"{label}: {problem}"
        for problem in (
            _invalid(lambda: validate.version(resource.version)),
            _invalid(lambda: validate.kind(resource.kind)),
            (
                None
                if given_plural is None
                else _invalid(lambda: validate.plural(given_plural))
            ),
        )
        if problem is not None
    ]
    if resource.core:
        if resource.group not in CORE_GROUPS:
            problems.append(
                f"{label}: core is true, but {resource.group!r} is not a Kubernetes group"
            )
        return problems
    group_problem = _invalid(
        lambda: validate.group(resource.group, domain_name=project.domain)
    )
    if group_problem is not None:
        problems.append(f"{label}: {group_problem}")
    if project.namespaced and resource.controller and not resource.namespaced:
        problems.append(
            f"{label}: a cluster-scoped kind with a controller, but the project is "
            "namespaced"
        )
    return problems


def _import_problems(project: Project) -> list[str]:
    problems = []
    for position, record in enumerate(project.imports):
        label = f"imports[{position}] {record.kind} ({record.crd})"
        for resource in project.resources:
            if resource.defines(record.crd, record.kind):
                problems.append(
                    f"{label}: the project defines {resource.kind} "
                    f"({resource.api_group}) itself"
                )
    repeated = Counter(record.crd for record in project.imports)
    problems += [
        f"the import of {crd} is listed more than once"
        for crd, count in repeated.items()
        if count > 1
    ]
    return problems


def check_project(project: Project, root: Path, *, path: str = PROJECT_FILE) -> None:
    """Raise one `ProjectError` listing everything in PROJECT that no longer matches."""
    problems = _project_problems(project, root)
    for position, resource in enumerate(project.resources):
        problems += _resource_problems(project, position, resource)
    repeated = [
        key
        for key, count in Counter(r.key for r in project.resources).items()
        if count > 1
    ]
    for group, version, kind in repeated:
        problems.append(f"{kind} ({group}/{version}) is listed more than once")
    problems += _import_problems(project)
    groups = sorted({r.group for r in project.resources if not r.core})
    if not project.multigroup and len(groups) > 1:
        problems.append(
            f"multigroup is false, but the resources use the groups {', '.join(groups)}"
        )
    _raise(problems, path)


def check_kinds(
    project: Project, kinds: Sequence[Kind], *, path: str = PROJECT_FILE
) -> None:
    """Every kind PROJECT scaffolded types for is one the types files define.

    A kind whose group, version or name changed in PROJECT (or in the types
    file) would leave the CRD list, the samples and `delete api` pointing at a
    CRD no generator writes.
    """
    layout = Layout(project)
    defined = {
        (kind.group, version.version, kind.names.kind)
        for kind in kinds
        for version in kind.versions
    }
    by_kind = {kind.names.kind: kind for kind in kinds}
    scopes = {(kind.group, kind.names.kind): kind.namespaced for kind in kinds}
    problems = []
    scope_problems = []
    for position, resource in enumerate(project.resources):
        if not resource.api or resource.core:
            continue
        if (resource.api_group, resource.version, resource.kind) in defined:
            if (
                project.namespaced
                and resource.controller
                and not scopes[resource.api_group, resource.kind]
            ):
                scope_problems.append(
                    f"{_label(position, resource)}: {layout.types_file(resource)} "
                    "makes the kind cluster-scoped, and it has a controller, but the "
                    "project is namespaced"
                )
            continue
        found = by_kind.get(resource.kind)
        where = layout.types_file(resource)
        if found is None:
            seen = "no types file defines that kind"
        else:
            versions = ", ".join(v.version for v in found.versions)
            seen = f"the types define {resource.kind} in {found.group} ({versions})"
        problems.append(
            f"{_label(position, resource)}: PROJECT says {resource.api_group}/"
            f"{resource.version}, but {seen} ({where} should)"
        )
    _raise(problems, path, hint=KINDS_HINT)
    _raise(scope_problems, path, hint=SCOPE_HINT)


def _raise(problems: list[str], path: str, *, hint: str = HINT) -> None:
    if not problems:
        return
    listed = "".join(f"\n  - {problem}" for problem in problems)
    raise ProjectError(
        f"no longer matches what opgen made:{listed}",
        location=Location(file=path),
        hint=hint,
    )
