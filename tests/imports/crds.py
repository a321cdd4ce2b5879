"""CRDs of real-world shape, written here, for the tests of `opgen import crd`.

None is copied from another project: each is written in the form controller-gen
gives such Go APIs (descriptions, `required` lists, formats, int-or-string
with its `anyOf`, list and map types, CEL), after the kind of API named:

- `certificate()`: a cert-manager-like Certificate (nested selectors and
  name constraints, durations, keystores, enums, a conditions list);
- `service_monitor()`: a ServiceMonitor-like kind whose TLS and auth settings
  hold Kubernetes' `SecretKeySelector`/`ConfigMapKeySelector` and whose
  selector is a `LabelSelector`, as controller-gen writes them for the
  pinned release;
- `quota()`: int-or-string and Quantity values in maps, maps of maps and lists;
- `gateway()`: list-map keys (two of them), sets, atomic maps, CEL rules with
  messages, message expressions, reasons and field paths, and `oldSelf`
  transition rules;
- `widget_versions()`: three versions, one of them served but neither stored
  nor the newest, one deprecated with a warning, one not served;
- `runner()`: a kind inlining `PodTemplateSpec` twice, `ResourceRequirements`
  and `Toleration`s, with the schemas opgen writes for `op.k8s`'s types (which
  are controller-gen's for the pinned release);
- `older_runner()`: the same with the pod template of an older Kubernetes
  release (fields, list types and defaults that 1.36 added are missing).

`k8s_schema(name)` is what controller-gen writes for a field of a Kubernetes
type (`op.k8s`'s schema); `without_descriptions(crd)` gives the CRD as
`crd:maxDescLen=0` writes it.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import opgen.api.k8s as k8s
from opgen.engine.openapi import QUANTITY_PATTERN
from opgen.schema.build import API_VERSION_DESCRIPTION, KIND_DESCRIPTION, model_schema
from opgen.schema.options import CrdOptions

__all__ = [
    "TOGETHER",
    "all_crds",
    "certificate",
    "gateway",
    "k8s_schema",
    "older_runner",
    "quota",
    "runner",
    "service_monitor",
    "widget_versions",
    "without_descriptions",
]

Node = dict[str, Any]


# -- node builders ----------------------------------------------------------------
def _doc(node: Node, description: str | None) -> Node:
    if description is not None:
        node["description"] = description
    return node


def string(description: str | None = None, **facts: Any) -> Node:
    return _doc({"type": "string", **facts}, description)


def integer(description: str | None = None, **facts: Any) -> Node:
    return _doc({"type": "integer", **facts}, description)


def boolean(description: str | None = None) -> Node:
    return _doc({"type": "boolean"}, description)


def obj(
    properties: dict[str, Node],
    description: str | None = None,
    *,
    required: list[str] | None = None,
    **facts: Any,
) -> Node:
    node: Node = {"type": "object", "properties": properties, **facts}
    if required:
        node["required"] = required
    return _doc(node, description)


def array(items: Node, description: str | None = None, **facts: Any) -> Node:
    return _doc({"type": "array", "items": items, **facts}, description)


def string_map(description: str | None = None) -> Node:
    return _doc(
        {"type": "object", "additionalProperties": {"type": "string"}}, description
    )


def int_or_string(description: str | None = None, **facts: Any) -> Node:
    return _doc(
        {
            "anyOf": [{"type": "integer"}, {"type": "string"}],
            "x-kubernetes-int-or-string": True,
            **facts,
        },
        description,
    )


def quantity(description: str | None = None) -> Node:
    return _doc(
        {
            "anyOf": [{"type": "integer"}, {"type": "string"}],
            "pattern": QUANTITY_PATTERN,
            "x-kubernetes-int-or-string": True,
        },
        description,
    )


def date_time(description: str | None = None) -> Node:
    return string(description, format="date-time")


def k8s_schema(
    name: str, description: str | None = None, *, embedded_object_meta: bool = False
) -> Node:
    """A field of the Kubernetes type `name` as controller-gen writes it (for the
    pinned release): the type's schema, the field's own description."""
    model = getattr(k8s, name)
    options = CrdOptions(embedded_object_meta=embedded_object_meta)
    node = _unshared(model_schema(model, options))
    node.pop("description", None)
    return _doc(node, description)


def k8s_item(name: str) -> Node:
    """A list item of the Kubernetes type `name`: the type's schema, with its
    description (controller-gen gives items their type's documentation)."""
    return _unshared(model_schema(getattr(k8s, name), CrdOptions()))


def _unshared(node: Node) -> Node:
    """A copy in which no two places share a dict (opgen's schemas share the
    nodes of a type used twice)."""
    copied: Node = json.loads(json.dumps(node))
    return copied


def root(
    description: str,
    spec: Node | None,
    status: Node | None = None,
    *,
    required: list[str] | None = None,
) -> Node:
    properties: dict[str, Node] = {
        "apiVersion": string(API_VERSION_DESCRIPTION),
        "kind": string(KIND_DESCRIPTION),
        "metadata": {"type": "object"},
    }
    if spec is not None:
        properties["spec"] = spec
    if status is not None:
        properties["status"] = status
    return obj(properties, description, required=required)


def crd(
    group: str,
    kind: str,
    plural: str,
    versions: list[Node],
    *,
    scope: str = "Namespaced",
    short_names: list[str] | None = None,
    categories: list[str] | None = None,
) -> Node:
    names: Node = {
        "kind": kind,
        "listKind": f"{kind}List",
        "plural": plural,
        "singular": kind.lower(),
    }
    if short_names:
        names["shortNames"] = short_names
    if categories:
        names["categories"] = categories
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "annotations": {"controller-gen.kubebuilder.io/version": "v0.21.0"},
            "name": f"{plural}.{group}",
        },
        "spec": {
            "group": group,
            "names": names,
            "scope": scope,
            "versions": versions,
        },
    }


