"""View-models for the scaffold templates: every name and string, decided in Python.

Templates only loop over and substitute these values.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from opgen import __version__
from opgen.engine.naming import pluralize
from opgen.project.config import Project, Resource
from opgen.project.coregroups import lightkube_module
from opgen.project.layout import Layout
from opgen.project.validate import package_name

PYTHON_VERSION = "3.12"
"""The Python of the operator image (the project itself supports 3.10+)."""


@dataclass(frozen=True)
class ProjectView:
    """Everything project-wide a template needs."""

    name: str
    package: str
    domain: str
    namespace: str
    """Where `config/default` deploys the manager: `<name>-system`."""
    namespaced: bool
    role_kind: str
    """`Role` (a --namespaced project) or `ClusterRole`: the manager's role."""
    api_packages: str
    """How `<pkg>/api/` is split: `group and version` with --multigroup, else `version`."""
    copyright_holder: str
    apache2: bool
    opgen_version: str
    python_version: str
    leader_election_id: str
    license_header: str
    """`#` comment lines with the licence notice (empty without a licence)."""


@dataclass(frozen=True)
class ResourceView:
    """Everything about one `create api` a template needs."""

    kind: str
    kind_lower: str
    group: str
    version: str
    api_group: str
    api_version: str
    plural: str
    plural_is_default: bool
    namespaced: bool
    core: bool
    types_module: str
    groupversion_module: str
    controller_module: str
    reconciler: str
    controller_name: str
    finalizer: str
    sample_name: str
    role_prefix: str
    """`<kind>` (or `<group>-<kind>` with --multigroup), prefix of the helper roles."""
    test_module: str


def project_view(project: Project) -> ProjectView:
    digest = hashlib.sha256(project.project_name.encode()).hexdigest()[:8]
    holder = project.owner or f"The {project.project_name} authors"
    header = ""
    if project.license == "apache2":
        header = f"# Copyright {holder}.\n" "# SPDX-License-Identifier: Apache-2.0\n"
    return ProjectView(
        name=project.project_name,
        package=project.package,
        domain=project.domain,
        namespace=f"{project.project_name}-system",
        namespaced=project.namespaced,
        role_kind="Role" if project.namespaced else "ClusterRole",
        api_packages="group and version" if project.multigroup else "version",
        copyright_holder=holder,
        apache2=project.license == "apache2",
        opgen_version=__version__,
        python_version=PYTHON_VERSION,
        leader_election_id=f"{digest}.{project.domain}",
        license_header=header,
    )


def resource_view(project: Project, resource: Resource) -> ResourceView:
    layout = Layout(project)
    kind_lower = resource.kind.lower()
    prefix = f"{resource.group}-" if project.multigroup else ""
    if resource.core:
        types_module = lightkube_module(resource.group, resource.version)
        api_version = (
            f"{resource.api_group}/{resource.version}"
            if resource.api_group
            else resource.version
        )
        finalizer = f"{project.domain}/{kind_lower}-finalizer"
    else:
        types_module = layout.types_module(resource)
        api_version = f"{resource.api_group}/{resource.version}"
        finalizer = f"{resource.api_group}/finalizer"
    return ResourceView(
        kind=resource.kind,
        kind_lower=kind_lower,
        group=resource.group,
        version=resource.version,
        api_group=resource.api_group,
        api_version=api_version,
        plural=resource.plural,
        plural_is_default=resource.plural == pluralize(resource.kind),
        namespaced=resource.namespaced,
        core=resource.core,
        types_module=types_module,
        groupversion_module=layout.groupversion_module(
            resource.group, resource.version
        ),
        controller_module=layout.controller_module(resource),
        reconciler=f"{resource.kind}Reconciler",
        controller_name=f"{prefix}{kind_lower}",
        finalizer=finalizer,
        sample_name=f"{kind_lower}-sample",
        role_prefix=f"{package_name(prefix)}{kind_lower}".replace("_", "-"),
        test_module=layout.controller_test(resource).stem,
    )
