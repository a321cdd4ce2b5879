"""Where every file of a generated project lives.

Single-group projects put a version's types in `<pkg>/api/<version>/` and
controllers in `<pkg>/controller/`; `--multigroup` projects add the group as a
folder level (`<pkg>/api/<group>/<version>/`, `<pkg>/controller/<group>/`) and
as a prefix of per-kind config and test file names, as Kubebuilder does.

Kinds of other projects' CRDs (`opgen import crd`) live apart from the
project's own, in every layout: the copy of each CRD in
`config/imported/<group>_<plural>.yaml`, the models of a group/version in the
package `<pkg>/imported/<group>/<version>/` (`__init__.py`, with the typed
clients in `zz_generated_client.py` beside it).
"""

from __future__ import annotations

import keyword
from dataclasses import dataclass
from pathlib import PurePosixPath

from opgen.model.kinds import crd_file_name
from opgen.project.config import Project, Resource
from opgen.project.validate import package_name

CRD_BASES = PurePosixPath("config/crd/bases")
"""Where `opgen generate` writes the CRDs of a project."""
CLIENT_MODULE = "zz_generated_client"
"""The typed-client module `opgen generate` writes next to each version's types."""
IMPORTED_CRDS = PurePosixPath("config/imported")
"""Where `opgen import crd` keeps the CRDs it imported (never installed by kustomize)."""
IMPORTED_PACKAGE = "imported"
"""The subpackage of the project's package holding the imported kinds' models."""


def python_name(name: str, prefix: str) -> str:
    """A group or version as a package name: `cert-manager.io` → `cert_manager_io`;
    one that is not an identifier (`3scale.net`) or is a keyword gets `prefix_`."""
    package = package_name(name)
    if not package.isidentifier() or keyword.iskeyword(package):
        package = f"{prefix}_{package}"
    return package


def _module(path: PurePosixPath) -> str:
    """The dotted module name of a `.py` file relative to the project root."""
    return ".".join(path.with_suffix("").parts)


@dataclass(frozen=True)
class Layout:
    """Paths (relative to the project root, POSIX) and module names of a project."""

    project: Project

    @property
    def package_dir(self) -> PurePosixPath:
        return PurePosixPath(self.project.package)

    @property
    def main_file(self) -> PurePosixPath:
        return self.package_dir / "main.py"

    @property
    def api_root(self) -> PurePosixPath:
        return self.package_dir / "api"

    @property
    def controller_root(self) -> PurePosixPath:
        return self.package_dir / "controller"

    def _group_parts(self, group: str) -> tuple[str, ...]:
        return (package_name(group),) if self.project.multigroup else ()

    def _prefix(self, resource: Resource) -> str:
        return f"{package_name(resource.group)}_" if self.project.multigroup else ""

    def api_dir(self, group: str, version: str) -> PurePosixPath:
        return self.api_root.joinpath(*self._group_parts(group), version)

    def api_packages(self, group: str, version: str) -> tuple[PurePosixPath, ...]:
        """`__init__.py` files from `<pkg>/api/` (excluded) down to the version."""
        folders = [self.api_root.joinpath(*self._group_parts(group))] * bool(
            self.project.multigroup
        ) + [self.api_dir(group, version)]
        return tuple(folder / "__init__.py" for folder in folders)

    def groupversion_file(self, group: str, version: str) -> PurePosixPath:
        return self.api_dir(group, version) / "groupversion_info.py"

    def groupversion_module(self, group: str, version: str) -> str:
        return _module(self.groupversion_file(group, version))

    def types_file(self, resource: Resource) -> PurePosixPath:
        return (
            self.api_dir(resource.group, resource.version)
            / f"{resource.kind.lower()}_types.py"
        )

    def types_module(self, resource: Resource) -> str:
        return _module(self.types_file(resource))

    def controller_dir(self, group: str) -> PurePosixPath:
        return self.controller_root.joinpath(*self._group_parts(group))

    def controller_packages(self, group: str) -> tuple[PurePosixPath, ...]:
        if not self.project.multigroup:
            return ()
        return (self.controller_dir(group) / "__init__.py",)

    def controller_file(self, resource: Resource) -> PurePosixPath:
        return (
            self.controller_dir(resource.group)
            / f"{resource.kind.lower()}_controller.py"
        )

    def controller_module(self, resource: Resource) -> str:
        return _module(self.controller_file(resource))

    def controller_test(self, resource: Resource) -> PurePosixPath:
        name = f"test_{self._prefix(resource)}{resource.kind.lower()}_controller.py"
        return PurePosixPath("tests", "controller", name)

    def sample_file(self, resource: Resource) -> PurePosixPath:
        name = f"{package_name(resource.group)}_{resource.version}_{resource.kind.lower()}.yaml"
        return PurePosixPath("config", "samples", name)

    def role_files(self, resource: Resource) -> tuple[PurePosixPath, ...]:
        stem = f"{self._prefix(resource)}{resource.kind.lower()}"
        return tuple(
            PurePosixPath("config", "rbac", f"{stem}_{role}_role.yaml")
            for role in ("admin", "editor", "viewer")
        )

    @property
    def imported_root(self) -> PurePosixPath:
        return self.package_dir / IMPORTED_PACKAGE

    def imported_dir(self, group: str, version: str) -> PurePosixPath:
        """The package of an imported group/version: `<pkg>/imported/<group>/<version>`."""
        return (
            self.imported_root
            / python_name(group, "group")
            / python_name(version, "version")
        )

    def imported_module(self, group: str, version: str) -> str:
        """The module of an imported group/version's models (the package itself)."""
        return ".".join(self.imported_dir(group, version).parts)

    def imported_crd_file(self, group: str, plural: str) -> PurePosixPath:
        """The copy `opgen import crd` keeps of a CRD (controller-gen's file name)."""
        return IMPORTED_CRDS / crd_file_name(group, plural)

    def crd_file(self, resource: Resource) -> PurePosixPath:
        """Where `opgen generate` writes the kind's CRD (controller-gen's file name)."""
        return CRD_BASES / crd_file_name(resource.api_group, resource.plural)

    def resource_files(self, resource: Resource) -> tuple[PurePosixPath, ...]:
        """Every user-owned file `create api` scaffolds for `resource`."""
        files: list[PurePosixPath] = []
        if resource.api:
            files += [
                *self.api_packages(resource.group, resource.version),
                self.groupversion_file(resource.group, resource.version),
                self.types_file(resource),
                self.sample_file(resource),
                *self.role_files(resource),
            ]
        if resource.controller:
            files += [
                *self.controller_packages(resource.group),
                self.controller_file(resource),
                self.controller_test(resource),
            ]
        return tuple(files)