def version(
    name: str,
    schema: Node,
    *,
    served: bool = True,
    storage: bool = True,
    status: bool = False,
    columns: list[Node] | None = None,
    **extra: Any,
) -> Node:
    entry: Node = {
        "name": name,
        "schema": {"openAPIV3Schema": schema},
        "served": served,
        "storage": storage,
        **extra,
    }
    if columns:
        entry["additionalPrinterColumns"] = columns
    if status:
        entry.setdefault("subresources", {})["status"] = {}
    return entry


def without_descriptions(crd: Node) -> Node:
    """The CRD with every description of its schemas dropped (controller-gen's
    `maxDescLen=0`)."""
    crd = copy.deepcopy(crd)
    for entry in crd["spec"]["versions"]:
        entry["schema"] = _undocumented(entry["schema"])
    return crd


def _undocumented(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: _undocumented(v)
            for k, v in value.items()
            if not (k == "description" and isinstance(v, str))
        }
    if isinstance(value, list):
        return [_undocumented(v) for v in value]
    return value


# -- a cert-manager-like Certificate -------------------------------------------------
def _secret_ref(description: str) -> Node:
    return obj(
        {
            "key": string(
                "The key of the entry in the Secret resource's `data` field to be "
                "used.\nSome instances of this field may be defaulted, in others it "
                "may be\nrequired."
            ),
            "name": string(
                "Name of the resource being referred to.\nMore info: "
                "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names"
            ),
        },
        description,
        required=["name"],
    )


def _keystore(name: str) -> Node:
    return obj(
        {
            "alias": string(
                "Alias specifies the alias of the key in the keystore, required "
                "by the JKS format."
            ),
            "create": boolean(
                f"Create enables {name} keystore creation for the Certificate."
            ),
            "passwordSecretRef": _secret_ref(
                f"PasswordSecretRef is a reference to a key in a Secret resource "
                f"containing the password used to encrypt the {name} keystore."
            ),
        },
        f"{name} configures options for storing a {name} keystore in the\n"
        "`spec.secretName` Secret resource.",
        required=["create", "passwordSecretRef"],
    )


def _domains(description: str) -> Node:
    return obj(
        {
            "dnsDomains": array(string(), "DNSDomains is a list of DNS domains."),
            "emailAddresses": array(string(), "EmailAddresses is a list of emails."),
            "ipRanges": array(
                string(),
                "IPRanges is a list of IP Ranges that are represented using CIDR "
                "notation.",
            ),
            "uriDomains": array(string(), "URIDomains is a list of URI domains."),
        },
        description,
    )


