"""The data of every template under `opgen/templates/`, as frozen dataclasses.

Every name, string and flag a template needs is decided here; templates only
loop, substitute, and test a flag of the view to include or leave out a block
(`{% if project.namespaced %}`). Code text lives in the templates, never in
these views. Each template sees `project` (a `ProjectView`), and per API
`resource` (a `ResourceView`); the typed-client template sees `module` (a
`ClientModuleView`); the packages of imported kinds
(`imported/package_init.py.j2`) see `module` (an `ImportedPackageView`); the
head of a module of models read from OpenAPI (`models/module.py.j2`) sees
`module` (a `ModelsModuleView`), and each statement after it, rendered on its
own, sees `module` as a `ModelAliasView` or a `ModelClassView` (annotations and
defaults are Python expressions `render.models` composes from the IR);
`op.k8s`'s package (`models/k8s_init.py.j2`) sees `module` (a `K8sPackageView`),
and its core/v1 module (`models/k8s_core_facade.py.j2`) a `K8sCoreFacadeView`;
the webhook templates see `webhook` (a `WebhookView`) and, for one conversion,
`spoke` (a `SpokeView`).

The one exception is the text between scaffold markers: `wiring` computes it
from PROJECT alone, because the writer splices the same text into files the
user already has, where no template runs.
"""

from __future__ import annotations

import hashlib
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from opgen import __version__
from opgen.engine.naming import pluralize
from opgen.model.kinds import Kind, KindVersion
from opgen.project.config import Project, Resource
from opgen.project.coregroups import k8s_module
from opgen.project.layout import CLIENT_MODULE, Layout
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
    reporting_controller: str
    """`reportingController` of the Events its reconciler records: `<domain>/<controller>`."""
    sample_name: str
    rbac_group: str
    """The group `op.rbac` names: the API group, `core` for Kubernetes' core group."""
    role_prefix: str
    """`<kind>` (or `<group>-<kind>` with --multigroup), prefix of the helper roles."""
    test_module: str
    sample_path: str
    """The sample object's path from the project root (the controller test reads it)."""


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
        types_module = k8s_module(resource.group, resource.version)
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
        reporting_controller=f"{project.domain}/{prefix}{kind_lower}",
        sample_name=f"{kind_lower}-sample",
        rbac_group=resource.api_group or "core",
        role_prefix=f"{package_name(prefix)}{kind_lower}".replace("_", "-"),
        test_module=layout.controller_test(resource).stem,
        sample_path=str(layout.sample_file(resource)),
    )


# --- webhooks: one `<kind>_webhook.py` per version that has any ---


@dataclass(frozen=True)
class SpokeView:
    """One version converted to and from the hub."""

    version: str
    alias: str
    """The name its types module is imported under (`v1alpha1`)."""
    types_module: str
    kind: str
    """`v1alpha1.RayCluster`: the spoke's class, through the alias."""
    converter: str
    """`RayClusterV1alpha1Conversion`."""


@dataclass(frozen=True)
class WebhookView:
    """Everything about the webhooks of one version of a kind a template needs."""

    kind: str
    kind_lower: str
    version: str
    api_group: str
    api_version: str
    namespaced: bool
    types_module: str
    module: str
    """The webhook module (`ray_operator.webhook.v1.raycluster_webhook`)."""
    main_alias: str
    """What main.py imports the module as (`raycluster_v1_webhook`)."""
    defaulting: bool
    validation: bool
    conversion: bool
    defaulter: str
    validator: str
    spokes: tuple[SpokeView, ...]
    sample_path: str
    """The hub version's sample (tests read it)."""


