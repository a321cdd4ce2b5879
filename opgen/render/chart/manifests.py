"""The chart's templates: config/default's objects, made into Helm templates.

The objects are those `kubectl kustomize config/default` prints for the
project as opgen scaffolds it: rendered from the templates that wrote
`config/` (opgen's scaffold of those files, not later edits to them), the
CRDs and `role.yaml` that `opgen generate` writes, and the overlay's own
changes (`namePrefix`, `namespace`, the metrics patch) made here. Each object
then becomes a template:

- names start with the release's (`{{ include "<chart>.fullname" . }}-<name>`),
  which is kustomize's `<project>-<name>` for a release named after the project;
- namespaced objects go into the release's namespace; the Namespace object
  itself is left to `helm install --create-namespace`;
- every object gets Helm's labels (chart, instance, managed-by), in place of
  `app.kubernetes.io/managed-by: kustomize`;
- what `values.yaml` sets replaces config/'s fixed settings (image, replicas,
  resources, security contexts, scheduling, args, metrics port);
- each file is switched on or off by a value (`crd.enable`, `metrics.enable`,
  `leaderElection.enable`, ...), as config/default's commented blocks are.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from opgen.project.layout import GENERATED_TEMPLATE_MARK
from opgen.render.chart.helmyaml import Slots, escape, indented, to_yaml_lines
from opgen.render.chart.values import ChartDefaults

__all__ = ["ChartSource", "Template", "chart_defaults", "chart_templates"]

HEADER = f"{GENERATED_TEMPLATE_MARK} from the project's config/. DO NOT EDIT. */}}}}"

CLUSTER_SCOPED = frozenset(
    {
        "ClusterRole",
        "ClusterRoleBinding",
        "CustomResourceDefinition",
        "MutatingWebhookConfiguration",
        "Namespace",
        "ValidatingWebhookConfiguration",
    }
)
KUSTOMIZE_LABEL = "app.kubernetes.io/managed-by"


@dataclass(frozen=True)
class ChartSource:
    """The text of every `config/` file the chart is made from, as opgen writes them."""

    crds: Mapping[str, str]
    """`config/crd/bases/<file>` → its content."""
    config: Mapping[str, str]
    """`config/<area>/<file>` → its content, for the files config/default includes."""
    helper_roles: tuple[str, ...]
    """The per-kind admin/editor/viewer role files (paths among `config`)."""


@dataclass(frozen=True)
class Template:
    """One file under the chart's `templates/`."""

    path: str
    text: str