def _condition(kind: str) -> Node:
    return obj(
        {
            "lastTransitionTime": date_time(
                "LastTransitionTime is the timestamp corresponding to the last "
                "status\nchange of this condition."
            ),
            "message": string(
                "Message is a human readable description of the details of the last\n"
                "transition, complementing reason."
            ),
            "observedGeneration": integer(
                "If set, this represents the .metadata.generation that the "
                "condition was\nset based upon.",
                format="int64",
            ),
            "reason": string(
                "Reason is a brief machine readable explanation for the condition's "
                "last\ntransition."
            ),
            "status": string(
                "Status of the condition, one of (`True`, `False`, `Unknown`).",
                enum=["True", "False", "Unknown"],
            ),
            "type": string(
                "Type of the condition, known values are (`Ready`, `Issuing`)."
            ),
        },
        f"{kind}Condition contains condition information for a {kind}.",
        required=["status", "type"],
    )


def certificate() -> Node:
    spec = obj(
        {
            "additionalOutputFormats": array(
                obj(
                    {
                        "type": string(
                            "Type is the name of the format type that should be "
                            "written to the\nCertificate's target Secret.",
                            enum=["DER", "CombinedPEM"],
                        )
                    },
                    "CertificateAdditionalOutputFormat defines an additional output "
                    "format of a\nCertificate resource.",
                    required=["type"],
                ),
                "Defines extra output formats of the private key and signed "
                "certificate chain\nto be written to this Certificate's target Secret.",
            ),
            "commonName": string(
                "Requested common name X509 certificate subject attribute.",
                maxLength=64,
            ),
            "dnsNames": array(string(), "Requested DNS subject alternative names."),
            "duration": string(
                "Requested 'duration' (i.e. lifetime) of the Certificate.",
            ),
            "emailAddresses": array(
                string(), "Requested email subject alternative names."
            ),
            "ipAddresses": array(
                string(), "Requested IP address subject alternative names."
            ),
            "isCA": boolean(
                "Requested basic constraints isCA value.\nThe isCA value is used to "
                "set the `isCA` field on the created CertificateRequest\nresources."
            ),
            "issuerRef": obj(
                {
                    "group": string("Group of the resource being referred to."),
                    "kind": string("Kind of the resource being referred to."),
                    "name": string("Name of the resource being referred to."),
                },
                "Reference to the issuer responsible for issuing the certificate.",
                required=["name"],
            ),
            "keystores": obj(
                {"jks": _keystore("JKS"), "pkcs12": _keystore("PKCS12")},
                "Additional keystore output formats to be stored in the "
                "Certificate's Secret.",
            ),
            "literalSubject": string(
                "Requested X.509 certificate subject, represented using the LDAP "
                '"String\nRepresentation of a Distinguished Name" [1].'
            ),
            "nameConstraints": obj(
                {
                    "critical": boolean(
                        "if true then the name constraints are marked critical."
                    ),
                    "excluded": _domains(
                        "Excluded contains the constraints which must be disallowed."
                    ),
                    "permitted": _domains(
                        "Permitted contains the constraints in which the names must "
                        "be located."
                    ),
                },
                "x.509 certificate NameConstraint extension which MUST NOT be used "
                "in a non-CA certificate.",
            ),
            "privateKey": obj(
                {
                    "algorithm": string(
                        "Algorithm is the private key algorithm of the corresponding "
                        "private key\nfor this certificate.",
                        enum=["RSA", "ECDSA", "Ed25519"],
                    ),
                    "encoding": string(
                        "The private key cryptography standards (PKCS) encoding for "
                        "this\ncertificate's private key to be encoded in.",
                        enum=["PKCS1", "PKCS8"],
                    ),
                    "rotationPolicy": string(
                        "RotationPolicy controls how private keys should be "
                        "regenerated when a\nre-issuance is being processed.",
                        enum=["Never", "Always"],
                    ),
                    "size": integer(
                        "Size is the key bit size of the corresponding private key "
                        "for this certificate."
                    ),
                },
                "Private key options. These include the key algorithm and size, the "
                "used\nencoding and the rotation policy.",
            ),
            "renewBefore": string(
                "How long before the currently issued certificate's expiry "
                "cert-manager should\nrenew the certificate."
            ),
            "renewBeforePercentage": integer(
                "`renewBeforePercentage` is like `renewBefore`, except it is a "
                "relative percentage\nrather than an absolute duration.",
                format="int32",
            ),
            "revisionHistoryLimit": integer(
                "The maximum number of CertificateRequest revisions that are "
                "maintained in\nthe Certificate's history.",
                format="int32",
            ),
            "secretName": string(
                "Name of the Secret resource that will be automatically created and "
                "managed by this\nCertificate resource."
            ),
            "secretTemplate": obj(
                {
                    "annotations": string_map(
                        "Annotations is a key value map to be copied to the target "
                        "Kubernetes Secret."
                    ),
                    "labels": string_map(
                        "Labels is a key value map to be copied to the target "
                        "Kubernetes Secret."
                    ),
                },
                "Defines annotations and labels to be copied to the Certificate's "
                "Secret.",
            ),
            "subject": obj(
                {
                    name: array(
                        string(), f"{name.title()} to be used on the Certificate."
                    )
                    for name in (
                        "countries",
                        "localities",
                        "organizationalUnits",
                        "organizations",
                        "postalCodes",
                        "provinces",
                        "streetAddresses",
                    )
                }
                | {
                    "serialNumber": string(
                        "Serial number to be used on the Certificate."
                    )
                },
                "Requested set of X509 certificate subject attributes.",
            ),
            "uris": array(string(), "Requested URI subject alternative names."),
            "usages": array(
                string(
                    "KeyUsage specifies valid usage contexts for keys.",
                    enum=[
                        "signing",
                        "digital signature",
                        "content commitment",
                        "key encipherment",
                        "server auth",
                        "client auth",
                    ],
                ),
                "Requested key usages and extended key usages.",
            ),
        },
        "Specification of the desired state of the Certificate resource.",
        required=["issuerRef", "secretName"],
    )
    status = obj(
        {
            "conditions": array(
                _condition("Certificate"),
                "List of status conditions to indicate the status of certificates.\n"
                "Known condition types are `Ready` and `Issuing`.",
                **{
                    "x-kubernetes-list-map-keys": ["type"],
                    "x-kubernetes-list-type": "map",
                },
            ),
            "failedIssuanceAttempts": integer(
                "The number of continuous failed issuance attempts up till now."
            ),
            "lastFailureTime": date_time(
                "LastFailureTime is set only if the latest issuance for this\n"
                "Certificate failed and contains the time of the failure."
            ),
            "nextPrivateKeySecretName": string(
                "The name of the Secret resource containing the private key to be "
                "used\nfor the next certificate iteration."
            ),
            "notAfter": date_time(
                "The expiration time of the certificate stored in the secret named\n"
                "by this resource in `spec.secretName`."
            ),
            "notBefore": date_time(
                "The time after which the certificate stored in the secret named\n"
                "by this resource in `spec.secretName` is valid."
            ),
            "renewalTime": date_time(
                "RenewalTime is the time at which the certificate will be next\n"
                "renewed."
            ),
            "revision": integer("The current 'revision' of the certificate as issued."),
        },
        "Status of the Certificate.\nThis is set and managed automatically.",
    )
    schema = root(
        "A Certificate resource should be created to ensure an up to date and signed\n"
        "X.509 certificate is stored in the Kubernetes Secret resource named in "
        "`spec.secretName`.",
        spec,
        status,
        required=["spec"],
    )
    columns: list[Node] = [
        {
            "jsonPath": '.status.conditions[?(@.type=="Ready")].status',
            "name": "Ready",
            "type": "string",
        },
        {"jsonPath": ".spec.secretName", "name": "Secret", "type": "string"},
        {
            "jsonPath": ".spec.issuerRef.name",
            "name": "Issuer",
            "priority": 1,
            "type": "string",
        },
        {
            "jsonPath": '.status.conditions[?(@.type=="Ready")].message',
            "name": "Status",
            "priority": 1,
            "type": "string",
        },
        {
            "description": "CreationTimestamp is a timestamp representing the server "
            "time when this object was created.",
            "jsonPath": ".metadata.creationTimestamp",
            "name": "Age",
            "type": "date",
        },
    ]
    return crd(
        "cert-manager.io",
        "Certificate",
        "certificates",
        [version("v1", schema, status=True, columns=columns)],
        short_names=["cert", "certs"],
        categories=["cert-manager"],
    )


