"""The IR of `opgen.api.k8s`: Kubernetes' own types, as controller-gen writes them.

`kubernetes_models(documents, go_types)` reads the definitions reachable from
`ROOTS` in the API server's `/openapi/v3` documents and shapes them the way
controller-gen writes the same Go types into a CRD:

- `KNOWN` types become opgen's value types (`ObjectMeta`, `Time`, `Quantity`,
  `IntOrString`, ...; `Condition` and the object references, whose schemas
  opgen writes by hand with controller-gen's output);
- what the server adds for other clients is left out: strategic-merge-patch
  keys, group-version-kind tags, union discriminators, and the `enum` lists and
  "Possible enum values" paragraphs of `+enum` types (controller-gen ignores
  that marker);
- defaults come from the Go declarations (`go_types`, one mapping of type name
  → `GoType` per Go package): a `+default=` value is written; the zero values
  openapi-gen adds to non-pointer fields and `+default=ref(...)` values are
  not, as controller-gen writes neither;
- `required` follows the Go markers and `omitempty` as controller-gen reads
  them, and `+kubebuilder:validation:` markers (which openapi-gen ignores)
  are applied;
- a struct that embeds an atomic struct (`json:",inline"`) is atomic itself;
- a documented named scalar (`type Capability string`) becomes an alias of
  that name, which carries the type's documentation where the schema shows
  it (list items, map values, fields without their own).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from opgen.errors import SchemaError
from opgen.model.kinds import BuiltinResource
from opgen.model.openapi import (
    NO_DEFAULT,
    AliasDecl,
    FieldDecl,
    ListOf,
    MapOf,
    ModelDecl,
    ModelRef,
    ModelSet,
    Node,
    Scalar,
)
from opgen.openapi.gotypes import (
    GoType,
    doc_text,
    go_default,
    go_required,
    go_validations,
    inner_type,
)
from opgen.openapi.parse import Placement, read_components

__all__ = [
    "GROUP_VERSIONS",
    "KNOWN",
    "PACKAGE",
    "ROOTS",
    "discovered_kinds",
    "discovery_path",
    "document_paths",
    "go_package",
    "kubernetes_models",
    "merged_definitions",
    "placement",
]

PACKAGE = "opgen.api.k8s"

_CORE = "io.k8s.api.core.v1."
_META = "io.k8s.apimachinery.pkg.apis.meta.v1."
_EXTENSIONS = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1."
_JSON_VALUES = (
    "JSON",
    "JSONSchemaPropsOrArray",
    "JSONSchemaPropsOrBool",
    "JSONSchemaPropsOrStringArray",
)

ROOTS: tuple[str, ...] = (
    *(
        _CORE + name
        for name in (
            "PodTemplateSpec",
            "PodSpec",
            "Service",
            "ServiceSpec",
            "ServiceStatus",
            "PersistentVolumeClaim",
            "PersistentVolumeClaimSpec",
            "ResourceRequirements",
            "Toleration",
            "Affinity",
            "EnvVar",
            "EnvFromSource",
            "VolumeMount",
            "Volume",
            "SecurityContext",
            "PodSecurityContext",
            "Probe",
            "ContainerPort",
            "ServicePort",
            "LocalObjectReference",
            "ObjectReference",
            "SecretKeySelector",
            "ConfigMapKeySelector",
            "TypedLocalObjectReference",
        )
    ),
    *(_META + name for name in ("LabelSelector", "Condition", "Time", "Duration")),
    "io.k8s.api.apps.v1.DeploymentSpec",
    "io.k8s.api.apps.v1.DeploymentStrategy",
    "io.k8s.api.apps.v1.StatefulSetSpec",
    "io.k8s.api.apps.v1.StatefulSetUpdateStrategy",
    "io.k8s.api.batch.v1.JobSpec",
    "io.k8s.api.batch.v1.JobTemplateSpec",
    "io.k8s.api.policy.v1.PodDisruptionBudgetSpec",
    "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec",
    "io.k8s.api.networking.v1.IngressSpec",
    "io.k8s.api.networking.v1.NetworkPolicySpec",
)
"""The types `opgen.api.k8s` promises beside the kinds of `GROUP_VERSIONS`; it
holds every type they reach."""

GROUP_VERSIONS: tuple[str, ...] = (
    "v1",
    "apps/v1",
    "batch/v1",
    "autoscaling/v2",
    "policy/v1",
    "networking.k8s.io/v1",
    "rbac.authorization.k8s.io/v1",
    "coordination.k8s.io/v1",
    "events.k8s.io/v1",
    "storage.k8s.io/v1",
    "admissionregistration.k8s.io/v1",
    "apiextensions.k8s.io/v1",
    "authentication.k8s.io/v1",
    "authorization.k8s.io/v1",
    "apiregistration.k8s.io/v1",
    "certificates.k8s.io/v1",
    "discovery.k8s.io/v1",
    "flowcontrol.apiserver.k8s.io/v1",
    "node.k8s.io/v1",
    "resource.k8s.io/v1",
    "scheduling.k8s.io/v1",
)
"""The API group/versions whose kinds (every resource the server's discovery
lists, with its facts) `opgen.api.k8s` holds: what a reconciler reads or
writes, and every group `create api --no-resource` scaffolds a controller
for (`opgen.project.coregroups.CORE_GROUPS`)."""

KNOWN: dict[str, str] = {
    "io.k8s.apimachinery.pkg.api.resource.Quantity": "Quantity",
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": "IntOrString",
    "io.k8s.apimachinery.pkg.runtime.RawExtension": "RawExtension",
    _META + "ObjectMeta": "ObjectMeta",
    _META + "Time": "Time",
    _META + "MicroTime": "MicroTime",
    _META + "Duration": "Duration",
    _META + "Condition": "Condition",
    _META + "OwnerReference": "OwnerReference",
    _CORE + "ObjectReference": "ObjectReference",
    _CORE + "LocalObjectReference": "LocalObjectReference",
    # JSON values (a schema, or a bool or list in its place) the OpenAPI leaves untyped
    **{_EXTENSIONS + name: "JSON" for name in _JSON_VALUES},
}
"""Definitions that are value types of `opgen.api` (by their name there)."""

_IGNORED = (
    "x-kubernetes-patch-strategy",
    "x-kubernetes-patch-merge-key",
    "x-kubernetes-group-version-kind",
    "x-kubernetes-unions",
    "discriminator",
    "enum",
)
_ENUM_PARAGRAPH = "\n\nPossible enum values:\n"


def placement(key: str) -> Placement:
    """`io.k8s.api.core.v1.Container` → `opgen.api.k8s.core_v1.Container`."""
    *package, version, name = key.split(".")
    return Placement(module=f"{PACKAGE}.{package[-1]}_{version}", name=name)


def go_package(key: str) -> str:
    """The Go package of a definition: `io.k8s.api.core.v1.Container` →
    `k8s.io/api/core/v1`."""
    parts = key.split(".")
    if parts[:2] != ["io", "k8s"]:
        raise SchemaError(f"{key} is not a Kubernetes definition (io.k8s....)")
    return "k8s.io/" + "/".join(parts[2:-1])


def discovery_path(group_version: str) -> str:
    """Where the server describes `group_version`: `v1` → `api/v1`, `apps/v1` →
    `apis/apps/v1` (under `/` for discovery, under `/openapi/v3/` for schemas)."""
    return (
        f"api/{group_version}" if "/" not in group_version else f"apis/{group_version}"
    )


def _api_group(go_group: str) -> str:
    """The API group of a Go package's group name: `core` → "", `rbac` →
    `rbac.authorization.k8s.io` (the group of `GROUP_VERSIONS` it names)."""
    if go_group == "core":
        return ""
    for group_version in GROUP_VERSIONS:
        group = group_version.rpartition("/")[0]
        if group.split(".")[0] == go_group:
            return group
    raise SchemaError(
        f"no API group of GROUP_VERSIONS belongs to the Go package group {go_group}",
        hint="add its group/version to opgen.openapi.kubernetes.GROUP_VERSIONS",
    )


def document_paths(roots: Iterable[str] = ROOTS) -> tuple[str, ...]:
    """The `/openapi/v3/...` documents that define `roots` and the kinds of
    `GROUP_VERSIONS`: `api/v1`, `apis/apps/v1`, ..."""
    paths = {discovery_path(gv) for gv in GROUP_VERSIONS}
    for key in roots:
        package = go_package(key)
        if package.startswith("k8s.io/apimachinery/"):
            continue  # shared definitions: every document carries them
        go_group, version = package.split("/")[-2:]
        group = _api_group(go_group)
        paths.add(discovery_path(f"{group}/{version}" if group else version))
    return tuple(sorted(paths))


def discovered_kinds(
    discovery: Mapping[str, Mapping[str, Any]],
    documents: Mapping[str, Mapping[str, Any]],
) -> dict[str, BuiltinResource]:
    """The definition of each kind the server's discovery lists, with its facts.

    `discovery`: the APIResourceList the server answers at `/api/v1`,
    `/apis/apps/v1`, ... by group/version; `documents`: the `/openapi/v3`
    documents, whose `x-kubernetes-group-version-kind` tags name the
    definition of each kind."""
    definition_of: dict[tuple[str, str, str], str] = {}
    for document in documents.values():
        for key, schema in document.get("components", {}).get("schemas", {}).items():
            for tag in schema.get("x-kubernetes-group-version-kind", ()):
                gvk = (tag.get("group", ""), tag["version"], tag["kind"])
                definition_of.setdefault(gvk, key)
    kinds: dict[str, BuiltinResource] = {}
    for group_version, listing in sorted(discovery.items()):
        group, _, version = group_version.rpartition("/")
        resources = listing.get("resources", ())
        subresources: dict[str, list[str]] = {}
        for item in resources:
            plural, _, sub = item["name"].partition("/")
            if sub:
                subresources.setdefault(plural, []).append(sub)
        for item in resources:
            if "/" in item["name"]:
                continue
            key = definition_of.get((group, version, item["kind"]))
            if key is None:
                raise SchemaError(
                    f"{group_version} {item['kind']}: no /openapi/v3 definition "
                    "carries its group-version-kind"
                )
            kinds[key] = BuiltinResource(
                group=group,
                version=version,
                kind=item["kind"],
                plural=item["name"],
                namespaced=bool(item["namespaced"]),
                subresources=tuple(sorted(subresources.get(item["name"], ()))),
            )
    return kinds


def merged_definitions(
    documents: Mapping[str, Mapping[str, Any]],
) -> dict[str, dict[str, Any]]:
    """`components.schemas` of several documents, which repeat shared definitions
    (ObjectMeta, ...): a definition that differs between documents (apart from
    the group-version-kinds each document lists) is an error."""
    merged: dict[str, dict[str, Any]] = {}
    origin: dict[str, str] = {}
    for path, document in sorted(documents.items()):
        schemas = document.get("components", {}).get("schemas", {})
        for key, given in schemas.items():
            schema = {
                k: v for k, v in given.items() if k != "x-kubernetes-group-version-kind"
            }
            if key in merged and merged[key] != schema:
                raise SchemaError(
                    f"/openapi/v3/{path} and /openapi/v3/{origin[key]} define {key} differently"
                )
            merged.setdefault(key, schema)
            origin.setdefault(key, path)
    return merged


def kubernetes_models(
    definitions: Mapping[str, Mapping[str, Any]],
    go_types: Mapping[str, Mapping[str, GoType]],
    roots: Iterable[str] = ROOTS,
    kinds: Mapping[str, BuiltinResource] | None = None,
) -> ModelSet:
    """The models of `opgen.api.k8s`, shaped as controller-gen writes the Go types;
    the definitions of `kinds` are roots too and carry their resource facts."""
    kinds = kinds or {}
    read = read_components(
        {key: dict(value) for key, value in definitions.items()},
        [*roots, *sorted(set(kinds) - set(roots))],
        place=placement,
        known=KNOWN,
        ignore=_IGNORED,
    )
    shaped = _Shaper(read, go_types).shaped()
    models = {
        key: dataclasses.replace(model, builtin=kinds.get(key))
        for key, model in shaped.models.items()
    }
    return dataclasses.replace(shaped, models=models)


class _Shaper:
    def __init__(
        self, read: ModelSet, go_types: Mapping[str, Mapping[str, GoType]]
    ) -> None:
        self.read = read
        self.go_types = go_types
        self.aliases: dict[str, AliasDecl] = {}

    def go_type(self, key: str) -> GoType:
        package = go_package(key)
        name = key.rsplit(".", 1)[-1]
        found = self.go_types.get(package, {}).get(name)
        if found is None:
            raise SchemaError(
                f"{key}: no Go declaration of {name} in {package}",
                hint="give the Go sources of the same Kubernetes release as the API server",
            )
        return found

    def shaped(self) -> ModelSet:
        models = {key: self.model(model) for key, model in self.read.models.items()}
        return ModelSet(models=models, aliases=dict(sorted(self.aliases.items())))

    def model(self, model: ModelDecl) -> ModelDecl:
        go = self.go_type(model.key)
        fields = []
        for item in model.fields:
            go_field = go.field(item.wire_name) or self.embedded_field(
                go_package(model.key), go, item.wire_name
            )
            if go_field is None:
                raise SchemaError(
                    f"{model.key}.{item.wire_name}: no such field in the Go type "
                    f"{go.name}"
                )
            fields.append(self.field(model, item, go_field, go))
        facts = dict(model.facts)
        if "x-kubernetes-map-type" not in facts:
            atomic = self.inline_map_type(model.key, go)
            if atomic is not None:
                facts["x-kubernetes-map-type"] = atomic
        return dataclasses.replace(
            model,
            description=_without_enum_paragraph(model.description),
            fields=tuple(fields),
            facts=tuple(sorted(facts.items())),
            source=f"{go_package(model.key)}.{go.name}",
        )

    def embedded_field(self, package: str, go: GoType, json_name: str) -> Any:
        """A field promoted from an inline embed (`LocalObjectReference`'s `name`)."""
        for embed in go.fields or ():
            inner = self.local_type(package, embed.type, go) if embed.inline else None
            if inner is None:
                continue
            inner_package = (
                go.package_of(embed.type.lstrip("*").split(".")[0])
                if "." in embed.type
                else package
            ) or package
            found = inner.field(json_name) or self.embedded_field(
                inner_package, inner, json_name
            )
            if found is not None:
                return found
        return None

    def local_type(
        self, package: str, go_type: str, owner: GoType | None = None
    ) -> GoType | None:
        """The declaration of a type named in `package` (a qualified name such as
        `metav1.TypeMeta` through the imports of `owner`'s file)."""
        name = go_type.lstrip("*")
        if "." in name:
            qualifier, name = name.split(".", 1)
            found = owner.package_of(qualifier) if owner is not None else None
            if found is None:
                return None
            package = found
        return self.go_types.get(package, {}).get(name)

    def inline_map_type(self, key: str, go: GoType) -> str | None:
        for embed in go.fields or ():
            if not embed.inline or "." in embed.type:
                continue
            inner_key = key.rsplit(".", 1)[0] + "." + embed.type.lstrip("*")
            inner = self.read.models.get(inner_key)
            if inner is not None:
                value = inner.fact("x-kubernetes-map-type")
            else:
                value = _struct_type(self.go_type(inner_key))
            if value is not None:
                return str(value)
        return None

    def field(
        self, model: ModelDecl, item: FieldDecl, go_field: Any, go: GoType
    ) -> FieldDecl:
        where = f"{model.key}.{item.wire_name}"
        default = go_default(go_field)
        node = item.node
        if default is not None:
            if node.default is not NO_DEFAULT and node.default != default.value:
                raise SchemaError(
                    f"{where}: the OpenAPI default {node.default!r} and the Go "
                    f"marker's {default.value!r} differ"
                )
            node = dataclasses.replace(node, default=default.value)
        else:
            node = dataclasses.replace(node, default=NO_DEFAULT)
        validations = go_validations(go_field)
        if validations:
            facts = dict(node.facts)
            facts.update(validations)
            node = dataclasses.replace(node, facts=tuple(sorted(facts.items())))
        node = self.node(node, model.key, go_field.type, top=True)
        return dataclasses.replace(item, node=node, required=go_required(go_field))

    def node(self, node: Node, key: str, go_type: str, *, top: bool) -> Node:
        """Drop the zero defaults of nested nodes, strip enum paragraphs, and
        type documented named scalars by their aliases."""
        shape = node.shape
        if isinstance(shape, ListOf | MapOf):
            inner = inner_type(self.underlying(go_package(key), go_type))
            if isinstance(shape, ListOf):
                shape = ListOf(self.node(shape.item, key, inner, top=False))
            else:
                shape = MapOf(self.node(shape.value, key, inner, top=False))
        node = dataclasses.replace(
            node,
            shape=shape,
            description=_without_enum_paragraph(node.description),
            default=node.default if top else NO_DEFAULT,
        )
        if not isinstance(shape, ListOf) and node.fact("x-kubernetes-list-type"):
            # A `+listType` on a `[]byte` field (APIServiceSpec.caBundle): the
            # server's OpenAPI keeps it on the string, controller-gen drops it.
            facts = [(k, v) for k, v in node.facts if k != "x-kubernetes-list-type"]
            node = dataclasses.replace(node, facts=tuple(facts))
        if isinstance(shape, Scalar):
            alias = self.alias(key, go_type)
            if alias is not None:
                return dataclasses.replace(node, shape=ModelRef(alias.key))
        return node

    def underlying(self, package: str, go_type: str) -> str:
        """A named slice or map type's definition (`ResourceList` →
        `map[ResourceName]resource.Quantity`); any other type as it is."""
        declared = self.local_type(package, go_type)
        if declared is not None and declared.underlying is not None:
            return declared.underlying
        return go_type

    def alias(self, key: str, go_type: str) -> AliasDecl | None:
        name = go_type.lstrip("*")
        if "." in name or name.startswith(("[]", "map[")):
            return None
        package_key = key.rsplit(".", 1)[0]
        alias_key = f"{package_key}.{name}"
        declared = self.go_types.get(go_package(key), {}).get(name)
        if declared is None or declared.underlying is None:
            return None
        description = doc_text(declared.doc)
        if description is None or declared.underlying not in _GO_SCALARS:
            return None
        if alias_key not in self.aliases:
            scalar, fmt = _GO_SCALARS[declared.underlying]
            self.aliases[alias_key] = AliasDecl(
                key=alias_key,
                name=name,
                module=placement(alias_key).module,
                node=Node(Scalar(scalar, fmt), description=description),
                source=f"{go_package(key)}.{name}",
            )
        return self.aliases[alias_key]


_GO_SCALARS: dict[str, tuple[Any, str | None]] = {
    "string": ("string", None),
    "bool": ("boolean", None),
    "int32": ("integer", "int32"),
    "int64": ("integer", "int64"),
}


def _struct_type(go: GoType) -> str | None:
    for marker in go.markers:
        if marker.startswith("+structType="):
            return marker.removeprefix("+structType=")
    return None


def _without_enum_paragraph(text: str | None) -> str | None:
    if text is None or _ENUM_PARAGRAPH not in text:
        return text
    return text.split(_ENUM_PARAGRAPH, 1)[0]
