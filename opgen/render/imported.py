"""The files of a project's imported kinds: `opgen import crd` and `opgen generate`.

`imported_outputs(project, crds)` turns the CRDs a project imported (each
with its PROJECT record) into file values:

1. each CRD must be one the API server accepts (the checker of
   `opgen.schema.check`: structural schemas, names, versions);
2. the schema of every recorded version is read into models keyed by path
   (`opgen.openapi.read_crd`), nodes that are Kubernetes' own types becoming
   `op.k8s` types (`opgen.schema.catalogue.TypeMatcher`);
3. the kinds of one group/version share a module: its classes are named and
   merged (`opgen.openapi.naming`) and rendered (`opgen.render.models`) into
   `<pkg>/imported/<group>/<version>/__init__.py`, with the typed clients in
   `zz_generated_client.py` beside it (`opgen.render.client`'s template);
4. the packages above get an `__init__.py`.

What was mapped onto `op.k8s` types, and the warnings, come back with the
files for the command to print. No CRD is written for an imported kind: the
copy in `config/imported/` is the source, never installed by kustomize.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from opgen.api.k8s import KUBERNETES_VERSION
from opgen.errors import Diagnostic, Location, SchemaError
from opgen.model.openapi import ModelSet, ModuleDecl
from opgen.openapi.crd import CrdDocument, ImportedVersion, read_crd
from opgen.openapi.naming import name_models
from opgen.project.config import ImportedCrd, Project
from opgen.project.imported import COPY_HEADER
from opgen.project.layout import Layout
from opgen.render.client import TEMPLATE as CLIENT_TEMPLATE
from opgen.render.models import render_module
from opgen.render.templating import render
from opgen.render.views import (
    ImportedPackageView,
    KindVersionEntry,
    client_module_view,
    project_view,
)
from opgen.render.yaml import dump_documents
from opgen.schema.catalogue import Mapped, TypeMatcher, has_descriptions
from opgen.schema.check import inspect_crd
from opgen.write.files import File

__all__ = [
    "ImportReport",
    "ImportedOutputs",
    "check_crd_document",
    "crd_copy",
    "imported_outputs",
]

_RELEASE = f"Kubernetes {KUBERNETES_VERSION}"


@dataclass(frozen=True)
class ImportReport:
    """What one imported CRD became."""

    crd: str
    kind: str
    group: str
    versions: tuple[str, ...]
    modules: tuple[str, ...]
    """The modules holding its versions."""
    classes: int
    """Classes written for it (its own; classes shared with a kind met earlier
    in the same module are counted there)."""
    mapped: tuple[tuple[str, Mapped], ...]
    """(version, node) for each node typed as a type opgen has
    (`op.k8s.PodTemplateSpec`, ...)."""

    def summary(self) -> list[str]:
        """What the command prints: one line, then one per node typed as an
        older Kubernetes release of an op.k8s type, with what this release adds."""
        versions = ", ".join(self.versions)
        line = f"imported {self.kind} ({self.group} {versions}): {self.classes} classes"
        if not self.mapped:
            return [line + "; no node is a Kubernetes type"]
        counts: dict[str, int] = defaultdict(int)
        for _, item in self.mapped:
            counts[item.name] += 1
        shown = ", ".join(
            f"op.{name}" + (f" ({count})" if count > 1 else "")
            for name, count in sorted(counts.items())
        )
        plural = "s" * (len(self.mapped) != 1)
        lines = [
            f"{line}; {len(self.mapped)} node{plural} typed as opgen's types ({shown})"
        ]
        for version, item in self.mapped:
            if not item.newer_only:
                continue
            added = ", ".join(item.newer_only[:6])
            more = (
                f", ... ({len(item.newer_only)} in all)"
                if len(item.newer_only) > 6
                else ""
            )
            lines.append(
                f"  older: {item.path} ({version}) is op.{item.name} of an older "
                f"Kubernetes release; {_RELEASE} adds {added}{more}"
            )
        return lines


@dataclass(frozen=True)
class ImportedOutputs:
    files: tuple[File, ...]
    reports: tuple[ImportReport, ...]
    diagnostics: tuple[Diagnostic, ...] = field(default=())


def check_crd_document(document: CrdDocument) -> None:
    """Raise `SchemaError` if the API server would refuse the CRD, naming the
    document and the path. (Its warnings, about its size, say, are for whoever
    installs it: the other project.)"""
    report = inspect_crd(document.cleaned(), {}, Location(file=document.where))
    errors = [problem for problem in report.errors if not problem.opgen_only]
    if errors:
        first = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise SchemaError(
            f"{document.where}: the API server would refuse this CRD: "
            f"{first.path}: {first.detail}{more}",
            hint=first.hint or "fix the CRD, or import one its project publishes",
        )


def crd_copy(document: CrdDocument, layout: Layout) -> File:
    """The copy of an imported CRD that `opgen generate` reads."""
    package = layout.imported_root
    header = (
        f"{COPY_HEADER} from {document.source}. DO NOT EDIT:\n"
        f"# `opgen generate` writes {package}/ from it; to update it, run\n"
        "# `opgen import crd NEWER.yaml --force`.\n"
    )
    path = layout.imported_crd_file(document.group, document.plural)
    return File(path=path, content=header + dump_documents([document.cleaned()]))


def imported_outputs(
    project: Project, crds: Sequence[tuple[ImportedCrd, CrdDocument]]
) -> ImportedOutputs:
    """The modules, clients and packages of every imported CRD of `project`."""
    layout = Layout(project)
    diagnostics: list[Diagnostic] = []
    read: dict[str, list[ImportedVersion]] = {}
    matched: dict[str, list[tuple[str, Mapped]]] = {}
    ordered = sorted(crds, key=lambda pair: pair[0].crd)
    _one_group_per_package([document for _, document in ordered], layout)
    for record, document in ordered:
        check_crd_document(document)
        missing = [v for v in record.versions if v not in document.version_names]
        if missing:
            raise SchemaError(
                f"{document.where}: has no version {', '.join(missing)} "
                f"(it has {', '.join(document.version_names)})",
                hint="import it again with `opgen import crd FILE --force` to "
                "record the versions it has",
            )
        described = has_descriptions(
            [version.get("schema") for version in document.spec["versions"]]
        )
        matchers = {
            version: TypeMatcher(described=described) for version in record.versions
        }
        read[record.crd] = read_crd(
            document,
            record.versions,
            module=functools.partial(layout.imported_module, document.group),
            recognise=matchers.__getitem__,
        )
        for item in read[record.crd]:
            diagnostics.extend(item.diagnostics)
        matched[record.crd] = [
            (version, found)
            for version, matcher in matchers.items()
            for found in matcher.mapped
        ]
    versions = [item for items in read.values() for item in items]
    modules = _modules(versions)
    files = [
        *_module_files(modules, versions, layout),
        *_client_files(versions, project),
        *(_package_files(versions, layout) if versions else []),
    ]
    reports = tuple(
        _report(record, document, read[record.crd], modules, matched[record.crd])
        for record, document in ordered
    )
    return ImportedOutputs(
        files=tuple(sorted(files, key=lambda f: f.path)),
        reports=reports,
        diagnostics=tuple(diagnostics),
    )


def _one_group_per_package(documents: Sequence[CrdDocument], layout: Layout) -> None:
    """Groups whose Python names are one (`foo-bar.io`, `foo.bar-io`) cannot share
    `<pkg>/imported/foo_bar_io/`; renaming one by what else is imported would
    move its modules when another CRD is imported, so it is refused."""
    seen: dict[PurePosixPath, CrdDocument] = {}
    for document in documents:
        package = layout.imported_group_dir(document.group)
        first = seen.setdefault(package, document)
        if first.group != document.group:
            raise SchemaError(
                f"{document.where} and {first.where}: the groups {document.group} "
                f"and {first.group} make one Python package, {package}",
                hint="import the kinds of only one of these groups into a project",
            )


def _modules(versions: Sequence[ImportedVersion]) -> dict[str, ModelSet]:
    """The named models of each module, from every kind version placed in it."""
    by_module: dict[str, list[ImportedVersion]] = defaultdict(list)
    for item in versions:
        by_module[item.module].append(item)
    named: dict[str, ModelSet] = {}
    for module, items in sorted(by_module.items()):
        kinds: dict[str, CrdDocument] = {}
        models = {}
        for item in items:
            other = kinds.get(item.crd.kind)
            if other is not None:
                raise SchemaError(
                    f"{item.crd.where} and {other.where} both define the kind "
                    f"{item.crd.kind} in {item.crd.group}/{item.version}",
                    hint="import one of them",
                )
            kinds[item.crd.kind] = item.crd
            models.update(item.models.models)
        named[module] = name_models(ModelSet(models=models))
    return named


def _module_files(
    modules: dict[str, ModelSet], versions: Sequence[ImportedVersion], layout: Layout
) -> list[File]:
    files = []
    for module, models in modules.items():
        items = [item for item in versions if item.module == module]
        group, version = items[0].crd.group, items[0].version
        sources = sorted(
            {str(layout.imported_crd_file(i.crd.group, i.crd.plural)) for i in items}
        )
        kinds = sorted({item.crd.kind for item in items})
        header = (
            f"Generated by opgen import from {', '.join(sources)}: the "
            f"{group}/{version} version of {', '.join(kinds)}.\n\n"
            "DO NOT EDIT: `opgen generate` rewrites it from the CRD; import a "
            "newer CRD with `opgen import crd FILE --force`."
        )
        (decl,) = models.modules()
        try:
            text = render_module(
                ModuleDecl(
                    name=module,
                    doc=f"Models of {group}/{version}: {', '.join(kinds)}.",
                    models=decl.models,
                    aliases=decl.aliases,
                ),
                models,
                header=header,
            )
        except SchemaError as error:
            raise _in_crd(error, items) from None
        path = PurePosixPath(*module.split("."), "__init__.py")
        files.append(File(path=path, content=text))
    return files


def _in_crd(error: SchemaError, items: Sequence[ImportedVersion]) -> SchemaError:
    """`error` (about a path `Kind.spec...` of the module) naming the file, the
    document and the version it comes from."""
    kind = error.message.split(":", 1)[0].split(".", 1)[0]
    item = next((i for i in items if i.crd.kind == kind), items[0])
    return SchemaError(
        f"{item.crd.where}: version {item.version}: {error.message}",
        hint="opgen has no marker that writes it, so the import cannot keep it; "
        "import the other versions with --versions, or a release of the CRD "
        "without it",
    )


def _client_files(versions: Sequence[ImportedVersion], project: Project) -> list[File]:
    layout = Layout(project)
    by_module: dict[str, list[ImportedVersion]] = defaultdict(list)
    for item in versions:
        by_module[item.module].append(item)
    files = []
    project_data = project_view(project)
    for module, items in sorted(by_module.items()):
        entries = []
        for item in items:
            resource = item.models.models[item.crd.kind].resource
            assert resource is not None  # read_crd sets it on every root
            entries.append(
                KindVersionEntry(
                    kind=resource.names.kind,
                    group=resource.group,
                    version=resource.version.version,
                    plural=resource.names.plural,
                    namespaced=resource.namespaced,
                    module=module,
                    cls=resource.names.kind,
                    status=resource.version.status_subresource,
                    scale_spec_path=(
                        scale.spec_replicas_path
                        if (scale := resource.version.scale)
                        else None
                    ),
                )
            )
        sources = sorted(
            {str(layout.imported_crd_file(i.crd.group, i.crd.plural)) for i in items}
        )
        view = client_module_view(module, entries, imported_from=", ".join(sources))
        content = render(CLIENT_TEMPLATE, project=project_data, module=view)
        files.append(File(view.path, content))
    return files


def _package_files(versions: Sequence[ImportedVersion], layout: Layout) -> list[File]:
    """`__init__.py` of `<pkg>/imported/` and of each group's package."""
    groups = sorted(
        {
            (layout.imported_dir(item.crd.group, item.version).parent, item.crd.group)
            for item in versions
        }
    )
    packages = [
        (
            layout.imported_root,
            "Kinds of other projects' CRDs, imported by `opgen import crd`: one "
            "package per API group and version.",
        )
    ]
    packages += [
        (path, f"Imported kinds of the API group {group}: one package per version.")
        for path, group in groups
    ]
    return [
        File(
            path=path / "__init__.py",
            content=render(
                "imported/package_init.py.j2",
                module=ImportedPackageView(docstring=docstring),
            ),
        )
        for path, docstring in packages
    ]


def _report(
    record: ImportedCrd,
    document: CrdDocument,
    read: Sequence[ImportedVersion],
    modules: dict[str, ModelSet],
    mapped: list[tuple[str, Mapped]],
) -> ImportReport:
    names = tuple(sorted({item.module for item in read}))
    own = [
        key
        for module in names
        for key in modules[module].models
        if key == document.kind or key.startswith(f"{document.kind}.")
    ]
    return ImportReport(
        crd=record.crd,
        kind=document.kind,
        group=document.group,
        versions=record.versions,
        modules=names,
        classes=len(own),
        mapped=tuple(mapped),
    )
