"""The API server's rules for a CRD's names and its own metadata.

`metadata.name` is `<plural>.<group>`, a DNS subdomain; annotations and labels
are qualified names (label values too); a group under `k8s.io` or
`kubernetes.io` needs the approval annotation; the group is a lower-case DNS
subdomain with a dot; plural, singular, short names and categories are DNS-1035
labels, kind and listKind too apart from case, and they differ.
"""

from __future__ import annotations

import re
from typing import Any

from opgen.engine.naming import dns1035_problem, is_dns1123_subdomain
from opgen.schema.check.report import Report, child, index, key

__all__ = ["check_metadata", "check_names"]

_QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_APPROVAL = "api-approved.kubernetes.io"


def check_metadata(crd: dict[str, Any], report: Report) -> None:
    metadata = crd.get("metadata", {})
    spec = crd.get("spec", {})
    names = spec.get("names", {})
    name = metadata.get("name", "")
    group = spec.get("group", "")
    if not is_dns1123_subdomain(name):
        report.error(
            "metadata.name", f"Invalid value: {name!r}: must be a DNS subdomain"
        )
    if name != f"{names.get('plural', '')}.{group}":
        report.error(
            "metadata.name",
            f'Invalid value: {name!r}: must be spec.names.plural+"."+spec.group',
        )
    for label, mapping in (
        ("annotations", metadata.get("annotations") or {}),
        ("labels", metadata.get("labels") or {}),
    ):
        for item_key, value in mapping.items():
            # The server names the whole map, not the entry, in these paths.
            problem = _qualified_name_problem(item_key)
            if problem:
                report.error(
                    f"metadata.{label}",
                    f"Invalid value: {item_key!r}: {problem}",
                )
            if label == "labels" and (len(value) > 63 or not _LABEL_VALUE.match(value)):
                report.error(
                    "metadata.labels",
                    f"Invalid value: {value!r}: not a valid label value (label {item_key!r})",
                )
    annotations = metadata.get("annotations") or {}
    if sum(len(k) + len(v) for k, v in annotations.items()) > 256 * 1024:
        report.error("metadata.annotations", "Too long: must have at most 262144 bytes")
    if _is_protected_group(group):
        approval = annotations.get(_APPROVAL)
        if approval is None:
            report.error(
                key("metadata.annotations", _APPROVAL),
                f"Required value: protected groups must have approval annotation {_APPROVAL!r}, "
                "see https://github.com/kubernetes/enhancements/pull/1111",
                hint="use your own domain as the group, or @op.crd_metadata(annotations=...)",
            )
        elif not (
            approval.startswith("unapproved")
            or approval.startswith(("http://", "https://"))
        ):
            report.error(
                key("metadata.annotations", _APPROVAL),
                f"Invalid value: {approval!r}: must be a URL or start with 'unapproved'",
            )


def _qualified_name_problem(value: str) -> str | None:
    prefix, _, name = value.rpartition("/")
    if prefix and not is_dns1123_subdomain(prefix):
        return "the prefix must be a DNS subdomain"
    if not name or len(name) > 63 or not _QUALIFIED_NAME.match(name):
        return "name part must consist of alphanumeric characters, '-', '_' or '.' (at most 63)"
    return None


def _is_protected_group(group: str) -> bool:
    return group in ("k8s.io", "kubernetes.io") or group.endswith(
        (".k8s.io", ".kubernetes.io")
    )


def check_names(spec: dict[str, Any], report: Report) -> None:
    group = spec.get("group", "")
    if not group:
        report.error("spec.group", "Required value")
    elif not is_dns1123_subdomain(group):
        report.error(
            "spec.group",
            f"Invalid value: {group!r}: must be a lower-case DNS subdomain, e.g. ray.io",
        )
    elif "." not in group:
        report.error(
            "spec.group",
            f"Invalid value: {group!r}: should be a domain with at least one dot",
            hint="use a domain you own, e.g. ray.example.com",
        )
    scope = spec.get("scope")
    if scope not in ("Cluster", "Namespaced"):
        report.error(
            "spec.scope",
            f'Unsupported value: {scope!r}: supported values: "Cluster", "Namespaced"',
        )
    names = _defaulted(spec.get("names", {}))
    for name in ("plural", "singular", "kind", "listKind"):
        if not names.get(name):
            report.error(child("spec.names", name), "Required value")
    for name in ("plural", "singular"):
        value = names.get(name)
        if value:
            problem = dns1035_problem(value)
            if problem:
                report.error(
                    child("spec.names", name), f"Invalid value: {value!r}: {problem}"
                )
    for name in ("kind", "listKind"):
        value = names.get(name)
        if value:
            problem = dns1035_problem(value.lower())
            if problem:
                report.error(
                    child("spec.names", name),
                    f"Invalid value: {value!r}: may have mixed case, but should otherwise match: {problem}",
                )
    if names.get("kind") and names.get("kind") == names.get("listKind"):
        report.error(
            "spec.names.listKind",
            "Invalid value: kind and listKind may not be the same",
        )
    for name in ("shortNames", "categories"):
        for position, value in enumerate(names.get(name) or []):
            problem = dns1035_problem(value)
            if problem:
                report.error(
                    index(child("spec.names", name), position),
                    f"Invalid value: {value!r}: {problem}",
                )


def _defaulted(names: dict[str, Any]) -> dict[str, Any]:
    """The names as the API server defaults them before it validates them: a
    missing singular is the kind in lower case, a missing listKind `<kind>List`."""
    kind = names.get("kind")
    if not kind or not isinstance(kind, str):
        return names
    filled = dict(names)
    if not filled.get("singular"):
        filled["singular"] = kind.lower()
    if not filled.get("listKind"):
        filled["listKind"] = f"{kind}List"
    return filled
