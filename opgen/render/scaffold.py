"""The files `opgen init` and `opgen create api` scaffold, as `File` values.

`init_files` is the whole new project; `api_files` is what one `create api`
adds (user-owned); `webhook_files` what one `create webhook` adds (the
webhook module and its test, with the new parts to insert into them when
they exist, and the project's webhook config on the first run);
`injected_files` re-renders every file that holds scaffold markers, which the
writer splices into existing files (the whole new-file content is rendered
only for a file that is missing); `project_file` is PROJECT itself. Every
template's data comes from `opgen.render.views`.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Any

from opgen.project.config import PROJECT_FILE, Project, Resource, dump_project
from opgen.project.layout import Layout
from opgen.render import wiring
from opgen.render.rbac import project_role
from opgen.render.templating import render
from opgen.render.views import project_view, resource_view, webhook_view
from opgen.write.files import File, Ownership
from opgen.write.hashes import generated_hashes
from opgen.write.insertions import Insertion
from opgen.write.regions import wrap

_USER_FILES = {
    "pyproject.toml": "project/pyproject.toml.j2",
    "Makefile": "project/Makefile.j2",
    "Dockerfile": "project/Dockerfile.j2",
    ".dockerignore": "project/dockerignore.j2",
    ".gitignore": "project/gitignore.j2",
    "README.md": "project/README.md.j2",
    "constraints.txt": "project/constraints.txt.j2",
    "wheelhouse/README.md": "project/wheelhouse_readme.md.j2",
    "tests/conftest.py": "tests/conftest.py.j2",
    "tests/e2e/test_manager.py": "tests/test_e2e.py.j2",
    ".github/workflows/lint.yml": "project/workflows/lint.yml.j2",
    ".github/workflows/test.yml": "project/workflows/test.yml.j2",
    ".github/workflows/test-e2e.yml": "project/workflows/test-e2e.yml.j2",
    "config/default/metrics_service.yaml": "config/default/metrics_service.yaml.j2",
    "config/default/manager_metrics_patch.yaml": "config/default/manager_metrics_patch.yaml.j2",
    "config/default/cert_metrics_manager_patch.yaml": (
        "config/default/cert_metrics_manager_patch.yaml.j2"
    ),
    "config/manager/kustomization.yaml": "config/manager/kustomization.yaml.j2",
    "config/manager/manager.yaml": "config/manager/manager.yaml.j2",
    "config/rbac/service_account.yaml": "config/rbac/service_account.yaml.j2",
    "config/rbac/role_binding.yaml": "config/rbac/role_binding.yaml.j2",
    "config/rbac/leader_election_role.yaml": "config/rbac/leader_election_role.yaml.j2",
    "config/rbac/leader_election_role_binding.yaml": (
        "config/rbac/leader_election_role_binding.yaml.j2"
    ),
    "config/rbac/metrics_auth_role.yaml": "config/rbac/metrics_auth_role.yaml.j2",
    "config/rbac/metrics_auth_role_binding.yaml": "config/rbac/metrics_auth_role_binding.yaml.j2",
    "config/rbac/metrics_reader_role.yaml": "config/rbac/metrics_reader_role.yaml.j2",
    "config/prometheus/kustomization.yaml": "config/prometheus/kustomization.yaml.j2",
    "config/prometheus/monitor.yaml": "config/prometheus/monitor.yaml.j2",
    "config/prometheus/monitor_tls_patch.yaml": "config/prometheus/monitor_tls_patch.yaml.j2",
    "config/network-policy/allow-metrics-traffic.yaml": (
        "config/network-policy/allow-metrics-traffic.yaml.j2"
    ),
}

_PACKAGE_FILES = {
    "__init__.py": "project/package_init.py.j2",
    "__main__.py": "project/__main__.py.j2",
    "api/__init__.py": "project/api_init.py.j2",
    "controller/__init__.py": "project/controller_init.py.j2",
}

# Injected files: template, and the name each region has in that template.
_INJECTED_TEMPLATES = {
    "config/default/kustomization.yaml": "config/default/kustomization.yaml.j2",
    "config/crd/kustomization.yaml": "config/crd/kustomization.yaml.j2",
    "config/rbac/kustomization.yaml": "config/rbac/kustomization.yaml.j2",
    "config/samples/kustomization.yaml": "config/samples/kustomization.yaml.j2",
    "config/network-policy/kustomization.yaml": "config/network-policy/kustomization.yaml.j2",
}
_WEBHOOK_TEMPLATE = "webhook/webhook.py.j2"
_WEBHOOK_TEST_TEMPLATE = "webhook/test_webhook.py.j2"
_TEMPLATE_SLOTS = {
    wiring.MAIN_IMPORTS: "imports",
    wiring.MAIN_CONTROLLERS: "controllers",
    wiring.MAIN_WEBHOOKS: "webhooks",
    wiring.DEFAULT_CRD: "crd",
    wiring.DEFAULT_WEBHOOK: "webhook_resources",
    wiring.DEFAULT_WEBHOOK_PATCH: "webhook_patch",
    wiring.DEFAULT_WEBHOOK_REPLACEMENTS: "webhook_replacements",
    wiring.CRD_BASES: "crd_bases",
    wiring.CRD_CONFIGURATIONS: "crd_configurations",
    wiring.RBAC_KIND_ROLES: "kind_roles",
    wiring.SAMPLES: "samples",
    wiring.NETWORK_POLICIES: "network_policies",
    wiring.WEBHOOK_SETUP: "setup",
}
_SLOT_INDENT = {
    wiring.MAIN_CONTROLLERS: wiring.CONTROLLER_INDENT,
    wiring.MAIN_WEBHOOKS: wiring.CONTROLLER_INDENT,
    wiring.WEBHOOK_SETUP: wiring.CONTROLLER_INDENT,
}

# Created once, by the first `create webhook`; yours afterwards.
_WEBHOOK_CONFIG_FILES = {
    "config/webhook/kustomization.yaml": "config/webhook/kustomization.yaml.j2",
    "config/webhook/service.yaml": "config/webhook/service.yaml.j2",
    "config/certmanager/issuer.yaml": "config/certmanager/issuer.yaml.j2",
    "config/certmanager/certificate-webhook.yaml": (
        "config/certmanager/certificate-webhook.yaml.j2"
    ),
    "config/certmanager/kustomization.yaml": "config/certmanager/kustomization.yaml.j2",
    "config/certmanager/kustomizeconfig.yaml": "config/certmanager/kustomizeconfig.yaml.j2",
    "config/crd/kustomizeconfig.yaml": "config/crd/kustomizeconfig.yaml.j2",
    "config/default/manager_webhook_patch.yaml": (
        "config/default/manager_webhook_patch.yaml.j2"
    ),
    "config/network-policy/allow-webhook-traffic.yaml": (
        "config/network-policy/allow-webhook-traffic.yaml.j2"
    ),
}
_WEBHOOK_PARTS = (
    ("defaulting", "webhook/defaulter.py.j2", "webhook/test_defaulter.py.j2"),
    ("validation", "webhook/validator.py.j2", "webhook/test_validator.py.j2"),
)
_CONVERSION_PART = ("webhook/conversion.py.j2", "webhook/test_conversion.py.j2")
_BLOCK_START = ("class ", "def ", "async def ")


def project_file(project: Project) -> File:
    return File(PurePosixPath(PROJECT_FILE), dump_project(project), Ownership.GENERATED)


def init_files(project: Project) -> list[File]:
    """Every file of a new project (PROJECT included)."""
    view = project_view(project)
    layout = Layout(project)
    files = [
        File(PurePosixPath(path), render(template, project=view), Ownership.USER)
        for path, template in _USER_FILES.items()
    ]
    files += [
        File(layout.package_dir / path, render(template, project=view), Ownership.USER)
        for path, template in _PACKAGE_FILES.items()
    ]
    role = project_role([], project)
    files.append(role)
    # PROJECT records the generated file as written, as `opgen generate` does.
    files.append(project_file(project.with_generated(generated_hashes([role]))))
    files += injected_files(project)
    return files


def _injected_templates(
    project: Project,
) -> dict[PurePosixPath, tuple[str, dict[str, Any]]]:
    """Each injected file's template and the views it reads besides `project`."""
    layout = Layout(project)
    templates: dict[PurePosixPath, tuple[str, dict[str, Any]]] = {
        layout.main_file: ("project/main.py.j2", {})
    }
    templates.update(
        (PurePosixPath(path), (template, {}))
        for path, template in _INJECTED_TEMPLATES.items()
    )
    for resource in project.resources:
        if resource.webhooks is not None:
            views = {"webhook": webhook_view(project, resource)}
            templates[layout.webhook_file(resource)] = (_WEBHOOK_TEMPLATE, views)
            templates[layout.webhook_test(resource)] = (_WEBHOOK_TEST_TEMPLATE, views)
    return templates


