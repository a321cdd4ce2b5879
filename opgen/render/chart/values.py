"""The chart's values: what can be set, `values.yaml` and `values.schema.json`.

`values_spec` lists every value the templates read, in sections, with its
default (taken from the objects `config/` scaffolds, so the chart's defaults
are kustomize's), its JSON schema and what it does. From it:

- `values_yaml(spec, existing)` writes `values.yaml`: opgen's keys, order and
  comments, with the user's value wherever the file already sets one; keys
  opgen does not know are kept, at the end. So regenerating keeps what the
  user set, and `generate --check` finds nothing while only values changed;
- `values_schema(spec)` writes `values.schema.json`, which Helm checks values
  against on lint, template, install and upgrade: opgen's sections accept
  only their own keys (a typo fails), the top level also accepts others.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from opgen.errors import Location, ProjectError
from opgen.render.yaml import dump_document

__all__ = [
    "ChartDefaults",
    "Section",
    "Value",
    "values_schema",
    "values_spec",
    "values_yaml",
]


@dataclass(frozen=True)
class Value:
    """One value: its key, default, JSON schema and what it does."""

    key: str
    default: Any
    schema: Mapping[str, Any]
    doc: str


@dataclass(frozen=True)
class Section:
    """A mapping of values (`manager`, `metrics`, ...)."""

    key: str
    doc: str
    entries: tuple[Value | Section, ...]


@dataclass(frozen=True)
class ChartDefaults:
    """What the defaults are taken from: the manager's Deployment and metrics Service."""

    replicas: int
    image: str
    pod_security_context: Mapping[str, Any]
    security_context: Mapping[str, Any]
    resources: Mapping[str, Any]
    metrics_port: int
    webhook_port: int | None
    """The webhook server's port, in a project with webhooks."""


_OBJECT = {"type": "object"}
_OBJECTS = {"type": "array", "items": {"type": "object"}}
_BOOLEAN = {"type": "boolean"}
_PORT = {"type": "integer", "minimum": 1, "maximum": 65535}


def values_spec(
    defaults: ChartDefaults, *, helper_roles: bool, webhooks: bool
) -> tuple[Section, ...]:
    """Every value of the chart, in sections (`webhook` and `certManager` with webhooks)."""
    repository, _, tag = defaults.image.rpartition(":")
    manager = Section(
        "manager",
        "The manager's Deployment.",
        (
            Value(
                "replicas",
                defaults.replicas,
                {"type": "integer", "minimum": 0},
                "Manager pods; with leader election one of them is active at a time.",
            ),
            Section(
                "image",
                "The manager's image (`make docker-build docker-push IMG=...`).",
                (
                    Value("repository", repository, {"type": "string"}, "Image name."),
                    Value("tag", tag, {"type": "string"}, "Image tag."),
                    Value(
                        "pullPolicy",
                        "IfNotPresent",
                        {"enum": ["Always", "IfNotPresent", "Never", ""]},
                        'When the kubelet pulls the image ("": Kubernetes\' default).',
                    ),
                ),
            ),
            Value(
                "args",
                [],
                {"type": "array", "items": {"type": "string"}},
                "Flags added after the manager's own, e.g. --zap-encoder=json "
                "(`python -m <package> --help` lists them).",
            ),
            Value(
                "env",
                [],
                _OBJECTS,
                "Environment variables added to the manager container.",
            ),
            Value(
                "imagePullSecrets",
                [],
                _OBJECTS,
                "Secrets for pulling the image from a private registry ([{name: ...}]).",
            ),
            Value(
                "podSecurityContext",
                dict(defaults.pod_security_context),
                _OBJECT,
                'The pod\'s security context (Pod Security Standards "restricted").',
            ),
            Value(
                "securityContext",
                dict(defaults.security_context),
                _OBJECT,
                "The manager container's security context.",
            ),
            Value(
                "resources",
                dict(defaults.resources),
                _OBJECT,
                "CPU and memory requests and limits.",
            ),
            Value(
                "affinity",
                {},
                _OBJECT,
                "The pod's affinity (e.g. nodeAffinity for arm64/amd64).",
            ),
            Value(
                "nodeSelector",
                {},
                {"type": "object", "additionalProperties": {"type": "string"}},
                "Labels a node must have for the pod to run there.",
            ),
            Value("tolerations", [], _OBJECTS, "Taints the pod tolerates."),
        ),
    )
    webhook_sections = (
        Section(
            "webhook",
            "The webhook server, its Service and the webhook configurations.",
            (
                Value(
                    "enable",
                    True,
                    _BOOLEAN,
                    "Serve the webhooks and register them; false also drops the CRDs' "
                    "conversion webhook.",
                ),
                Value(
                    "port",
                    defaults.webhook_port,
                    _PORT,
                    "Port the webhook server listens on.",
                ),
            ),
        ),
        Section(
            "certManager",
            "cert-manager issues the webhook server's certificate (needs cert-manager "
            "in the cluster) and injects its CA into the webhook configurations and CRDs.",
            (
                Value(
                    "enable",
                    True,
                    _BOOLEAN,
                    "Create the Issuer and Certificate; false: provide the Secret "
                    "webhook-server-cert and the caBundles yourself.",
                ),
            ),
        ),
    )
    return (
        manager,
        *(webhook_sections if webhooks else ()),
        Section(
            "leaderElection",
            "Leader election (--leader-elect): one active manager among the replicas.",
            (
                Value(
                    "enable",
                    True,
                    _BOOLEAN,
                    "Elect a leader; installs its Role and RoleBinding.",
                ),
            ),
        ),
        Section(
            "crd",
            "The CustomResourceDefinitions.",
            (
                Value("enable", True, _BOOLEAN, "Install the CRDs with the chart."),
                Value(
                    "keep",
                    True,
                    _BOOLEAN,
                    "Keep the CRDs, and so every object of their kinds, on helm uninstall.",
                ),
            ),
        ),
        Section(
            "rbacHelpers",
            "Admin, editor and viewer ClusterRoles per kind, for people and tools; "
            "the manager does not use them.",
            (Value("enable", helper_roles, _BOOLEAN, "Install the helper roles."),),
        ),
        Section(
            "metrics",
            "The manager's metrics endpoint and its Service.",
            (
                Value(
                    "enable", True, _BOOLEAN, "Serve metrics (--metrics-bind-address)."
                ),
                Value(
                    "port",
                    defaults.metrics_port,
                    _PORT,
                    "Port of the endpoint and the Service.",
                ),
                Value(
                    "secure",
                    True,
                    _BOOLEAN,
                    "HTTPS, only to callers the API server authenticates and allows to "
                    "get /metrics (installs the roles that check them); false: plain HTTP.",
                ),
            ),
        ),
        Section(
            "prometheus",
            "A ServiceMonitor for the Prometheus Operator (needs its CRDs).",
            (Value("enable", False, _BOOLEAN, "Create the ServiceMonitor."),),
        ),
        Section(
            "networkPolicy",
            'A NetworkPolicy that lets only namespaces labelled metrics: "enabled" '
            "reach the metrics endpoint.",
            (Value("enable", False, _BOOLEAN, "Create the NetworkPolicy."),),
        ),
    )