_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's loader where PyYAML has it: the rendered CRDs run to megabytes, and
the pure-Python loader spent most of `opgen generate --check` reading them."""


def documents(text: str) -> list[dict[str, Any]]:
    return [doc for doc in yaml.load_all(text, Loader=_LOADER) if isinstance(doc, dict)]


def chart_defaults(source: ChartSource) -> ChartDefaults:
    """The values' defaults, read from config/'s Deployment and metrics patch."""
    deployment = _deployment(source)
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    return ChartDefaults(
        replicas=int(deployment["spec"].get("replicas", 1)),
        image=str(container["image"]),
        pod_security_context=pod.get("securityContext", {}),
        security_context=container.get("securityContext", {}),
        resources=container.get("resources", {}),
        metrics_port=int(_metrics_argument(source).rpartition(":")[2]),
        webhook_port=_webhook_patch(source).port,
    )


def chart_templates(
    chart: str, source: ChartSource, *, webhooks: bool
) -> list[Template]:
    """Every generated template of the chart named `chart`, sorted by path."""
    helpers = _Helm(
        chart, _metrics_argument(source), _webhook_patch(source), _certificate(source)
    )
    metrics_auth = "and .Values.metrics.enable .Values.metrics.secure"
    parts: list[tuple[str, str, str | None]] = [
        ("config/rbac/service_account.yaml", "rbac/service_account.yaml", None),
        ("config/rbac/role.yaml", "rbac/role.yaml", None),
        ("config/rbac/role_binding.yaml", "rbac/role_binding.yaml", None),
        (
            "config/rbac/leader_election_role.yaml",
            "rbac/leader_election_role.yaml",
            ".Values.leaderElection.enable",
        ),
        (
            "config/rbac/leader_election_role_binding.yaml",
            "rbac/leader_election_role_binding.yaml",
            ".Values.leaderElection.enable",
        ),
        (
            "config/rbac/metrics_auth_role.yaml",
            "rbac/metrics_auth_role.yaml",
            metrics_auth,
        ),
        (
            "config/rbac/metrics_auth_role_binding.yaml",
            "rbac/metrics_auth_role_binding.yaml",
            metrics_auth,
        ),
        (
            "config/rbac/metrics_reader_role.yaml",
            "rbac/metrics_reader_role.yaml",
            metrics_auth,
        ),
        ("config/manager/manager.yaml", "manager/manager.yaml", None),
        (
            "config/default/metrics_service.yaml",
            "metrics/metrics_service.yaml",
            ".Values.metrics.enable",
        ),
        (
            "config/prometheus/monitor.yaml",
            "prometheus/monitor.yaml",
            "and .Values.prometheus.enable .Values.metrics.enable",
        ),
        (
            "config/network-policy/allow-metrics-traffic.yaml",
            "network-policy/allow-metrics-traffic.yaml",
            "and .Values.networkPolicy.enable .Values.metrics.enable",
        ),
    ]
    parts += [
        (path, f"rbac/{path.rsplit('/', 1)[1]}", ".Values.rbacHelpers.enable")
        for path in source.helper_roles
    ]
    if webhooks:
        certificates = "and .Values.webhook.enable .Values.certManager.enable"
        parts += [
            (
                "config/webhook/manifests.yaml",
                "webhook/manifests.yaml",
                ".Values.webhook.enable",
            ),
            (
                "config/webhook/service.yaml",
                "webhook/service.yaml",
                ".Values.webhook.enable",
            ),
            ("config/certmanager/issuer.yaml", "certmanager/issuer.yaml", certificates),
            (
                "config/certmanager/certificate-webhook.yaml",
                "certmanager/certificate-webhook.yaml",
                certificates,
            ),
            (
                "config/network-policy/allow-webhook-traffic.yaml",
                "network-policy/allow-webhook-traffic.yaml",
                "and .Values.networkPolicy.enable .Values.webhook.enable",
            ),
        ]
    templates = [
        _template(f"templates/{target}", source.config[path], condition, helpers)
        for path, target, condition in parts
    ]
    templates += [
        Template(
            f"templates/crd/{name}",
            _wrap([_crd_body(text, helpers)], ".Values.crd.enable"),
        )
        for name, text in sorted(source.crds.items())
    ]
    return sorted(templates, key=lambda template: template.path)


def _deployment(source: ChartSource) -> dict[str, Any]:
    return next(
        doc
        for doc in documents(source.config["config/manager/manager.yaml"])
        if doc["kind"] == "Deployment"
    )


def _metrics_argument(source: ChartSource) -> str:
    """The flag config/default's metrics patch adds (`--metrics-bind-address=:8443`)."""
    [patch] = yaml.safe_load(source.config["config/default/manager_metrics_patch.yaml"])
    return str(patch["value"])


@dataclass(frozen=True)
class WebhookPatch:
    """What config/default/manager_webhook_patch.yaml adds to the Deployment, by list."""

    args: tuple[str, ...] = ()
    volume_mounts: tuple[dict[str, Any], ...] = ()
    ports: tuple[dict[str, Any], ...] = ()
    volumes: tuple[dict[str, Any], ...] = ()

    @property
    def port(self) -> int | None:
        return int(self.ports[0]["containerPort"]) if self.ports else None


_PATCHED_LISTS = {
    "/spec/template/spec/containers/0/args/-": "args",
    "/spec/template/spec/containers/0/volumeMounts/-": "volume_mounts",
    "/spec/template/spec/containers/0/ports/-": "ports",
    "/spec/template/spec/volumes/-": "volumes",
}


def _webhook_patch(source: ChartSource) -> WebhookPatch:
    text = source.config.get("config/default/manager_webhook_patch.yaml")
    if text is None:
        return WebhookPatch()
    added: dict[str, list[Any]] = {field: [] for field in _PATCHED_LISTS.values()}
    for operation in yaml.safe_load(text):
        added[_PATCHED_LISTS[operation["path"]]].append(operation["value"])
    return WebhookPatch(**{field: tuple(values) for field, values in added.items()})


def _certificate(source: ChartSource) -> str | None:
    """The webhook server's Certificate's name in config/certmanager."""
    text = source.config.get("config/certmanager/certificate-webhook.yaml")
    return str(documents(text)[0]["metadata"]["name"]) if text else None


def _template(path: str, text: str, condition: str | None, helm: _Helm) -> Template:
    bodies = [
        helm.convert(doc) for doc in documents(text) if doc["kind"] != "Namespace"
    ]
    return Template(path, _wrap(bodies, condition))


_CRD_VERSIONS = "\n  versions:\n"
_TOP_LEVEL_LINE = re.compile(r"^\S", re.MULTILINE)