# -- a ServiceMonitor-like kind -------------------------------------------------------
def _safe_tls() -> Node:
    return obj(
        {
            "ca": obj(
                {
                    "configMap": k8s_schema(
                        "ConfigMapKeySelector",
                        "ConfigMap containing data to use for the targets.",
                    ),
                    "secret": k8s_schema(
                        "SecretKeySelector",
                        "Secret containing data to use for the targets.",
                    ),
                },
                "Certificate authority used when verifying server certificates.",
            ),
            "insecureSkipVerify": boolean("Disable target certificate validation."),
            "keySecret": k8s_schema(
                "SecretKeySelector",
                "Secret containing the client key file for the targets.",
            ),
            "serverName": string("Used to verify the hostname for the targets."),
        },
        "TLS configuration to use when scraping the target.",
    )


def _relabel() -> Node:
    return obj(
        {
            "action": string(
                "Action to perform based on the regex matching.",
                default="replace",
                enum=["replace", "Replace", "keep", "Keep", "drop", "Drop", "hashmod"],
            ),
            "modulus": integer(
                "Modulus to take of the hash of the source label values.",
                format="int64",
            ),
            "regex": string(
                "Regular expression against which the extracted value is matched."
            ),
            "replacement": string(
                "Replacement value against which a Replace action is performed."
            ),
            "separator": string(
                "Separator is the string between concatenated SourceLabels."
            ),
            "sourceLabels": array(
                string(
                    "LabelName is a valid Prometheus label name which may only "
                    "contain ASCII\nletters, numbers, as well as underscores.",
                    pattern="^[a-zA-Z_][a-zA-Z0-9_]*$",
                ),
                "The source labels select values from existing labels.",
            ),
            "targetLabel": string(
                "Label to which the resulting string is written in a replacement."
            ),
        },
        "RelabelConfig allows dynamic rewriting of the label set for targets, alerts,\n"
        "scraped samples and remote write samples.",
    )


