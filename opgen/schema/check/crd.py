"""CRD-level rules of the API server, and the entry point that runs all checks.

Names and object metadata (see `names`), versions (unique DNS-1035 names,
exactly one storage version, deprecation warnings), printer columns, the scale
subresource, selectable fields, each version's schema (structural, OpenAPI and
default rules) and the size of the whole object. Problems marked `opgen_only` are opgen's own stricter
rules (paths in printer columns and the scale subresource must exist, at least
one version must be served): the API server would accept them, so
cross-checks against a real server skip them.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from opgen.engine.naming import dns1035_problem
from opgen.errors import Diagnostic, Location
from opgen.schema.check.defaults import check_defaults
from opgen.schema.check.names import check_metadata, check_names
from opgen.schema.check.openapi import check_openapi
from opgen.schema.check.paths import resolve_field_path, simple_path_problem
from opgen.schema.check.report import Report, child, index
from opgen.schema.check.rules import check_rule_costs
from opgen.schema.check.structural import check_structural

__all__ = ["ERROR_SIZE", "WARNING_SIZE", "check_crd", "inspect_crd"]

WARNING_SIZE = 256 * 1024
"""Above this, `kubectl apply` (client-side) fails: the last-applied annotation is too big."""
ERROR_SIZE = 1536 * 1024
"""Above this, etcd refuses the object (its default request limit is 1.5 MiB)."""

_COLUMN_TYPES = ("boolean", "date", "integer", "number", "string")
_COLUMN_FORMATS = (
    "byte",
    "date",
    "date-time",
    "double",
    "float",
    "int32",
    "int64",
    "password",
)
_MAX_SELECTABLE_FIELDS = 8


def check_crd(
    crd: dict[str, Any], origins: dict[int, Location], location: Location | None
) -> list[Diagnostic]:
    """Raise `SchemaError` if the API server would refuse `crd`; return warnings."""
    report = inspect_crd(crd, origins, location)
    report.raise_first()
    return report.diagnostics()


def inspect_crd(
    crd: dict[str, Any], origins: dict[int, Location], location: Location | None
) -> Report:
    """Every problem the API server would find in `crd` (errors and warnings)."""
    report = Report(origins=origins, default_location=location)
    spec = crd.get("spec", {})
    check_metadata(crd, report)
    check_names(spec, report)
    versions = spec.get("versions") or []
    _check_versions(versions, report)
    crd_name = str((crd.get("metadata") or {}).get("name", ""))
    for position, version in enumerate(versions):
        _check_version(version, index("spec.versions", position), report, crd_name)
    _check_size(crd, report)
    return report


def _check_versions(versions: list[dict[str, Any]], report: Report) -> None:
    if not versions:
        report.error("spec.versions", "Required value: must have at least one version")
        return
    names = [v.get("name", "") for v in versions]
    if len(set(names)) != len(names):
        report.error(
            "spec.versions", "Invalid value: must contain unique version names"
        )
    if sum(1 for v in versions if v.get("storage")) != 1:
        report.error(
            "spec.versions",
            "Invalid value: must have exactly one version marked as storage version",
        )
    if not any(v.get("served") for v in versions):
        report.error(
            "spec.versions",
            "Invalid value: must have at least one served version",
            hint="a CRD that serves no version cannot be used; mark one version served",
            opgen_only=True,
        )


def _check_version(
    version: dict[str, Any], path: str, report: Report, crd_name: str
) -> None:
    name = version.get("name", "")
    problem = dns1035_problem(name)
    if problem:
        report.error(child(path, "name"), f"Invalid value: {name!r}: {problem}")
    _check_deprecation(version, path, report)
    schema = (version.get("schema") or {}).get("openAPIV3Schema")
    if not isinstance(schema, dict):
        report.error(child(path, "schema.openAPIV3Schema"), "Required value")
        return
    schema_path = child(path, "schema.openAPIV3Schema")
    subresources = version.get("subresources") or {}
    before = len(report.errors)
    check_structural(schema, schema_path, report)
    structural_ok = len(report.errors) == before
    check_openapi(schema, schema_path, "status" in subresources, report)
    if structural_ok:
        check_defaults(schema, schema_path, report)
        check_rule_costs(report, schema, schema_path, crd_name)
    _check_subresources(subresources, schema, child(path, "subresources"), report)
    for position, column in enumerate(version.get("additionalPrinterColumns") or []):
        _check_column(
            column,
            schema,
            index(child(path, "additionalPrinterColumns"), position),
            report,
        )
    _check_selectable(
        version.get("selectableFields") or [],
        schema,
        child(path, "selectableFields"),
        report,
    )


def _check_deprecation(version: dict[str, Any], path: str, report: Report) -> None:
    warning = version.get("deprecationWarning")
    if warning is None:
        return
    where = child(path, "deprecationWarning")
    if not version.get("deprecated"):
        report.error(where, "Invalid value: can only be set for deprecated versions")
    if len(warning) > 256:
        report.error(where, "Invalid value: must be <= 256 characters long")
    if not warning:
        report.error(where, "Invalid value: must not be an empty string")
    for position, char in enumerate(warning):
        if not char.isprintable() or unicodedata.category(char) == "Cc":
            report.error(
                where,
                f"Invalid value: must only contain printable UTF-8 characters; non-printable "
                f"character found at index {position}",
            )
            break


def _check_subresources(
    subresources: dict[str, Any], schema: dict[str, Any], path: str, report: Report
) -> None:
    scale = subresources.get("scale")
    if not isinstance(scale, dict):
        return
    for name, prefixes, required in (
        ("specReplicasPath", (".spec.",), True),
        ("statusReplicasPath", (".status.",), True),
        ("labelSelectorPath", (".spec.", ".status."), False),
    ):
        value = scale.get(name)
        where = child(child(path, "scale"), name)
        if not value:
            if required:
                report.error(where, "Required value")
            continue
        problem = simple_path_problem(value)
        if problem:
            report.error(where, f"Invalid value: {value!r}: {problem}")
        elif not value.startswith(prefixes):
            under = " or ".join(p.rstrip(".") for p in prefixes)
            report.error(
                where, f"Invalid value: {value!r}: should be a json path under {under}"
            )
        else:
            target = resolve_field_path(value, schema)
            wanted = "integer" if "Replicas" in name else "string"
            if target is None:
                report.error(
                    where,
                    f"Invalid value: {value!r}: no such field in the schema",
                    hint="use the wire (camelCase) names, e.g. .spec.workerReplicas",
                    opgen_only=True,
                )
            elif target.get("type") != wanted:
                report.error(
                    where,
                    f"Invalid value: {value!r}: must point to a {wanted} field, "
                    f"not {target.get('type') or 'untyped'}",
                    opgen_only=True,
                )


def _check_column(
    column: dict[str, Any], schema: dict[str, Any], path: str, report: Report
) -> None:
    if not column.get("name"):
        report.error(child(path, "name"), "Required value")
    kind = column.get("type")
    if kind not in _COLUMN_TYPES:
        report.error(
            child(path, "type"),
            f"Invalid value: {kind!r}: must be one of {','.join(_COLUMN_TYPES)}",
        )
    fmt = column.get("format")
    if fmt and fmt not in _COLUMN_FORMATS:
        report.error(
            child(path, "format"),
            f"Invalid value: {fmt!r}: must be one of {','.join(_COLUMN_FORMATS)}",
        )
    json_path = column.get("jsonPath", "")
    problem = simple_path_problem(json_path)
    if problem:
        report.error(
            child(path, "JSONPath"), f"Invalid value: {json_path!r}: {problem}"
        )
        return
    if (
        re.fullmatch(r"(\.[A-Za-z0-9_-]+)+", json_path)
        and not json_path.startswith(".metadata.")
        and resolve_field_path(json_path, schema) is None
    ):
        # The API server accepts it (JSONPaths are only parsed); kubectl then
        # shows the column empty for every object: a warning, not an error.
        report.warn(
            child(path, "JSONPath"),
            f"printer column {column.get('name')!r} reads {json_path!r}, which is "
            "not a field of the schema, so `kubectl get` would always show it empty",
            hint="use the wire (camelCase) names of the fields, e.g. .status.readyReplicas",
        )


def _check_selectable(
    fields: list[dict[str, Any]], schema: dict[str, Any], path: str, report: Report
) -> None:
    seen: set[str] = set()
    for position, item in enumerate(fields):
        where = child(index(path, position), "jsonPath")
        json_path = item.get("jsonPath", "")
        if not json_path:
            report.error(where, "Required value")
            continue
        if "[" in json_path:
            report.error(
                where,
                f"Invalid value: {json_path!r}: is an invalid path: array notation is not allowed",
            )
            continue
        if json_path.startswith(".metadata"):
            report.error(
                where,
                f"Invalid value: {json_path!r}: must not point to fields in metadata",
            )
            continue
        target = resolve_field_path(json_path, schema)
        if target is None:
            report.error(
                where,
                f"Invalid value: {json_path!r}: is an invalid path: does not refer to a valid field",
            )
            continue
        if target.get("type") not in ("string", "boolean", "integer"):
            report.error(
                where,
                f"Invalid value: {json_path!r}: must point to a field of type string, boolean or "
                "integer. Enum string fields and strings with formats are allowed.",
            )
        if json_path in seen:
            report.error(where, f"Duplicate value: {json_path!r}")
        seen.add(json_path)
    if len(seen) > _MAX_SELECTABLE_FIELDS:
        report.error(
            path,
            f"Too many: {len(seen)}: must have at most {_MAX_SELECTABLE_FIELDS} items",
        )


def _check_size(crd: dict[str, Any], report: Report) -> None:
    size = len(
        json.dumps(crd, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    )
    shown = f"{size / 1024:.0f} KiB"
    if size > ERROR_SIZE:
        report.error(
            "(whole CRD)",
            f"the CRD is {shown}, over the 1.5 MiB etcd limit",
            hint="shrink shared sub-models (each use is inlined), drop descriptions "
            "(--max-description-length), or cut deep trees with op.Schemaless()",
        )
    elif size > WARNING_SIZE:
        report.warn(
            "(whole CRD)",
            f"the CRD is {shown}: over 256 KiB, client-side `kubectl apply` fails "
            "(it stores the whole object in the kubectl.kubernetes.io/last-applied-"
            "configuration annotation, which is limited to 256 KiB)",
            hint="install it with server-side apply (`kubectl apply --server-side`) or "
            "`kubectl create`; --max-description-length also shrinks it",
        )