def webhook_view(project: Project, resource: Resource) -> WebhookView:
    layout = Layout(project)
    webhooks = resource.webhooks
    assert webhooks is not None, "a resource without webhooks has no webhook view"
    kind_lower = resource.kind.lower()
    prefix = f"{package_name(resource.group)}_" if project.multigroup else ""
    spokes = []
    for version in webhooks.spoke:
        spoke = project.require(resource.group, version, resource.kind)
        spokes.append(
            SpokeView(
                version=version,
                alias=version,
                types_module=layout.types_module(spoke),
                kind=f"{version}.{resource.kind}",
                converter=f"{resource.kind}{version[:1].upper()}{version[1:]}Conversion",
            )
        )
    return WebhookView(
        kind=resource.kind,
        kind_lower=kind_lower,
        version=resource.version,
        api_group=resource.api_group,
        api_version=f"{resource.api_group}/{resource.version}",
        namespaced=resource.namespaced,
        types_module=layout.types_module(resource),
        module=layout.webhook_module(resource),
        main_alias=f"{prefix}{kind_lower}_{resource.version}_webhook",
        defaulting=webhooks.defaulting,
        validation=webhooks.validation,
        conversion=webhooks.conversion,
        defaulter=f"{resource.kind}Defaulter",
        validator=f"{resource.kind}Validator",
        spokes=tuple(spokes),
        sample_path=str(layout.sample_file(resource)),
    )


# --- typed clients: one `zz_generated_client.py` per folder of types files ---

_BASE_METHODS = (
    "get",
    "list",
    "watch",
    "create",
    "update",
    "apply",
    "patch",
    "delete",
    "delete_collection",
)
_STATUS_METHODS = ("get_status", "update_status", "patch_status", "apply_status")
_SCALE_METHODS = ("get_scale", "update_scale")
_DOC_WIDTH = 84


@dataclass(frozen=True)
class ClientView:
    """One generated client class."""

    name: str
    model: str
    scope: str
    """`Namespaced` or `Cluster`: which of `opgen.runtime.typed`'s bases it takes."""
    status: bool
    """It takes the status mixin (the kind has the /status subresource)."""
    scale: bool
    """It takes the scale mixin (the kind has the /scale subresource)."""
    summary: str
    """First docstring line."""
    methods: tuple[str, ...]
    """Docstring lines: its subresources and methods, wrapped."""


@dataclass(frozen=True)
class ClientImportView:
    """One `from <module> import <names>` line: the user's models."""

    module: str
    names: tuple[str, ...]


@dataclass(frozen=True)
class ClientExampleView:
    """The usage example in the module docstring, for its first client."""

    module: str
    client: str
    variable: str
    namespaced: bool


@dataclass(frozen=True)
class ClientModuleView:
    """One `zz_generated_client.py`."""

    path: PurePosixPath
    title: str
    imports: tuple[ClientImportView, ...]
    clients: tuple[ClientView, ...]
    example: ClientExampleView
    imported_from: str | None = None
    """For kinds `opgen import` read: the CRD files they came from (the module
    says so instead of pointing at types files)."""


@dataclass(frozen=True)
class KindVersionEntry:
    """One version of a kind whose class a client module imports."""

    kind: str
    group: str
    version: str
    plural: str
    namespaced: bool
    module: str
    """The module defining the class."""
    cls: str
    status: bool
    """The version has the /status subresource."""
    scale_spec_path: str | None
    """The /scale subresource's spec replicas path, when the version has one."""

    @classmethod
    def of(cls, kind: Kind, version: KindVersion) -> KindVersionEntry:
        return cls(
            kind=kind.names.kind,
            group=kind.group,
            version=version.version,
            plural=kind.names.plural,
            namespaced=kind.namespaced,
            module=version.source.module,
            cls=version.source.cls,
            status=version.status_subresource,
            scale_spec_path=(
                version.scale.spec_replicas_path if version.scale else None
            ),
        )


def client_module_view(
    package: str,
    entries: Sequence[KindVersionEntry],
    *,
    imported_from: str | None = None,
) -> ClientModuleView:
    """The client module of `package` (a folder of types files) for its kind versions."""
    entries = sorted(entries, key=lambda e: (e.module, e.kind))
    group_versions = sorted({f"{e.group}/{e.version}" for e in entries})
    by_module: dict[str, list[str]] = {}
    for entry in entries:
        by_module.setdefault(entry.module, []).append(entry.cls)
    first = entries[0]
    return ClientModuleView(
        path=PurePosixPath(*package.split("."), f"{CLIENT_MODULE}.py"),
        title=", ".join(group_versions),
        imports=tuple(
            ClientImportView(module, tuple(sorted(names)))
            for module, names in sorted(by_module.items())
        ),
        clients=tuple(_client_view(e) for e in entries),
        example=ClientExampleView(
            module=f"{package}.{CLIENT_MODULE}",
            client=f"{first.kind}Client",
            variable=first.plural.replace("-", "_"),
            namespaced=first.namespaced,
        ),
        imported_from=imported_from,
    )


