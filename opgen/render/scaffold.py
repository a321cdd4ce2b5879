"""The files `opgen init` and `opgen create api` scaffold, as `File` values.

`init_files` is the whole new project; `api_files` is what one `create api`
adds (user-owned); `injected_files` re-renders every file that holds scaffold
markers, which the writer splices into existing files; `project_file` is
PROJECT itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from opgen.project.config import PROJECT_FILE, Project, Resource, dump_project
from opgen.project.layout import Layout
from opgen.render import wiring
from opgen.render.rbac import project_role
from opgen.render.templating import render
from opgen.render.views import ProjectView, ResourceView, project_view, resource_view
from opgen.write.files import File, Ownership
from opgen.write.regions import wrap

_USER_FILES = {
    "pyproject.toml": "project/pyproject.toml.j2",
    "Makefile": "project/Makefile.j2",
    "Dockerfile": "project/Dockerfile.j2",
    ".dockerignore": "project/dockerignore.j2",
    ".gitignore": "project/gitignore.j2",
    "README.md": "project/README.md.j2",
    "tests/conftest.py": "tests/conftest.py.j2",
    "config/default/metrics_service.yaml": "config/default/metrics_service.yaml.j2",
    "config/default/manager_metrics_patch.yaml": "config/default/manager_metrics_patch.yaml.j2",
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
    "config/network-policy/kustomization.yaml": "config/network-policy/kustomization.yaml.j2",
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
}
_TEMPLATE_SLOTS = {
    wiring.MAIN_IMPORTS: "imports",
    wiring.MAIN_CONTROLLERS: "controllers",
    wiring.DEFAULT_CRD: "crd",
    wiring.CRD_BASES: "crd_bases",
    wiring.RBAC_KIND_ROLES: "kind_roles",
    wiring.SAMPLES: "samples",
}
_SLOT_INDENT = {wiring.MAIN_CONTROLLERS: wiring.CONTROLLER_INDENT}


def project_file(project: Project) -> File:
    return File(PurePosixPath(PROJECT_FILE), dump_project(project), Ownership.GENERATED)


def init_files(project: Project) -> list[File]:
    """Every file of a new project (PROJECT included)."""
    view = project_view(project)
    layout = Layout(project)
    files = [
        File(PurePosixPath(path), render(template, p=view), Ownership.USER)
        for path, template in _USER_FILES.items()
    ]
    files += [
        File(layout.package_dir / path, render(template, p=view), Ownership.USER)
        for path, template in _PACKAGE_FILES.items()
    ]
    files.append(project_role([], project))
    files.append(project_file(project))
    files += injected_files(project)
    return files


def injected_files(project: Project) -> list[File]:
    """Every file with scaffold markers, as a new file and as regions to splice."""
    view = project_view(project)
    layout = Layout(project)
    templates = {layout.main_file: "project/main.py.j2"} | {
        PurePosixPath(path): template for path, template in _INJECTED_TEMPLATES.items()
    }
    files = []
    for path, regions in wiring.regions(project).items():
        slots = {
            _TEMPLATE_SLOTS[region.name]: wrap(
                region, _SLOT_INDENT.get(region.name, "")
            ).rstrip("\n")
            for region in regions
        }
        content = render(templates[path], p=view, **slots)
        files.append(File(path, content, Ownership.INJECTED, regions))
    return files


def api_files(project: Project, resource: Resource) -> list[File]:
    """The user-owned files one `create api` scaffolds for `resource`."""
    layout = Layout(project)
    p = project_view(project)
    r = resource_view(project, resource)
    files: list[File] = []
    if resource.api:
        files += _api_package_files(layout, p, resource)
        files.append(
            _user(
                layout.types_file(resource),
                "api/types.py.j2",
                p,
                r,
                kind_args=_kind_args(r),
            )
        )
        files.append(
            _user(layout.sample_file(resource), "config/samples/sample.yaml.j2", p, r)
        )
        for path, role in zip(
            layout.role_files(resource), ("admin", "editor", "viewer"), strict=True
        ):
            files.append(_user(path, f"config/rbac/kind_{role}_role.yaml.j2", p, r))
    if resource.controller:
        for package in layout.controller_packages(resource.group):
            files.append(
                File(
                    package,
                    render("project/controller_init.py.j2", p=p),
                    Ownership.USER,
                )
            )
        namespace_arg = (
            f'\n    namespace="{p.namespace}",' if project.namespaced else ""
        )
        controller = (
            "controller/core_controller.py.j2"
            if resource.core
            else "controller/controller.py.j2"
        )
        files.append(
            _user(
                layout.controller_file(resource),
                controller,
                p,
                r,
                namespace_arg=namespace_arg,
            )
        )
        test = (
            "tests/test_core_controller.py.j2"
            if resource.core
            else "tests/test_controller.py.j2"
        )
        test_view = _TestView(
            namespace_arg=", namespace=namespace" if r.namespaced else "",
            request_namespace="namespace" if r.namespaced else "None",
            into_namespace=" into `namespace`" if r.namespaced else "",
            sample_path=str(layout.sample_file(resource)),
        )
        files.append(_user(layout.controller_test(resource), test, p, r, t=test_view))
    return files


def _api_package_files(
    layout: Layout, p: ProjectView, resource: Resource
) -> list[File]:
    packages = layout.api_packages(resource.group, resource.version)
    r = resource_view(layout.project, resource)
    files = [
        File(path, render("project/api_init.py.j2", p=p), Ownership.USER)
        for path in packages[:-1]
    ]
    files.append(_user(packages[-1], "api/version_init.py.j2", p, r))
    files.append(
        _user(
            layout.groupversion_file(resource.group, resource.version),
            "api/groupversion_info.py.j2",
            p,
            r,
        )
    )
    return files


def _user(
    path: PurePosixPath, template: str, p: ProjectView, r: ResourceView, **extra: object
) -> File:
    return File(path, render(template, p=p, r=r, **extra), Ownership.USER)


def _kind_args(r: ResourceView) -> str:
    args = ["group=GROUP", "version=VERSION"]
    if not r.namespaced:
        args.append('scope="Cluster"')
    if not r.plural_is_default:
        args.append(f'plural="{r.plural}"')
    return ", ".join(args)


@dataclass(frozen=True)
class _TestView:
    """Strings the controller test templates substitute."""

    namespace_arg: str
    request_namespace: str
    into_namespace: str
    sample_path: str
