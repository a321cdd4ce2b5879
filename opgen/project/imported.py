"""The inputs of `opgen import crd`, and the imports a project already has.

- `read_sources(sources, stdin=)` reads the CRDs a command names: files (YAML
  or JSON, one or many documents), directories of them, `-` for standard
  input;
- `stored_crds(root, project)` reads the copies `config/imported/` keeps of
  the CRDs PROJECT records, which `opgen generate` regenerates from;
- `plan_import(project, stored, documents, versions=, force=)` decides what
  an import records: the versions of each CRD, refusing a kind the project
  defines itself and, without `force`, a CRD imported before;
- `guard_targets(root, paths, force=)` refuses to overwrite a file opgen did
  not write.

Which files an import no longer needs is `opgen.project.removal`'s decision.

Every error names the file and the document.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TextIO

from opgen.engine.naming import dns1035_problem
from opgen.errors import LoadError, ProjectError, ScaffoldError
from opgen.load import display_path
from opgen.openapi.crd import CrdDocument, crd_documents
from opgen.project.config import ImportedCrd, Project
from opgen.project.layout import Layout

__all__ = [
    "COPY_HEADER",
    "IMPORT_MARK",
    "STDIN",
    "ImportPlan",
    "guard_targets",
    "parse_versions",
    "plan_import",
    "read_sources",
    "stored_crds",
    "written_by_opgen",
]

STDIN = "-"
COPY_HEADER = "# Imported by `opgen import crd`"
"""How the copies in config/imported/ start (and how opgen recognises them)."""
IMPORT_MARK = "opgen import"
"""Every file opgen writes for imported kinds names the command near its top."""
_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class ImportPlan:
    """What an import leaves in PROJECT, and the CRDs it writes models for."""

    project: Project
    crds: tuple[tuple[ImportedCrd, CrdDocument], ...]
    """Every imported CRD of the project after the import, with its document."""
    new: tuple[CrdDocument, ...]
    """The CRDs this import adds or replaces (their copies are written)."""


def read_sources(sources: Sequence[str], *, stdin: TextIO) -> list[CrdDocument]:
    """The CRDs in the named files, directories (`*.yaml`, `*.yml`, `*.json`
    below them) and standard input (`-`), in the order given."""
    documents: list[CrdDocument] = []
    for source in sources:
        if source == STDIN:
            documents += crd_documents(stdin.read(), STDIN)
            continue
        path = Path(source)
        if path.is_dir():
            files = sorted(
                p for p in path.rglob("*") if p.is_file() and p.suffix in _SUFFIXES
            )
            if not files:
                raise LoadError(
                    f"{display_path(path)}: a directory without .yaml, .yml or "
                    ".json files",
                    hint="give CRD files, a directory of them, or - for standard input",
                )
        elif path.is_file():
            files = [path]
        else:
            raise LoadError(f"{display_path(path)}: no such file or directory")
        for file in files:
            try:
                text = file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as error:
                raise LoadError(
                    f"{display_path(file)}: cannot be read: {error}"
                ) from None
            documents += crd_documents(text, display_path(file))
    return documents


def stored_crds(root: Path, project: Project) -> list[tuple[ImportedCrd, CrdDocument]]:
    """Each CRD PROJECT records, read from its copy in config/imported/."""
    layout = Layout(project)
    found = []
    for record in project.imports:
        path = layout.imported_crd_file(record.group, record.plural)
        file = root.joinpath(*path.parts)
        if not file.is_file():
            raise ProjectError(
                f"PROJECT records the import of {record.crd}, but {path} is missing",
                hint="restore it from version control, or import the CRD again "
                "with `opgen import crd FILE --force`",
            )
        documents = crd_documents(file.read_text(encoding="utf-8"), str(path))
        matching = [d for d in documents if d.name == record.crd]
        if len(documents) != 1 or not matching:
            raise ProjectError(
                f"{path} should hold the one CRD {record.crd}",
                hint="restore it from version control, or import the CRD again "
                "with `opgen import crd FILE --force`",
            )
        found.append((record, matching[0]))
    return found


def parse_versions(text: str | None) -> tuple[str, ...] | None:
    """--versions `v1,v1beta1` → the version names; None when not given."""
    if text is None:
        return None
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    for name in names:
        if dns1035_problem(name):
            raise ProjectError(
                f"invalid --versions {text!r}: {name!r} is not a version name",
                hint="give the CRD's version names separated by commas, e.g. "
                "--versions v1,v1beta1",
            )
    if not names:
        raise ProjectError(
            "--versions names no version", hint="for example --versions v1"
        )
    return names


def plan_import(
    project: Project,
    stored: Sequence[tuple[ImportedCrd, CrdDocument]],
    documents: Sequence[CrdDocument],
    *,
    versions: tuple[str, ...] | None,
    force: bool,
) -> ImportPlan:
    """The project after importing `documents` (all their versions, or those
    of `versions` each has)."""
    seen: dict[str, CrdDocument] = {}
    records = []
    for document in documents:
        earlier = seen.get(document.name)
        if earlier is not None:
            raise LoadError(
                f"{document.where}: the CRD {document.name} is given twice (also "
                f"{earlier.where})",
                hint="give each CRD once",
            )
        seen[document.name] = document
        _refuse_own_kind(project, document)
        already = next((r for r, _ in stored if r.crd == document.name), None)
        if already is not None and not force:
            raise ProjectError(
                f"{document.where}: {document.name} is imported already",
                hint="pass --force to replace it (with a newer release, say)",
            )
        chosen = document.version_names
        if versions is not None:
            chosen = tuple(v for v in document.version_names if v in versions)
            if not chosen:
                raise LoadError(
                    f"{document.where}: has none of the versions "
                    f"{', '.join(versions)} (it has {', '.join(document.version_names)})",
                    hint="name versions it has with --versions, or leave --versions out",
                )
        records.append(
            ImportedCrd(crd=document.name, kind=document.kind, versions=chosen)
        )
    if versions is not None:
        unknown = [
            v for v in versions if not any(v in d.version_names for d in documents)
        ]
        if unknown:
            raise LoadError(
                f"--versions {','.join(unknown)}: no CRD given has "
                + ("it" if len(unknown) == 1 else "them"),
                hint="list the versions the CRDs have",
            )
    updated = project.with_imports(tuple(records))
    new = {
        record.crd: document
        for record, document in zip(records, documents, strict=True)
    }
    old = {record.crd: document for record, document in stored}
    crds = tuple(
        (record, new.get(record.crd) or old[record.crd]) for record in updated.imports
    )
    return ImportPlan(project=updated, crds=crds, new=tuple(documents))


def _refuse_own_kind(project: Project, document: CrdDocument) -> None:
    for resource in project.resources:
        if resource.defines(document.name, document.kind):
            raise ProjectError(
                f"{document.where}: the project defines {resource.kind} "
                f"({resource.api_group}) itself",
                hint="an imported kind cannot be one of the project's own; "
                "`opgen delete api` it first, or import another CRD",
            )


def guard_targets(root: Path, paths: Iterable[PurePosixPath], *, force: bool) -> None:
    """Refuse (without `force`) to overwrite a file that opgen did not write."""
    if force:
        return
    for path in paths:
        file = root.joinpath(*path.parts)
        if not file.is_file():
            continue
        try:
            head = file.read_text(encoding="utf-8")[:400]
        except (OSError, UnicodeDecodeError):
            head = ""
        if IMPORT_MARK not in head:  # not written by opgen
            raise ScaffoldError(
                f"{path} exists and opgen did not write it; importing would overwrite it",
                hint="move it away, or pass --force to overwrite it",
            )


def written_by_opgen(file: Path, mark: str = IMPORT_MARK) -> bool:
    """Whether the top of `file` carries `mark` (opgen wrote it)."""
    try:
        return mark in file.read_text(encoding="utf-8")[:400]
    except (OSError, UnicodeDecodeError):
        return False
