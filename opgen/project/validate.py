"""Checks on command inputs, run before anything is planned or written.

Each check raises a `ProjectError` that quotes the bad value, says what form is
expected and how to fix it.
"""

from __future__ import annotations

import builtins
import keyword
import re

from opgen.engine.naming import dns1035_problem, is_dns1123_label, is_dns1123_subdomain
from opgen.errors import ProjectError

_VERSION = re.compile(r"^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$")
_UPPER_CAMEL = re.compile(r"^[A-Z][a-zA-Z0-9]*$")

#: Kinds that would clash with Kubernetes' own meta kinds, the names opgen
#: generates next to a kind, or Python built-ins a types module relies on.
RESERVED_KINDS = frozenset(
    {
        "List",
        "Status",
        "Scale",
        "WatchEvent",
        "ObjectMeta",
        "TypeMeta",
        "ListMeta",
        "Condition",
        "Model",
        "CustomResource",
        "Request",
        "Result",
    }
    | {name for name in dir(builtins) if _UPPER_CAMEL.match(name)}
)

#: Python package names a project may not take: opgen itself, what its
#: layout already uses, and the packages its operator imports at run time
#: (opgen's runtime dependencies), which a project package of the same name
#: would shadow.
RESERVED_PACKAGES = frozenset(
    {"opgen", "tests", "config", "api", "controller", "test"}
    | {"pydantic", "pydantic_core", "typing_extensions", "yaml", "re2", "msgspec"}
    | {"cryptography", "aiohttp", "yarl", "prometheus_client"}
)


def domain(value: str) -> str:
    """--domain: a DNS-1123 subdomain such as `example.com`."""
    if not is_dns1123_subdomain(value):
        raise ProjectError(
            f"invalid --domain {value!r}: a domain is lower-case DNS labels joined by "
            "dots (a-z, 0-9, '-'; each label starts and ends with a letter or digit)",
            hint="for example --domain example.com",
        )
    return value


def group(value: str, *, domain_name: str | None) -> str:
    """--group: a DNS-1123 subdomain that is also usable as a Python package."""
    if not is_dns1123_subdomain(value):
        raise ProjectError(
            f"invalid --group {value!r}: a group is a lower-case DNS-1123 subdomain "
            "(a-z, 0-9, '-' and '.')",
            hint="for example --group batch; the API group becomes <group>.<domain>",
        )
    if keyword.iskeyword(package_name(value)):
        raise ProjectError(
            f"invalid --group {value!r}: it is a Python keyword, so it cannot name "
            "the group's package",
            hint="choose another group name",
        )
    full = f"{value}.{domain_name}" if domain_name else value
    if len(full) > 253:
        raise ProjectError(
            f"invalid --group {value!r}: the API group {full!r} is longer than 253 characters",
            hint="choose a shorter group or domain",
        )
    return value


def version(value: str) -> str:
    """--version: `v1`, `v1alpha1`, `v2beta3`..."""
    if not _VERSION.match(value):
        raise ProjectError(
            f"invalid --version {value!r}: a Kubernetes API version looks like v1, "
            "v1alpha1 or v2beta3 (v, a number from 1, then optionally alpha or beta "
            "and a number from 1)",
            hint="for example --version v1alpha1",
        )
    return value


def kind(value: str) -> str:
    """--kind: UpperCamelCase, not a keyword and not a reserved name."""
    if not _UPPER_CAMEL.match(value):
        raise ProjectError(
            f"invalid --kind {value!r}: a kind is UpperCamelCase ASCII letters and "
            "digits, starting with an upper-case letter",
            hint="for example --kind RayCluster",
        )
    if keyword.iskeyword(value) or value in RESERVED_KINDS:
        raise ProjectError(
            f"invalid --kind {value!r}: the name is reserved (a Python keyword or "
            "built-in, or a name Kubernetes or opgen already uses)",
            hint="choose a more specific name, for example " f"--kind My{value}",
        )
    if value.endswith("List") and len(value) > len("List"):
        raise ProjectError(
            f"invalid --kind {value!r}: names ending in 'List' are taken by the list "
            f"type of kind {value[: -len('List')]!r}",
            hint="choose a name that does not end in 'List'",
        )
    if len(value) > 63:
        raise ProjectError(
            f"invalid --kind {value!r}: longer than 63 characters",
            hint="choose a shorter kind name",
        )
    return value


def plural(value: str) -> str:
    """--plural: a DNS-1035 label (the API server's rule), the resource name in URLs."""
    if dns1035_problem(value) is not None:
        raise ProjectError(
            f"invalid --plural {value!r}: a plural is a lower-case DNS-1035 label "
            "(a-z, 0-9, '-', starting with a letter, at most 63 characters)",
            hint="for example --plural rayclusters",
        )
    return value


def project_name(value: str, *, from_directory: bool) -> str:
    """--project-name (or the directory name): a DNS-1123 label that is a package name."""
    where = "the directory name" if from_directory else "--project-name"
    hint = "pass --project-name, for example --project-name ray-operator"
    # The namespace `<name>-system` must stay a DNS-1123 label (63 characters).
    if not is_dns1123_label(value) or len(value) > 56:
        raise ProjectError(
            f"invalid project name {value!r} (from {where}): a project name is a "
            "lower-case DNS-1123 label of at most 56 characters (a-z, 0-9, '-'; it "
            "starts and ends with a letter or digit)",
            hint=hint,
        )
    package = package_name(value)
    if not package.isidentifier() or keyword.iskeyword(package):
        raise ProjectError(
            f"invalid project name {value!r} (from {where}): its package name "
            f"{package!r} is not a Python identifier",
            hint=f"{hint}; it must start with a letter",
        )
    if package in RESERVED_PACKAGES:
        raise ProjectError(
            f"invalid project name {value!r} (from {where}): the package name "
            f"{package!r} is taken by opgen, the project layout or a package the "
            "operator imports",
            hint=hint,
        )
    return value


def owner(value: str | None) -> str | None:
    """--owner: free text on one line (it goes into license headers)."""
    if value is not None and ("\n" in value or "\r" in value or not value.strip()):
        raise ProjectError(
            f"invalid --owner {value!r}: the owner is one non-empty line of text",
            hint='for example --owner "The Ray Operator Authors"',
        )
    return value


def package_name(name: str) -> str:
    """The Python package for a DNS name: `ray-operator` → `ray_operator`."""
    return name.replace("-", "_").replace(".", "_")
