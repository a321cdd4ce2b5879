"""Turning a command's validated inputs into PROJECT records.

`new_project` is `opgen init`; `new_resource` is `opgen create api`, with the
checks that need the project: a duplicate kind, a core type that does not
exist, a second group in a single-group project, a kind the project
imports; `new_webhooks` is `opgen
create webhook`: an API of the project, spokes that exist, one hub per kind,
no webhook asked for twice without --force.
"""

from __future__ import annotations

from collections.abc import Sequence

from opgen import __version__
from opgen.errors import ProjectError
from opgen.project import validate
from opgen.project.config import License, Project, Resource, Webhooks
from opgen.project.coregroups import find_core_type, is_core_group


def new_project(
    *,
    domain: str,
    project_name: str | None,
    directory_name: str,
    owner: str | None,
    license: License,
    multigroup: bool,
    namespaced: bool,
) -> Project:
    """The PROJECT record `opgen init` writes (inputs validated)."""
    name = validate.project_name(
        project_name if project_name is not None else directory_name,
        from_directory=project_name is None,
    )
    return Project(
        cli_version=__version__,
        domain=validate.domain(domain),
        project_name=name,
        package=validate.package_name(name),
        owner=validate.owner(owner),
        license=license,
        multigroup=multigroup,
        namespaced=namespaced,
    )


def new_resource(
    project: Project,
    *,
    group: str,
    version: str,
    kind: str,
    plural: str | None,
    namespaced: bool,
    resource: bool,
    controller: bool,
    force: bool,
) -> Resource:
    """The PROJECT entry `opgen create api` adds (inputs validated against the project)."""
    validate.version(version)
    validate.kind(kind)
    if not resource and not controller:
        raise ProjectError(
            "nothing to scaffold: both --no-resource and --no-controller were given",
            hint="drop one of them",
        )
    existing = project.find(group, version, kind)
    if resource:
        validate.group(group, domain_name=project.domain)
        if plural is not None:
            validate.plural(plural)
        entry = Resource(
            group=group,
            version=version,
            kind=kind,
            given_plural=plural,
            given_namespaced=namespaced,
            api=True,
            controller=controller,
            api_group=f"{group}.{project.domain}",
        )
    elif existing is not None and existing.api:
        entry = existing.model_copy(update={"controller": True})
    elif is_core_group(group):
        core = find_core_type(group, version, kind)
        entry = Resource(
            group=group,
            version=version,
            kind=kind,
            api=False,
            controller=True,
            core=True,
            api_group=core.group,
        )
    else:
        raise ProjectError(
            f"--no-resource needs an existing type, but {group}/{version} {kind} is "
            "neither in this project nor a built-in Kubernetes type",
            hint="drop --no-resource to scaffold the type too, or use a core group "
            "such as --group apps --version v1 --kind Deployment",
        )
    if existing is not None and not force:
        wanted = [
            part for part, on in (("types", resource), ("controller", controller)) if on
        ]
        has = [
            part
            for part, on in (
                ("types", existing.api),
                ("controller", existing.controller),
            )
            if on
        ]
        clash = sorted(set(wanted) & set(has))
        if clash:
            raise ProjectError(
                f"{kind} ({group}/{version}) already exists in this project "
                f"(its {' and '.join(clash)} were scaffolded before)",
                hint="pick another kind, or re-run with --force to scaffold its files again "
                "(overwriting your changes)",
            )
    if existing is not None:
        entry = entry.model_copy(
            update={
                "api": existing.api or entry.api,
                "controller": existing.controller or entry.controller,
                "webhooks": existing.webhooks,
            }
        )
    _check_scope(project, entry)
    _check_unique_names(project, entry)
    _check_not_imported(project, entry)
    return entry


def _check_scope(project: Project, entry: Resource) -> None:
    """A --namespaced project's manager has a Role in its namespace, nothing cluster-wide."""
    if not (project.namespaced and entry.controller and not entry.namespaced):
        return
    what = (
        "a built-in cluster-scoped type" if entry.core else "cluster-scoped (--cluster)"
    )
    raise ProjectError(
        f"{entry.kind} is {what}, but this project is --namespaced: its manager only "
        "gets a Role in its own namespace, which cannot grant access to "
        "cluster-scoped objects",
        hint=(
            "a --namespaced project can reconcile namespaced types only"
            if entry.core
            else "drop --cluster, or scaffold only the types with --no-controller"
        ),
    )


def _check_not_imported(project: Project, entry: Resource) -> None:
    """A kind of the project's own cannot be one `opgen import crd` imported: both
    would have a CRD of one name (config/crd/ and config/imported/)."""
    for record in project.imports:
        if entry.defines(record.crd, record.kind):
            raise ProjectError(
                f"{entry.kind} ({entry.api_group}) is imported: PROJECT's imports "
                f"have {record.kind} ({record.crd})",
                hint="choose another kind or group, or take the import back first "
                "(docs/import.md: delete its imports entry, then `opgen generate`)",
            )