def service_monitor() -> Node:
    duration = "^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$"
    endpoint = obj(
        {
            "basicAuth": obj(
                {
                    "password": k8s_schema(
                        "SecretKeySelector",
                        "`password` specifies a key of a Secret containing the password "
                        "for\nauthentication.",
                    ),
                    "username": k8s_schema(
                        "SecretKeySelector",
                        "`username` specifies a key of a Secret containing the username "
                        "for\nauthentication.",
                    ),
                },
                "`basicAuth` configures the Basic Authentication credentials to use "
                "when\nscraping the target.",
            ),
            "bearerTokenSecret": k8s_schema(
                "SecretKeySelector",
                "`bearerTokenSecret` specifies a key of a Secret containing the "
                "bearer\ntoken for scraping targets.",
            ),
            "honorLabels": boolean(
                "When true, `honorLabels` preserves the metric's labels when they "
                "collide\nwith the target's labels."
            ),
            "interval": string(
                "Interval at which Prometheus scrapes the metrics from the target.",
                pattern=duration,
            ),
            "metricRelabelings": array(
                _relabel(),
                "`metricRelabelings` configures the relabeling rules to apply to the\nsamples before ingestion.",
            ),
            "params": {
                "additionalProperties": array(string()),
                "description": "params define optional HTTP URL parameters.",
                "type": "object",
            },
            "path": string("HTTP path from which to scrape for metrics."),
            "port": string("Name of the Service port which this endpoint refers to."),
            "relabelings": array(
                _relabel(),
                "`relabelings` configures the relabeling rules to apply the target's\n"
                "metadata labels.",
            ),
            "scheme": string(
                "HTTP scheme to use for scraping.", enum=["http", "https"]
            ),
            "scrapeTimeout": string(
                "Timeout after which Prometheus considers the scrape to be failed.",
                pattern=duration,
            ),
            "targetPort": int_or_string(
                "Name or number of the target port of the `Pod` object behind the\n"
                "Service."
            ),
            "tlsConfig": _safe_tls(),
        },
        "Endpoint defines an endpoint serving Prometheus metrics to be scraped by\n"
        "Prometheus.",
    )
    spec = obj(
        {
            "attachMetadata": obj(
                {
                    "node": boolean(
                        "When set to true, Prometheus attaches node metadata to the "
                        "discovered\ntargets."
                    )
                },
                "`attachMetadata` defines additional metadata which is added to "
                "the\ndiscovered targets.",
            ),
            "endpoints": array(
                endpoint, "List of endpoints part of this ServiceMonitor."
            ),
            "jobLabel": string(
                "`jobLabel` selects the label from the associated Kubernetes "
                "`Service`\nobject which will be used as the `job` label for all "
                "metrics."
            ),
            "namespaceSelector": obj(
                {
                    "any": boolean(
                        "Boolean describing whether all namespaces are selected in "
                        "contrast to a\nlist restricting them."
                    ),
                    "matchNames": array(
                        string(), "List of namespace names to select from."
                    ),
                },
                "`namespaceSelector` defines in which namespace(s) Prometheus should "
                "discover the services.",
            ),
            "podTargetLabels": array(
                string(),
                "`podTargetLabels` defines the labels which are transferred from "
                "the\nassociated Kubernetes `Pod` object onto the ingested metrics.",
            ),
            "sampleLimit": integer(
                "`sampleLimit` defines a per-scrape limit on the number of scraped "
                "samples\nthat will be accepted.",
                format="int64",
            ),
            "selector": k8s_schema(
                "LabelSelector",
                "Label selector to select the Kubernetes `Endpoints` objects to "
                "scrape metrics from.",
            ),
            "targetLabels": array(
                string(),
                "`targetLabels` defines the labels which are transferred from the\n"
                "associated Kubernetes `Service` object onto the ingested metrics.",
            ),
        },
        "Specification of desired Service selection for target discovery by\n"
        "Prometheus.",
        required=["selector"],
    )
    schema = root(
        "The `ServiceMonitor` custom resource definition (CRD) defines how "
        "`Prometheus` and `PrometheusAgent` can scrape\nmetrics from a group of "
        "services.",
        spec,
        required=["spec"],
    )
    return crd(
        "monitoring.coreos.com",
        "ServiceMonitor",
        "servicemonitors",
        [version("v1", schema)],
        short_names=["smon"],
        categories=["prometheus-operator"],
    )