def _crd_body(text: str, helm: _Helm) -> str:
    """The template of the CRD file `text` (one document, as opgen writes it).

    Only the CRD's head changes (metadata, spec.conversion); its versions, the
    schemas that are nearly all of its megabytes, are the last key of `spec`
    and pass through as written (escaped for Helm) rather than being parsed
    and dumped again: the same lines, as `opgen.render.yaml` writes the same
    data at the same place."""
    head, found, versions = text.partition(_CRD_VERSIONS)
    if not found or _TOP_LEVEL_LINE.search(versions):
        [doc] = documents(text)  # not a lone CRD ending in its versions
        return helm.convert(doc)
    [doc] = documents(head)
    slots = Slots()
    lines = [escape(line) for line in f"  versions:\n{versions}".splitlines()]
    doc["spec"]["versions"] = slots.block(lambda indent, lead: lines)
    return helm.convert(doc, slots)


def _wrap(bodies: list[str], condition: str | None) -> str:
    lines = [HEADER]
    if condition is not None:
        lines.append(f"{{{{- if {condition} }}}}")
    lines.append("\n---\n".join(body.rstrip("\n") for body in bodies))
    if condition is not None:
        lines.append("{{- end }}")
    return "\n".join(lines) + "\n"


class _Helm:
    """How config/default's objects become this chart's templates."""

    def __init__(
        self,
        chart: str,
        metrics_argument: str,
        webhook: WebhookPatch,
        certificate: str | None,
    ) -> None:
        self.chart = chart
        self.metrics_flag = metrics_argument.rpartition(":")[0] + ":"
        self.webhook = webhook
        self.certificate = certificate

    @property
    def fullname(self) -> str:
        return f'{{{{ include "{self.chart}.fullname" . }}}}'

    def inject_ca(self, metadata: dict[str, Any], slots: Slots) -> None:
        """cert-manager's annotation naming the webhook Certificate, with cert-manager on."""
        condition = "and .Values.webhook.enable .Values.certManager.enable"
        value = f"{{{{ .Release.Namespace }}}}/{self.fullname}-{self.certificate}"
        line = f"cert-manager.io/inject-ca-from: {value}"
        annotations = metadata.get("annotations")
        if annotations:
            annotations["cert-manager.io/inject-ca-from"] = slots.block(
                _when(condition, line)
            )
            return

        metadata["annotations"] = slots.block(
            lambda indent, lead: indented(
                indent, f"{{{{- if {condition} }}}}", "annotations:"
            )
            + indented(indent + 2, line)
            + indented(indent, "{{- end }}")
        )

    def service_reference(self, service: dict[str, Any], slots: Slots) -> None:
        service["name"] = self.name(slots, service["name"])
        service["namespace"] = slots.inline("{{ .Release.Namespace }}")

    def convert(self, doc: dict[str, Any], slots: Slots | None = None) -> str:
        """The template text of `doc`, a document parsed for this call: it is
        changed in place. `slots`: those already placed in `doc`."""
        slots = Slots() if slots is None else slots
        kind = doc["kind"]
        name = str(doc["metadata"]["name"])
        self._metadata(doc, slots)
        if kind.endswith("Binding"):
            doc["roleRef"]["name"] = self.name(slots, doc["roleRef"]["name"])
            for subject in doc.get("subjects", []):
                if subject.get("kind") == "ServiceAccount":
                    subject["name"] = self.name(slots, subject["name"])
                    subject["namespace"] = slots.inline("{{ .Release.Namespace }}")
        special: dict[str, Callable[[dict[str, Any], Slots, str], None]] = {
            "CustomResourceDefinition": self._crd,
            "Deployment": self._deployment,
            "Service": self._service,
            "ServiceMonitor": self._service_monitor,
            "NetworkPolicy": self._network_policy,
            "MutatingWebhookConfiguration": self._webhook_configuration,
            "ValidatingWebhookConfiguration": self._webhook_configuration,
            "Certificate": self._certificate,
        }
        if kind in special:
            special[kind](doc, slots, name)
        return slots.dump(doc)

    def name(self, slots: Slots, name: str) -> str:
        return slots.inline(f'{{{{ include "{self.chart}.fullname" . }}}}-{name}')

    def _metadata(self, doc: dict[str, Any], slots: Slots) -> None:
        metadata = doc.setdefault("metadata", {})
        if doc["kind"] != "CustomResourceDefinition":
            metadata["name"] = self.name(slots, metadata["name"])
        if doc["kind"] not in CLUSTER_SCOPED:
            metadata["namespace"] = slots.inline("{{ .Release.Namespace }}")
        own = {
            k: v for k, v in metadata.get("labels", {}).items() if k != KUSTOMIZE_LABEL
        }

        def labels(indent: int, lead: str) -> list[str]:
            inner = indent + 2
            include = f'{{{{- include "{self.chart}.labels" . | nindent {inner} }}}}'
            return [
                *indented(indent, "labels:"),
                *indented(inner, include),
                *to_yaml_lines(own, inner),
            ]

        metadata["labels"] = slots.block(labels)

    def _crd(self, doc: dict[str, Any], slots: Slots, name: str) -> None:
        annotations = doc["metadata"].setdefault("annotations", {})
        annotations["helm.sh/resource-policy"] = slots.block(
            _when(".Values.crd.keep", "helm.sh/resource-policy: keep")
        )
        conversion = doc["spec"].get("conversion")
        service = (
            (conversion or {}).get("webhook", {}).get("clientConfig", {}).get("service")
        )
        if service is None:
            return
        self.inject_ca(doc["metadata"], slots)
        self.service_reference(service, slots)

        def converting(indent: int, lead: str) -> list[str]:
            return [
                *indented(indent, "{{- if .Values.webhook.enable }}"),
                *slots.lines("conversion", conversion, indent),
                *indented(indent, "{{- end }}"),
            ]

        doc["spec"]["conversion"] = slots.block(converting)

    def _webhook_configuration(
        self, doc: dict[str, Any], slots: Slots, name: str
    ) -> None:
        self.inject_ca(doc["metadata"], slots)
        for webhook in doc.get("webhooks", []):
            service = webhook.get("clientConfig", {}).get("service")
            if service is not None:
                self.service_reference(service, slots)

    def _certificate(self, doc: dict[str, Any], slots: Slots, name: str) -> None:
        spec = doc["spec"]
        spec["issuerRef"]["name"] = self.name(slots, spec["issuerRef"]["name"])
        service = f"{self.fullname}-webhook-service"
        spec["dnsNames"] = [
            slots.inline(
                dns.replace("SERVICE_NAMESPACE", "{{ .Release.Namespace }}").replace(
                    "SERVICE_NAME", service
                )
            )
            for dns in spec["dnsNames"]
        ]

    def _deployment(self, doc: dict[str, Any], slots: Slots, name: str) -> None:
        spec = doc["spec"]
        spec["replicas"] = slots.inline("{{ .Values.manager.replicas }}")
        pod = spec["template"]["spec"]
        pod["serviceAccountName"] = self.name(slots, pod["serviceAccountName"])
        pod["securityContext"] = slots.block(
            _to_yaml(".Values.manager.podSecurityContext")
        )
        for key in ("affinity", "nodeSelector"):
            pod[key] = slots.block(_with(f".Values.manager.{key}", key, nested=True))
        for key in ("tolerations", "imagePullSecrets"):
            pod[key] = slots.block(_with(f".Values.manager.{key}", key, nested=False))
        container = pod["containers"][0]
        image = (
            '"{{ .Values.manager.image.repository }}:{{ .Values.manager.image.tag }}"'
        )
        container["image"] = slots.inline(image)
        container["imagePullPolicy"] = slots.block(
            _with_inline(".Values.manager.image.pullPolicy", "imagePullPolicy")
        )
        container["args"] = slots.block(self._args(container.get("args", [])))
        if self.webhook.ports:
            for key, added in (
                ("volumeMounts", self.webhook.volume_mounts),
                ("ports", self._webhook_ports(slots)),
            ):
                container[key] = slots.block(
                    _webhook_items(key, container.get(key, []), added, slots)
                )
            pod["volumes"] = slots.block(
                _webhook_items(
                    "volumes", pod.get("volumes", []), self.webhook.volumes, slots
                )
            )
        container["env"] = slots.block(_env(container.get("env", [])))
        container["resources"] = slots.block(_to_yaml(".Values.manager.resources"))
        container["securityContext"] = slots.block(
            _to_yaml(".Values.manager.securityContext")
        )

    def _args(self, base: Iterable[str]) -> Callable[[int, str], list[str]]:
        fixed = [arg for arg in base if arg != "--leader-elect"]

        def render(indent: int, lead: str) -> list[str]:
            return [
                *indented(
                    indent,
                    "args:",
                    "{{- if .Values.metrics.enable }}",
                    f"- {self.metrics_flag}{{{{ .Values.metrics.port }}}}",
                    "{{- if not .Values.metrics.secure }}",
                    "- --metrics-secure=false",
                    "{{- end }}",
                    "{{- end }}",
                    "{{- if .Values.leaderElection.enable }}",
                    "- --leader-elect",
                    "{{- end }}",
                ),
                *to_yaml_lines(fixed, indent),
                *self._webhook_args(indent),
                *indented(
                    indent,
                    "{{- range .Values.manager.args }}",
                    "- {{ . | quote }}",
                    "{{- end }}",
                ),
            ]

        return render

    def _webhook_args(self, indent: int) -> list[str]:
        if not self.webhook.args:
            return []
        args = [
            (
                "--webhook-port={{ .Values.webhook.port }}"
                if arg.startswith("--webhook-port=")
                else arg
            )
            for arg in self.webhook.args
        ]
        return indented(
            indent,
            "{{- if .Values.webhook.enable }}",
            *(f"- {arg}" for arg in args),
            "{{- end }}",
        )

    def _webhook_ports(self, slots: Slots) -> tuple[dict[str, Any], ...]:
        port = slots.inline("{{ .Values.webhook.port }}")
        return tuple({**added, "containerPort": port} for added in self.webhook.ports)

    def _service(self, doc: dict[str, Any], slots: Slots, name: str) -> None:
        value = "webhook" if name.endswith("webhook-service") else "metrics"
        for port in doc["spec"]["ports"]:
            if value == "metrics":
                port["port"] = slots.inline("{{ .Values.metrics.port }}")
            port["targetPort"] = slots.inline(f"{{{{ .Values.{value}.port }}}}")

    def _service_monitor(self, doc: dict[str, Any], slots: Slots, name: str) -> None:
        for endpoint in doc["spec"]["endpoints"]:
            endpoint["scheme"] = slots.inline(
                '{{ ternary "https" "http" .Values.metrics.secure }}'
            )

    def _network_policy(self, doc: dict[str, Any], slots: Slots, name: str) -> None:
        value = "webhook" if "webhook" in name else "metrics"
        for rule in doc["spec"].get("ingress", []):
            for port in rule.get("ports", []):
                port["port"] = slots.inline(f"{{{{ .Values.{value}.port }}}}")