def injected_files(project: Project) -> list[File]:
    """Every file with scaffold markers, as a new file and as regions to splice.

    In a project without webhooks, the regions that came with them are optional:
    a file made before them lacks their markers.
    """
    view = project_view(project)
    templates = _injected_templates(project)
    files = []
    for path, regions in wiring.regions(project).items():
        slots = {
            _TEMPLATE_SLOTS[region.name]: wrap(
                region, _SLOT_INDENT.get(region.name, "")
            ).rstrip("\n")
            for region in regions
        }
        template, views = templates[path]
        # Rendered (and formatted) only if read: when the file is missing.
        content = functools.partial(render, template, project=view, **views, **slots)
        spliced = tuple(
            (
                r
                if project.has_webhooks or r.name not in wiring.WEBHOOK_REGIONS
                else dataclasses.replace(r, required=False)
            )
            for r in regions
        )
        files.append(File(path, content, Ownership.INJECTED, spliced))
    return files


def config_files(project: Project) -> dict[PurePosixPath, str]:
    """The user-owned files of `config/` as `init`, `create api` and `create
    webhook` scaffold them, before any edit: what the Helm chart is made from
    (`opgen.render.chart`)."""
    view = project_view(project)
    templates = _USER_FILES | (_WEBHOOK_CONFIG_FILES if project.has_webhooks else {})
    files = {
        PurePosixPath(path): render(template, project=view)
        for path, template in templates.items()
        if path.startswith("config/")
    }
    for resource in project.resources:
        # config/'s templates only: rendering the Python ones runs black for nothing.
        config_templates = [
            (path, template)
            for path, template in _api_templates(project, resource)
            if path.parts[0] == "config"
        ]
        files |= {
            file.path: file.content
            for file in _render_api_files(project, resource, config_templates)
        }
    return files