def values_yaml(
    spec: tuple[Section, ...], existing: str | None, *, path: str = "values.yaml"
) -> str:
    """`values.yaml`: the spec's layout and comments with the values `existing` sets."""
    given = _parse(existing, path)
    lines = [
        "# Values of the chart. opgen owns the keys, their order and these comments,",
        "# and rewrites them on `opgen generate`; the values are yours and are kept.",
        "# values.schema.json says what each accepts.",
    ]
    for section in spec:
        lines.append("")
        lines += _section_lines(section, given.get(section.key), 0)
    extra = _extra_lines(spec, given, 0)
    if extra:
        lines += ["", *extra]
    return "\n".join(lines) + "\n"


def values_schema(spec: tuple[Section, ...]) -> str:
    """`values.schema.json` for the spec."""
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "Values",
        "type": "object",
        "properties": {section.key: _section_schema(section) for section in spec},
    }
    return json.dumps(schema, indent=2) + "\n"


def _parse(existing: str | None, path: str) -> Mapping[str, Any]:
    if existing is None:
        return {}
    try:
        loaded = yaml.safe_load(existing)
    except yaml.YAMLError as error:
        raise ProjectError(
            f"values.yaml is not valid YAML: {error}",
            location=Location(file=path),
            hint="fix it (opgen keeps the values it sets), or delete it to get the defaults back",
        ) from None
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise ProjectError(
            "values.yaml does not hold a mapping of values",
            location=Location(file=path),
            hint="fix it (opgen keeps the values it sets), or delete it to get the defaults back",
        )
    return loaded


def _comment(text: str, indent: int) -> list[str]:
    width = 80 - indent - 2
    return [" " * indent + "# " + line for line in textwrap.wrap(text, width)]


def _section_lines(section: Section, given: object, indent: int) -> list[str]:
    values = given if isinstance(given, dict) else {}
    lines = [*_comment(section.doc, indent), " " * indent + f"{section.key}:"]
    for entry in section.entries:
        inner = indent + 2
        if isinstance(entry, Section):
            lines += _section_lines(entry, values.get(entry.key), inner)
        else:
            value = values.get(entry.key, entry.default)
            lines += _comment(entry.doc, inner)
            dumped = dump_document({entry.key: value}).rstrip("\n").splitlines()
            lines += [" " * inner + line for line in dumped]
    return lines + _extra_lines(section.entries, values, indent + 2)


def _extra_lines(
    entries: Iterable[Value | Section], given: Mapping[str, Any], indent: int
) -> list[str]:
    """The keys of `given` no entry names, kept as they are, after a comment."""
    known = {entry.key for entry in entries}
    extra = {key: value for key, value in given.items() if key not in known}
    if not extra:
        return []
    note = "Not read by opgen's templates; kept from your values.yaml."
    dumped = dump_document(extra).rstrip("\n").splitlines()
    return [*_comment(note, indent), *(" " * indent + line for line in dumped)]


def _section_schema(section: Section) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for entry in section.entries:
        if isinstance(entry, Section):
            properties[entry.key] = _section_schema(entry)
        else:
            properties[entry.key] = {"description": entry.doc, **entry.schema}
    return {
        "description": section.doc,
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