# -- int-or-string and Quantity maps ---------------------------------------------------
def quota() -> Node:
    spec = obj(
        {
            "hard": {
                "additionalProperties": quantity(),
                "description": "Hard is the set of desired hard limits for each named resource.",
                "type": "object",
            },
            "perNamespace": {
                "additionalProperties": {
                    "additionalProperties": quantity(),
                    "type": "object",
                },
                "description": "Limits per namespace, per resource.",
                "type": "object",
            },
            "ports": {
                "additionalProperties": int_or_string(),
                "description": "Ports by name: a number or a named port.",
                "type": "object",
                "x-kubernetes-map-type": "atomic",
            },
            "rollout": obj(
                {
                    "maxSurge": int_or_string(
                        "The maximum number of pods that can be scheduled above the "
                        "desired number.",
                        default="25%",
                    ),
                    "maxUnavailable": int_or_string(
                        "The maximum number of pods that can be unavailable.",
                        pattern="^[0-9]+%?$",
                    ),
                },
                "How changes roll out.",
            ),
            "scopes": array(
                obj(
                    {
                        "name": string("The scope's name.", minLength=1),
                        "limits": {
                            "additionalProperties": quantity(),
                            "type": "object",
                            "description": "Limits in this scope.",
                        },
                        "weights": array(
                            int_or_string(),
                            "Weights, numbers or percentages.",
                            maxItems=8,
                        ),
                    },
                    "One scope of the quota.",
                    required=["name"],
                ),
                "Scopes the quota applies to.",
                **{
                    "x-kubernetes-list-map-keys": ["name"],
                    "x-kubernetes-list-type": "map",
                },
            ),
        },
        "QuotaSpec is the desired quota.",
    )
    status = obj(
        {
            "used": {
                "additionalProperties": quantity(),
                "description": "Used is the current observed total usage.",
                "type": "object",
            },
        },
        "QuotaStatus is the observed use.",
    )
    schema = root("Quota limits what a tenant may use.", spec, status)
    return crd(
        "quota.example.com",
        "Quota",
        "quotas",
        [version("v1beta1", schema, status=True)],
        scope="Cluster",
    )