def webhook_files(project: Project, resource: Resource, *, force: bool) -> list[File]:
    """What one `create webhook` writes for `resource` (its PROJECT entry already
    updated): the webhook module and its test, with every part PROJECT names to
    insert when they exist (all of them rewritten with `force`), their packages,
    and the project's webhook config files (created when missing)."""
    layout = Layout(project)
    project_data = project_view(project)
    hook = webhook_view(project, resource)
    files = [
        File(
            PurePosixPath(path), render(template, project=project_data), Ownership.USER
        )
        for path, template in _WEBHOOK_CONFIG_FILES.items()
    ]
    files += [
        File(
            package,
            render("project/package_init.py.j2", project=project_data),
            Ownership.USER,
        )
        for package in layout.webhook_packages(resource.group, resource.version)
    ]
    parts = [
        (source, test) for flag, source, test in _WEBHOOK_PARTS if getattr(hook, flag)
    ]
    module_parts = [
        _insertion("webhooks", render(s, project=project_data, webhook=hook))
        for s, _ in parts
    ]
    test_parts = [
        _insertion("tests", render(t, project=project_data, webhook=hook))
        for _, t in parts
    ]
    for spoke in hook.spokes:
        source, test = _CONVERSION_PART
        module_parts.append(
            _insertion("webhooks", render(source, webhook=hook, spoke=spoke))
        )
        test_parts.append(_insertion("tests", render(test, webhook=hook, spoke=spoke)))
    by_path = {file.path: file for file in injected_files(project)}
    for path, insertions in (
        (layout.webhook_file(resource), module_parts),
        (layout.webhook_test(resource), test_parts),
    ):
        injected = by_path[path]
        ownership = Ownership.USER if force else Ownership.INJECTED
        files.append(
            File(path, injected.content, ownership, injected.regions, tuple(insertions))
        )
    return files


def _insertion(point: str, text: str) -> Insertion:
    """A block to insert above `+opgen:insert:<point>`, known by its first definition line."""
    key = next(line for line in text.splitlines() if line.startswith(_BLOCK_START))
    return Insertion(point, key, text + "\n\n")


def api_files(project: Project, resource: Resource) -> list[File]:
    """The user-owned files one `create api` scaffolds for `resource`."""
    return _render_api_files(project, resource, _api_templates(project, resource))


def _render_api_files(
    project: Project,
    resource: Resource,
    templates: Sequence[tuple[PurePosixPath, str]],
) -> list[File]:
    project_data = project_view(project)
    resource_data = resource_view(project, resource)
    return [
        File(
            path,
            render(template, project=project_data, resource=resource_data),
            Ownership.USER,
        )
        for path, template in templates
    ]


def _api_templates(
    project: Project, resource: Resource
) -> list[tuple[PurePosixPath, str]]:
    """Each file `api_files` scaffolds for `resource`, with its template."""
    layout = Layout(project)
    templates: list[tuple[PurePosixPath, str]] = []
    if resource.api:
        *group_packages, version_package = layout.api_packages(
            resource.group, resource.version
        )
        templates += [(package, "project/api_init.py.j2") for package in group_packages]
        templates += [
            (version_package, "api/version_init.py.j2"),
            (
                layout.groupversion_file(resource.group, resource.version),
                "api/groupversion_info.py.j2",
            ),
            (layout.types_file(resource), "api/types.py.j2"),
            (layout.sample_file(resource), "config/samples/sample.yaml.j2"),
        ]
        templates += [
            (path, f"config/rbac/kind_{role}_role.yaml.j2")
            for path, role in zip(
                layout.role_files(resource), ("admin", "editor", "viewer"), strict=True
            )
        ]
    if resource.controller:
        templates += [
            (package, "project/controller_init.py.j2")
            for package in layout.controller_packages(resource.group)
        ]
        core = "core_" if resource.core else ""
        templates += [
            (layout.controller_file(resource), f"controller/{core}controller.py.j2"),
            (layout.controller_test(resource), f"tests/test_{core}controller.py.j2"),
        ]
    return templates
