"""Kinds and their versions, as the CRD generator and typed clients need them."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Literal

Scope = Literal["Namespaced", "Cluster"]

VersionKey = tuple[str, str, str]
"""(group, kind, version): one version of one kind, as stages key what they know of it."""

SOURCE_FILE_ATTR = "__opgen_source_file__"
"""Set by the loader on the classes of user modules: their file, as shown to users."""


VERSION_ANNOTATION = "opgen.dev/version"
"""Carried by every CRD opgen writes (where controller-gen writes its own version);
`opgen generate` recognises the CRD files it wrote by it."""


def crd_file_name(group: str, plural: str) -> str:
    """`<group>_<plural>.yaml`: the file of a kind's CRD, as controller-gen names it."""
    return f"{group}_{plural}.yaml"


def source_file(cls: type) -> str | None:
    """The file `cls` comes from: as the loader recorded it, else its module's file."""
    recorded = cls.__dict__.get(SOURCE_FILE_ATTR)
    if isinstance(recorded, str):
        return recorded
    file = getattr(sys.modules.get(cls.__module__), "__file__", None)
    return str(file) if file else None


@dataclass(frozen=True)
class SourceRef:
    """The Python class a piece of the IR came from, for error messages."""

    file: str
    module: str
    cls: str


@dataclass(frozen=True)
class KindNames:
    """`spec.names` of a CRD."""

    kind: str
    plural: str
    singular: str
    list_kind: str
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()


@dataclass(frozen=True)
class PrinterColumn:
    """One `additionalPrinterColumns` entry."""

    name: str
    type: str
    json_path: str
    description: str | None = None
    format: str | None = None
    priority: int = 0


@dataclass(frozen=True)
class BuiltinResource:
    """One built-in kind as the API server's discovery describes it: read from a
    server (`opgen.openapi`), recorded on each `op.k8s` class (`@resource`)."""

    group: str
    """The API group, "" for the core group."""
    version: str
    kind: str
    plural: str
    namespaced: bool
    subresources: tuple[str, ...] = ()
    """`status`, `scale`, `log`, ... (what follows `plural/` in discovery)."""

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


@dataclass(frozen=True)
class ScaleSubresource:
    """`subresources.scale` of one version."""

    spec_replicas_path: str
    status_replicas_path: str
    label_selector_path: str | None = None


@dataclass(frozen=True)
class KindVersion:
    """One served (or unserved) version of a kind, defined by one Python class."""

    version: str
    source: SourceRef
    """The class that defines it (the loader keeps the class itself, for the schema stage)."""
    served: bool = True
    storage: bool = False
    """True when the version carries `op.storage_version()` or is the only version."""
    deprecated: bool = False
    deprecation_warning: str | None = None
    status_subresource: bool = False
    scale: ScaleSubresource | None = None
    printer_columns: tuple[PrinterColumn, ...] = ()
    selectable_fields: tuple[str, ...] = ()


@dataclass(frozen=True)
class Kind:
    """A (group, kind) pair: one CRD, with one or more versions."""

    group: str
    names: KindNames
    scope: Scope
    versions: tuple[KindVersion, ...]
    """Sorted by version string, as controller-gen does."""
    annotations: tuple[tuple[str, str], ...] = field(default=())
    labels: tuple[tuple[str, str], ...] = field(default=())

    @property
    def crd_name(self) -> str:
        return f"{self.names.plural}.{self.group}"

    @property
    def namespaced(self) -> bool:
        return self.scope == "Namespaced"

    @property
    def storage_version(self) -> KindVersion:
        return next(v for v in self.versions if v.storage)

    def version(self, name: str) -> KindVersion:
        return next(v for v in self.versions if v.version == name)

    def key(self, version: KindVersion | str) -> VersionKey:
        """The (group, kind, version) of one of its versions."""
        name = version if isinstance(version, str) else version.version
        return (self.group, self.names.kind, name)