# -- list-map keys, CEL and transition rules -------------------------------------------
def gateway() -> Node:
    listener = obj(
        {
            "hostname": string(
                "Hostname specifies the virtual hostname to match.",
                maxLength=253,
                minLength=1,
                pattern=r"^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",
            ),
            "name": string(
                "Name is the name of the Listener.", maxLength=253, minLength=1
            ),
            "port": integer(
                "Port is the network port.", format="int32", maximum=65535, minimum=1
            ),
            "protocol": string(
                "Protocol specifies the network protocol this listener expects.",
                default="HTTP",
                enum=["HTTP", "HTTPS", "TCP"],
            ),
            "tls": obj(
                {
                    "mode": string(
                        "Mode of TLS.",
                        default="Terminate",
                        enum=["Terminate", "Passthrough"],
                    ),
                    "options": {
                        "additionalProperties": string(maxLength=4096, minLength=0),
                        "description": "Options are implementation-specific TLS settings.",
                        "maxProperties": 16,
                        "type": "object",
                    },
                },
                "TLS is the TLS configuration for the Listener.",
                # Node, not a literal: mypy would match a literal's values to required=.
                **Node(
                    {
                        "x-kubernetes-validations": [
                            {
                                "message": "options cannot be set in Passthrough mode",
                                "rule": "self.mode == 'Terminate' || !has(self.options)",
                            }
                        ]
                    }
                ),
            ),
        },
        "Listener embodies the concept of a logical endpoint.",
        required=["name", "port", "protocol"],
        **{
            "x-kubernetes-validations": [
                {
                    "message": "tls must be set for HTTPS",
                    "rule": "self.protocol != 'HTTPS' || has(self.tls)",
                    "reason": "FieldValueRequired",
                    "fieldPath": ".tls",
                }
            ]
        },
    )
    spec = obj(
        {
            "addresses": array(
                string("An address.", maxLength=253),
                "Addresses requested for this Gateway.",
                maxItems=16,
                **{"x-kubernetes-list-type": "set"},
            ),
            "gatewayClassName": string(
                "GatewayClassName used for this Gateway.",
                maxLength=253,
                minLength=1,
                **{
                    "x-kubernetes-validations": [
                        {
                            "message": "gatewayClassName is immutable",
                            "rule": "self == oldSelf",
                        }
                    ]
                },
            ),
            "infrastructure": obj(
                {
                    "labels": {
                        "additionalProperties": string(maxLength=63),
                        "description": "Labels for the resources created.",
                        "maxProperties": 8,
                        "type": "object",
                        "x-kubernetes-map-type": "atomic",
                    }
                },
                "Infrastructure defines infrastructure level attributes.",
                # Node, not a literal: mypy would match a literal's values to required=.
                **Node(
                    {
                        "x-kubernetes-validations": [
                            {
                                "messageExpression": "'labels may be added, not removed'",
                                "optionalOldSelf": True,
                                "rule": "!oldSelf.hasValue() || !has(oldSelf.value().labels) || has(self.labels) && self.labels.size() >= oldSelf.value().labels.size()",
                            }
                        ]
                    }
                ),
            ),
            "listeners": array(
                listener,
                "Listeners associated with this Gateway.",
                maxItems=64,
                minItems=1,
                **{
                    "x-kubernetes-list-map-keys": ["name", "port"],
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-validations": [
                        {
                            "message": "Listener name must be unique within the Gateway",
                            "rule": "self.all(l1, self.exists_one(l2, l1.name == l2.name))",
                        },
                        {
                            "message": "listeners cannot be removed, only added",
                            "rule": "oldSelf.all(o, self.exists(n, n.name == o.name))",
                        },
                    ],
                },
            ),
        },
        "Spec defines the desired state of Gateway.",
        required=["gatewayClassName", "listeners"],
        **{
            "x-kubernetes-validations": [
                {
                    "message": "at most 8 addresses per listener",
                    "rule": "!has(self.addresses) || size(self.addresses) <= 8 * size(self.listeners)",
                }
            ]
        },
    )
    schema = root(
        "Gateway represents an instance of a service-traffic handling infrastructure.",
        spec,
        required=["spec"],
    )
    schema["x-kubernetes-validations"] = [
        {
            "message": "the name must be short",
            "rule": "self.metadata.name.size() <= 63",
        }
    ]
    return crd(
        "gateway.example.com",
        "Gateway",
        "gateways",
        [version("v1", schema)],
        short_names=["gtw"],
    )


# -- several versions ------------------------------------------------------------------
def widget_versions() -> Node:
    def widget(extra: dict[str, Node], description: str) -> Node:
        spec = obj(
            {
                "replicas": integer("Replicas wanted.", format="int32", minimum=0),
                "size": string("Size of a widget.", enum=["small", "large"]),
                **extra,
            },
            description,
        )
        status = obj(
            {
                "readyReplicas": integer("Ready replicas.", format="int32"),
                "selector": string("The label selector of the replicas."),
            },
            "What a widget has.",
        )
        return root("Widget is a widget.", spec, status)

    scale = {
        "scale": {
            "labelSelectorPath": ".status.selector",
            "specReplicasPath": ".spec.replicas",
            "statusReplicasPath": ".status.readyReplicas",
        },
        "status": {},
    }
    return crd(
        "widgets.example.com",
        "Widget",
        "widgets",
        [
            version(
                "v1",
                widget(
                    {
                        "colour": string("The colour, as a CSS name.", maxLength=32),
                        # Without a conversion webhook the server stores every
                        # version as v1: a field only v1beta1 had would be pruned.
                        "color": string("Deprecated: use colour."),
                    },
                    "WidgetSpec of v1.",
                ),
                subresources=scale,
                selectableFields=[{"jsonPath": ".spec.size"}],
                columns=[
                    {
                        "jsonPath": ".spec.replicas",
                        "name": "Replicas",
                        "type": "integer",
                    }
                ],
            ),
            version(
                "v1alpha1",
                widget({}, "WidgetSpec of v1alpha1."),
                served=False,
                storage=False,
            ),
            version(
                "v1beta1",
                widget(
                    {"color": string("The colour (old spelling).")},
                    "WidgetSpec of v1beta1.",
                ),
                storage=False,
                subresources=scale,
                deprecated=True,
                deprecationWarning="example.com/v1beta1 Widget is deprecated; use v1",
            ),
        ],
        short_names=["wd"],
    )


