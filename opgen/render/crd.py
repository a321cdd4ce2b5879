"""CustomResourceDefinitions as data, checked, and dumped as controller-gen does.

`render_crds(kinds, schemas, out_dir)` builds one CRD per kind (`crd_document`)
from the IR and the schema stage's schema of each version, runs the
checker on it (so nothing the API server would refuse is ever written) and
returns one `File` per CRD, named `<group>_<plural>.yaml`, whose single
document starts with `---`. `CrdOptions` are controller-gen's `maxDescLen`
and `generateEmbeddedObjectMeta`. A kind with `@op.conversion`s gets its
`spec.conversion` from `opgen.render.webhook`. The CRD carries an `opgen.dev/version` annotation
where controller-gen writes its own version.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath
from typing import Any

from opgen import __version__
from opgen.errors import Diagnostic, Location, SchemaError
from opgen.model.kinds import (
    VERSION_ANNOTATION,
    Kind,
    KindVersion,
    VersionKey,
    crd_file_name,
)
from opgen.model.webhooks import Conversion
from opgen.render.yaml import dump_documents
from opgen.schema import VersionSchema
from opgen.schema.check import check_crd
from opgen.write.files import File

__all__ = ["VERSION_ANNOTATION", "crd_document", "render_crds"]


def render_crds(
    kinds: Sequence[Kind],
    schemas: Mapping[VersionKey, VersionSchema],
    out_dir: PurePosixPath,
    *,
    conversions: Sequence[Conversion] = (),
) -> tuple[list[File], list[Diagnostic]]:
    """One checked CRD file per kind under `out_dir`, and the warnings met on the way.

    `schemas` holds every version's schema; a kind with `conversions` converts
    its versions by webhook (`spec.conversion`).
    """
    files: list[File] = []
    diagnostics: list[Diagnostic] = []
    owners: dict[str, Kind] = {}
    for kind in kinds:
        name = crd_file_name(kind.group, kind.names.plural)
        if name in owners:
            raise SchemaError(
                f"{kind.names.kind} and {owners[name].names.kind} both make the CRD "
                f"{kind.crd_name}",
                location=_kind_location(kind),
                hint="give one of them another plural with @op.kind(plural=...)",
            )
        owners[name] = kind
        document, origins, warnings = crd_document(
            kind, schemas, _conversion(kind, conversions)
        )
        diagnostics.extend(warnings)
        diagnostics.extend(check_crd(document, origins, _kind_location(kind)))
        files.append(File(path=out_dir / name, content=dump_documents([document])))
    return files, diagnostics


def _conversion(kind: Kind, conversions: Sequence[Conversion]) -> dict[str, Any] | None:
    """The kind's `spec.conversion`, or None when it converts no versions."""
    own = [c for c in conversions if _converts(c, kind)]
    if not own:
        return None
    # Imported here: the webhook manifests' module brings PROJECT's model and
    # the RBAC renderer, which `opgen generate crd` never needs.
    from opgen.render.webhook import conversion_section

    return conversion_section(kind, own)


def _converts(conversion: Conversion, kind: Kind) -> bool:
    return (conversion.group, conversion.kind) == (kind.group, kind.names.kind)


def _kind_location(kind: Kind) -> Location:
    source = kind.storage_version.source
    return Location(file=source.file, cls=source.cls)


def crd_document(
    kind: Kind,
    schemas: Mapping[VersionKey, VersionSchema],
    conversion: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[int, Location], list[Diagnostic]]:
    """The CRD of `kind` as plain data, the origin of its schema nodes, and warnings;
    `schemas` holds the schema of each of its versions, `conversion` is its
    `spec.conversion`, when it converts by webhook."""
    origins: dict[int, Location] = {}
    diagnostics: list[Diagnostic] = []
    versions: list[dict[str, Any]] = []
    for version in kind.versions:
        built = schemas[kind.key(version)]
        origins.update(built.origins)
        diagnostics.extend(built.diagnostics)
        versions.append(_version_entry(version, built.schema))
        if version.status_subresource and "status" not in built.schema.get(
            "properties", {}
        ):
            diagnostics.append(
                Diagnostic(
                    "@op.subresource_status() on a kind without a status field",
                    location=Location(file=version.source.file, cls=version.source.cls),
                    hint="give the CustomResource a status model, or drop the decorator",
                )
            )
    metadata: dict[str, Any] = {
        "annotations": {**dict(kind.annotations), VERSION_ANNOTATION: __version__},
        "name": kind.crd_name,
    }
    if kind.labels:
        metadata["labels"] = dict(kind.labels)
    names: dict[str, Any] = {
        "kind": kind.names.kind,
        "listKind": kind.names.list_kind,
        "plural": kind.names.plural,
        "singular": kind.names.singular,
    }
    if kind.names.short_names:
        names["shortNames"] = list(kind.names.short_names)
    if kind.names.categories:
        names["categories"] = list(kind.names.categories)
    spec: dict[str, Any] = {
        "group": kind.group,
        "names": names,
        "scope": kind.scope,
        "versions": versions,
    }
    if conversion is not None:
        spec["conversion"] = conversion
    document = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": metadata,
        "spec": spec,
    }
    return document, origins, diagnostics


def _version_entry(version: KindVersion, schema: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": version.version,
        "schema": {"openAPIV3Schema": schema},
        "served": version.served,
        "storage": version.storage,
    }
    if version.deprecated:
        entry["deprecated"] = True
        if version.deprecation_warning is not None:
            entry["deprecationWarning"] = version.deprecation_warning
    if version.printer_columns:
        columns = []
        for column in version.printer_columns:
            item: dict[str, Any] = {
                "jsonPath": column.json_path,
                "name": column.name,
                "type": column.type,
            }
            if column.description:
                item["description"] = column.description
            if column.format:
                item["format"] = column.format
            if column.priority:
                item["priority"] = column.priority
            columns.append(item)
        entry["additionalPrinterColumns"] = columns
    if version.selectable_fields:
        entry["selectableFields"] = [
            {"jsonPath": path} for path in version.selectable_fields
        ]
    subresources: dict[str, Any] = {}
    if version.status_subresource:
        subresources["status"] = {}
    if version.scale is not None:
        scale = {
            "specReplicasPath": version.scale.spec_replicas_path,
            "statusReplicasPath": version.scale.status_replicas_path,
        }
        if version.scale.label_selector_path:
            scale["labelSelectorPath"] = version.scale.label_selector_path
        subresources["scale"] = scale
    if subresources:
        entry["subresources"] = subresources
    return entry