def _check_unique_names(project: Project, entry: Resource) -> None:
    for other in project.resources:
        if other.key == entry.key:
            continue
        if (
            other.api_group == entry.api_group
            and other.kind == entry.kind
            and other.plural != entry.plural
        ):
            raise ProjectError(
                f"{entry.kind} in {entry.api_group} already has the plural {other.plural!r} "
                f"(version {other.version}); every version of a kind shares one plural",
                hint=f"use --plural {other.plural}",
            )
        if (
            other.api_group == entry.api_group
            and other.plural == entry.plural
            and other.kind != entry.kind
        ):
            raise ProjectError(
                f"the plural {entry.plural!r} is already taken by {other.kind} in {entry.api_group}",
                hint="choose another --plural",
            )
        if (
            not project.multigroup
            and entry.api
            and other.api
            and other.group != entry.group
        ):
            raise ProjectError(
                f"this project already has the group {other.group!r}; a single-group "
                "project keeps its types in api/<version>/, one group only",
                hint="use the same --group, or start the project with `opgen init --multigroup`",
            )
        if (
            other.kind.lower() == entry.kind.lower()
            and other.kind != entry.kind
            and other.group == entry.group
        ):
            raise ProjectError(
                f"{entry.kind} differs from {other.kind} only in case; their files would clash",
                hint="choose a different kind name",
            )


def new_webhooks(
    project: Project,
    *,
    group: str,
    version: str,
    kind: str,
    defaulting: bool,
    validation: bool,
    conversion: bool,
    spokes: Sequence[str],
    force: bool,
) -> Resource:
    """The PROJECT entry of an API after `opgen create webhook` (inputs validated)."""
    resource = project.find(group, version, kind)
    if resource is None:
        raise ProjectError(
            f"{kind} ({group}/{version}) is not in this project; webhooks are added to "
            "an API `opgen create api` scaffolded",
            hint=f"run `opgen create api --group {group} --version {version} --kind {kind}` "
            "first",
        )
    if not resource.api:
        raise ProjectError(
            f"{kind} ({group}/{version}) has no types in this project (a built-in type's "
            "controller); opgen scaffolds webhooks only for the project's own kinds",
            hint="webhooks on built-in types can deadlock a cluster that needs them to "
            "start; see docs/webhooks.md",
        )
    if not (defaulting or validation or conversion):
        raise ProjectError(
            "nothing to scaffold: give --defaulting, --validation "
            "(--programmatic-validation) or --conversion",
            hint="for example: opgen create webhook --group ... --defaulting --validation",
        )
    if spokes and not conversion:
        raise ProjectError("--spoke is only for --conversion", hint="add --conversion")
    if conversion and not spokes:
        raise ProjectError(
            f"--conversion needs --spoke: the versions of {kind} converted to and from "
            f"this hub, {version}",
            hint="for example --conversion --spoke v1alpha1 (create each with "
            "`opgen create api --version ...` first)",
        )
    for spoke in spokes:
        validate.version(spoke)
        if spoke == version:
            raise ProjectError(
                f"--spoke {spoke} is the hub version itself",
                hint="list the other versions of the kind",
            )
        other = project.find(group, spoke, kind)
        if other is None or not other.api:
            raise ProjectError(
                f"--spoke {spoke}: {kind} ({group}/{spoke}) is not in this project",
                hint=f"run `opgen create api --group {group} --version {spoke} --kind "
                f"{kind} --no-controller` first",
            )
    existing = resource.webhooks or Webhooks()
    for other in project.resources:
        if other.key == resource.key or (other.group, other.kind) != (group, kind):
            continue
        hooks = other.webhooks
        if hooks is None:
            continue
        if conversion and hooks.conversion:
            raise ProjectError(
                f"{kind} already converts through the hub {other.version}; a kind has one hub",
                hint=f"add the spoke there: opgen create webhook --group {group} --version "
                f"{other.version} --kind {kind} --conversion --spoke ...",
            )
        if version in hooks.spoke:
            raise ProjectError(
                f"{kind} {version} is a spoke of the hub {other.version}; it cannot be a hub",
            )
    clash = [
        name
        for name, wanted, has in (
            ("defaulting", defaulting, existing.defaulting),
            ("validation", validation, existing.validation),
        )
        if wanted and has
    ] + [f"conversion to {s}" for s in spokes if s in existing.spoke]
    if clash and not force:
        raise ProjectError(
            f"{kind} ({group}/{version}) already has {' and '.join(clash)} webhooks "
            "(scaffolded before)",
            hint="ask only for what is missing, or re-run with --force to scaffold the "
            "webhook file again (overwriting your changes)",
        )
    merged = Webhooks(
        defaulting=existing.defaulting or defaulting,
        validation=existing.validation or validation,
        conversion=existing.conversion or conversion,
        spoke=tuple(sorted({*existing.spoke, *spokes})),
    )
    return resource.model_copy(update={"webhooks": merged})