# -- pod templates ---------------------------------------------------------------------
def _runner_spec(template: Node) -> Node:
    return obj(
        {
            "backoffLimit": integer(
                "Retries before giving up.", format="int32", default=6
            ),
            "resources": k8s_schema(
                "ResourceRequirements", "Resources of the runner's own pod."
            ),
            "template": {**template, "description": "The pod that runs the job."},
            "tolerations": array(
                k8s_item("Toleration"), "Tolerations of the runner's pods."
            ),
            "workers": array(
                obj(
                    {
                        "name": string("The group's name."),
                        "replicas": integer(
                            "Workers in the group.", format="int32", minimum=0
                        ),
                        "template": {
                            **template,
                            "description": "The pods of the group.",
                        },
                    },
                    "A group of identical workers.",
                    required=["name", "template"],
                ),
                "Groups of workers.",
                **{
                    "x-kubernetes-list-map-keys": ["name"],
                    "x-kubernetes-list-type": "map",
                },
            ),
        },
        "RunnerSpec is what a Runner runs.",
        required=["template"],
    )


def runner(*, embedded_object_meta: bool = False) -> Node:
    """With `embedded_object_meta`, as `crd:generateEmbeddedObjectMeta=true` writes it."""
    template = k8s_schema("PodTemplateSpec", embedded_object_meta=embedded_object_meta)
    schema = root(
        "Runner runs a job on a pod template.",
        _runner_spec(template),
        obj(
            {"active": integer("Running pods.", format="int32")},
            "RunnerStatus is what runs.",
        ),
    )
    return crd(
        "batch.example.com",
        "Runner",
        "runners",
        [version("v1", schema, status=True)],
    )


_NEWER_POD_FIELDS = (
    "hostUsers",
    "os",
    "resourceClaims",
    "resources",
    "schedulingGates",
)
_NEWER_CONTAINER_FIELDS = ("resizePolicy", "restartPolicy", "restartPolicyRules")


def older_pod_template() -> Node:
    """PodTemplateSpec as an older release had it: some fields, list types,
    map types and defaults later releases added are not there yet."""
    template = k8s_schema("PodTemplateSpec")
    pod = template["properties"]["spec"]
    for name in _NEWER_POD_FIELDS:
        pod["properties"].pop(name, None)
    for list_name in ("containers", "initContainers"):
        container = pod["properties"][list_name]["items"]
        for name in _NEWER_CONTAINER_FIELDS:
            container["properties"].pop(name, None)
        for arguments in ("args", "command"):
            container["properties"][arguments].pop("x-kubernetes-list-type", None)
        ports = container["properties"]["ports"]
        ports.pop("x-kubernetes-list-type", None)
        ports.pop("x-kubernetes-list-map-keys", None)
        ports["items"]["properties"]["protocol"].pop("default", None)
    return template


def older_runner() -> Node:
    schema = root(
        "Runner runs a job on a pod template.",
        _runner_spec(older_pod_template()),
    )
    return crd(
        "batch.example.com",
        "Runner",
        "runners",
        [version("v1", schema)],
    )


TOGETHER = (
    "certificate",
    "service-monitor",
    "quota",
    "gateway",
    "widget-versions",
    "runner",
)
"""The CRDs the tests import together into one project (one module per
group/version), each with a different group."""


def all_crds() -> dict[str, Node]:
    """Every CRD above by name, as the round-trip tests take them."""
    return {
        "certificate": certificate(),
        "service-monitor": service_monitor(),
        "quota": quota(),
        "gateway": gateway(),
        "widget-versions": widget_versions(),
        "runner": runner(),
        "runner-without-descriptions": without_descriptions(runner()),
    }