def _when(condition: str, line: str) -> Callable[[int, str], list[str]]:
    def render(indent: int, lead: str) -> list[str]:
        return indented(indent, f"{{{{- if {condition} }}}}", line, "{{- end }}")

    return render


def _webhook_items(
    key: str, base: list[Any], added: Iterable[Any], slots: Slots
) -> Callable[[int, str], list[str]]:
    """`key:` with config/'s items, then the webhook patch's while webhooks are on."""

    def render(indent: int, lead: str) -> list[str]:
        extra = [slots.lines("x", [item], indent)[1:] for item in added]
        return [
            *indented(indent, f"{key}:"),
            *to_yaml_lines(base, indent),
            *indented(indent, "{{- if .Values.webhook.enable }}"),
            *(line for lines in extra for line in lines),
            *indented(indent, "{{- end }}"),
        ]

    return render


def _to_yaml(value: str) -> Callable[[int, str], list[str]]:
    """`key:` and the value's YAML below it."""

    def render(indent: int, lead: str) -> list[str]:
        return [
            " " * indent + lead.rstrip(),
            " " * (indent + 2) + f"{{{{- toYaml {value} | nindent {indent + 2} }}}}",
        ]

    return render


def _with(value: str, key: str, *, nested: bool) -> Callable[[int, str], list[str]]:
    """`key:` and the value's YAML, only when the value is not empty."""

    def render(indent: int, lead: str) -> list[str]:
        inner = indent + 2 if nested else indent
        return indented(
            indent,
            f"{{{{- with {value} }}}}",
            f"{key}:",
            " " * (inner - indent) + f"{{{{- toYaml . | nindent {inner} }}}}",
            "{{- end }}",
        )

    return render


def _with_inline(value: str, key: str) -> Callable[[int, str], list[str]]:
    def render(indent: int, lead: str) -> list[str]:
        return indented(
            indent, f"{{{{- with {value} }}}}", f"{key}: {{{{ . }}}}", "{{- end }}"
        )

    return render


def _env(base: list[Any]) -> Callable[[int, str], list[str]]:
    """config/'s variables (WATCH_NAMESPACE in a --namespaced project) and `manager.env`."""

    def render(indent: int, lead: str) -> list[str]:
        added = f"{{{{- toYaml . | nindent {indent} }}}}"
        if base:
            return [
                *indented(indent, "env:"),
                *to_yaml_lines(base, indent),
                *indented(
                    indent, "{{- with .Values.manager.env }}", added, "{{- end }}"
                ),
            ]
        return indented(
            indent, "{{- with .Values.manager.env }}", "env:", added, "{{- end }}"
        )

    return render