def _client_view(entry: KindVersionEntry) -> ClientView:
    methods = list(_BASE_METHODS)
    extras = []
    if entry.status:
        methods += _STATUS_METHODS
        extras.append("status")
    if entry.scale_spec_path is not None:
        methods += _SCALE_METHODS
        extras.append(f"scale (replicas at {entry.scale_spec_path})")
    scope_text = "namespaced" if entry.namespaced else "cluster-scoped"
    details = []
    if extras:
        details.append(f"Subresources: {'; '.join(extras)}.")
    details.append(f"Methods: {', '.join(methods)}.")
    return ClientView(
        name=f"{entry.kind}Client",
        model=entry.cls,
        scope="Namespaced" if entry.namespaced else "Cluster",
        status=entry.status,
        scale=entry.scale_spec_path is not None,
        summary=(
            f"Typed client for {entry.kind} ({entry.group}/{entry.version}), "
            f"a {scope_text} kind."
        ),
        methods=tuple(
            line
            for paragraph in details
            for line in textwrap.wrap(paragraph, width=_DOC_WIDTH)
        ),
    )


@dataclass(frozen=True)
class ModelFieldView:
    """One field of a generated `op.Model` class."""

    name: str
    annotation: str
    default: str | None
    """The expression after `=` (None for a required field without alias)."""
    docstring: str | None


@dataclass(frozen=True)
class ModelClassView:
    """One generated `op.Model` class."""

    name: str
    base: str
    decorators: tuple[str, ...]
    docstring: str | None
    fields: tuple[ModelFieldView, ...]


@dataclass(frozen=True)
class ModelAliasView:
    """One `TypeAliasType` of a documented named scalar."""

    name: str
    value: str


@dataclass(frozen=True)
class ModelsModuleView:
    """One module of models read from OpenAPI (`opgen.api.k8s.core_v1`, ...)."""

    docstring: str
    postponed_annotations: bool
    """Whether it starts with `from __future__ import annotations`."""
    typing_names: str
    """What to import from `typing` (`Annotated, Literal`), or ""."""
    uses_field: bool
    uses_type_alias: bool
    uses_op: bool
    """Whether a statement refers to `op` (a module of aliases alone may not)."""
    imports: tuple[str, ...]
    """`from <package> import <modules>` lines for models of other modules."""
    aliases: tuple[ModelAliasView, ...]
    classes: tuple[ModelClassView, ...]
    exports: tuple[str, ...]


@dataclass(frozen=True)
class K8sPackageView:
    """`opgen/api/k8s/__init__.py`: lazy re-exports of every type by its Go name."""

    header: str
    kubernetes_version: str
    known: tuple[str, ...]
    """The opgen.api value types re-exported under their Go names."""
    modules: tuple[str, ...]
    ambiguous: tuple[tuple[str, tuple[str, ...]], ...]
    """(name, modules) of the names several modules define: re-exported only
    from core_v1, when it is one of them."""
    homes: tuple[tuple[str, str], ...]
    """(name, module) of every other generated class and alias."""
    by_module: tuple[tuple[str, tuple[str, ...]], ...]
    exports: tuple[str, ...]


@dataclass(frozen=True)
class K8sCoreFacadeView:
    """`opgen/api/k8s/core_v1.py`: core/v1's names, each loaded from its part."""

    docstring: str
    parts: tuple[tuple[str, str], ...]
    """(name, part module) of every class and alias."""
    by_part: tuple[tuple[str, tuple[str, ...]], ...]
    """Each part module, sorted, with its names."""
    exports: tuple[str, ...]


@dataclass(frozen=True)
class PatchStrategiesView:
    """`opgen/api/k8s/patch_strategies.py`: the strategic merge patch facts."""

    header: str
    kinds: tuple[tuple[str, str], ...]
    """(kind, OpenAPI type) of every kind with patch facts."""
    types: tuple[tuple[str, tuple[tuple[str, tuple[str, str, str]], ...]], ...]
    """(type, ((field, (strategy, merge key, value type)), ...)) of every type
    with patch facts."""


@dataclass(frozen=True)
class ImportedPackageView:
    """An `__init__.py` above the modules of imported kinds."""

    docstring: str
