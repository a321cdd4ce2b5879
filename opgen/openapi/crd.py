"""CustomResourceDefinitions someone else wrote → the models IR of their kinds.

`crd_documents(text, source)` reads the CRDs in a YAML or JSON text (several
documents, or a `kind: List` as `kubectl get crd -o yaml` prints it), each
with where it came from, so that every error can name the file, the document
and the path. `read_crd(document, versions, module=, recognise=)` reads the
schema of each chosen version into models keyed by path (the root is the
kind), the root carrying the CRD's kind-level facts (`ResourceDecl`): names,
scope, subresources, printer columns, selectable fields, served, storage and
deprecated. `opgen.openapi.naming` then names the classes.

The root's `apiVersion`, `kind` and `metadata` are `op.CustomResource`'s own
fields: they are left out of the models, and a CRD that restricts
`metadata` further (a name pattern, say) gets a warning, since the models do
not check it. Text and data in, IR out: no I/O here.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

import yaml

from opgen.errors import Diagnostic, LoadError, Location, SchemaError
from opgen.model.kinds import (
    KindNames,
    KindVersion,
    PrinterColumn,
    ScaleSubresource,
    SourceRef,
)
from opgen.model.openapi import ModelDecl, ModelRef, ModelSet, ResourceDecl
from opgen.openapi.parse import Placement, Recogniser, read_schema

__all__ = [
    "CRD_API_VERSION",
    "CrdDocument",
    "ImportedVersion",
    "crd_documents",
    "read_crd",
    "yaml_documents",
]

CRD_API_VERSION = "apiextensions.k8s.io/v1"
_BASE_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's loader where PyYAML has it: CRDs of a megabyte and more are common."""
_NOT_IN_GO_YAML = frozenset({"tag:yaml.org,2002:value", "tag:yaml.org,2002:timestamp"})
"""YAML 1.1 types PyYAML resolves plain scalars to that go-yaml (the API
server's reader, through sigs.k8s.io/yaml) leaves strings: a bare `=` (the
`value` type, which PyYAML then cannot construct) and timestamps."""


class _ServerLoader(_BASE_LOADER):  # type: ignore[valid-type,misc]
    """PyYAML's safe loader, reading plain scalars as go-yaml does."""

    yaml_implicit_resolvers = {
        first: [
            (tag, regexp) for tag, regexp in resolvers if tag not in _NOT_IN_GO_YAML
        ]
        for first, resolvers in _BASE_LOADER.yaml_implicit_resolvers.items()
    }


def _number_or_sexagesimal(
    construct: Callable[[yaml.SafeLoader, yaml.ScalarNode], Any],
) -> Callable[[yaml.SafeLoader, yaml.ScalarNode], Any]:
    """YAML 1.1's base-60 numbers (`1:20`) are strings to go-yaml."""

    def constructed(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
        if ":" in str(node.value):
            return loader.construct_scalar(node)
        return construct(loader, node)

    return constructed


for _tag, _construct in (
    ("tag:yaml.org,2002:int", yaml.SafeLoader.construct_yaml_int),
    ("tag:yaml.org,2002:float", yaml.SafeLoader.construct_yaml_float),
):
    _ServerLoader.add_constructor(_tag, _number_or_sexagesimal(_construct))


_LOADER = _ServerLoader
_TYPE_META = ("apiVersion", "kind", "metadata")
_SERVER_METADATA = (
    "creationTimestamp",
    "generation",
    "managedFields",
    "resourceVersion",
    "selfLink",
    "uid",
)


@dataclass(frozen=True)
class CrdDocument:
    """One CustomResourceDefinition, and where it was read from."""

    source: str
    """The file as shown to the user (`-` for standard input)."""
    position: str
    """`document 2`, or `document 1, item 3` inside a List."""
    body: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.body.get("metadata", {}).get("name", ""))

    @property
    def spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = self.body["spec"]
        return spec

    @property
    def group(self) -> str:
        return str(self.spec["group"])

    @property
    def kind(self) -> str:
        return str(self.spec["names"]["kind"])

    @property
    def plural(self) -> str:
        return str(self.spec["names"]["plural"])

    @property
    def version_names(self) -> tuple[str, ...]:
        return tuple(str(v.get("name")) for v in self.spec.get("versions", ()))

    @property
    def where(self) -> str:
        """`file: document 2 (certificates.cert-manager.io)`."""
        named = f" ({self.name})" if self.name else ""
        return f"{self.source}: {self.position}{named}"

    def cleaned(self) -> dict[str, Any]:
        """The CRD without what an API server adds (status, resourceVersion,
        managed fields, ...), as it can be installed again (sharing the rest
        with `body`: read it, do not change it)."""
        body = {k: v for k, v in self.body.items() if k != "status"}
        metadata = body.get("metadata")
        if isinstance(metadata, dict):
            body["metadata"] = {
                k: v for k, v in metadata.items() if k not in _SERVER_METADATA
            }
        return body


@dataclass(frozen=True)
class ImportedVersion:
    """The models of one version of an imported CRD, keyed by path."""

    crd: CrdDocument
    version: str
    module: str
    models: ModelSet
    diagnostics: tuple[Diagnostic, ...] = ()


def crd_documents(text: str, source: str) -> list[CrdDocument]:
    """The CRDs in `text` (YAML or JSON, one or more documents); anything else
    in it is an error naming the document."""
    documents = _parse(text, source)
    found: list[CrdDocument] = []
    for number, document in enumerate(documents, start=1):
        if document is None:
            continue
        position = f"document {number}"
        if isinstance(document, dict) and document.get("kind") == "List":
            items = document.get("items")
            if not isinstance(items, list):
                raise LoadError(
                    f"{source}: {position}: a List without items",
                    hint="give CustomResourceDefinition documents",
                )
            for item_number, item in enumerate(items, start=1):
                found.append(_document(item, source, f"{position}, item {item_number}"))
            continue
        found.append(_document(document, source, position))
    if not found:
        raise LoadError(
            f"{source}: holds no CustomResourceDefinition",
            hint="give a CRD's YAML or JSON (for example from `kubectl get crd NAME -o yaml`)",
        )
    return found


def yaml_documents(text: str) -> list[Any]:
    """The documents of a YAML stream, read as the API server reads YAML."""
    return list(yaml.load_all(text, Loader=_LOADER))


def _parse(text: str, source: str) -> list[Any]:
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            value = json.loads(text)
        except ValueError:
            pass  # flow-style YAML: let YAML say what is wrong
        else:
            return value if isinstance(value, list) else [value]
    try:
        return yaml_documents(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise LoadError(
            f"{source}: not YAML or JSON{line}: {problem}",
            hint="give a CRD's YAML or JSON file",
        ) from None


def _document(value: Any, source: str, position: str) -> CrdDocument:
    where = f"{source}: {position}"
    if not isinstance(value, dict):
        raise LoadError(
            f"{where}: not a CustomResourceDefinition (a {type(value).__name__}, "
            "not an object)",
            hint="give CustomResourceDefinition documents only",
        )
    api_version, kind = value.get("apiVersion"), value.get("kind")
    if kind != "CustomResourceDefinition":
        name = (value.get("metadata") or {}).get("name")
        shown = f"{kind} {name}" if name else repr(kind)
        raise LoadError(
            f"{where}: not a CustomResourceDefinition ({shown})",
            hint="give CustomResourceDefinition documents only; split other "
            "manifests out of the file",
        )
    if api_version != CRD_API_VERSION:
        raise LoadError(
            f"{where}: a CustomResourceDefinition of {api_version!r}; opgen reads "
            f"{CRD_API_VERSION}",
            hint="apiextensions.k8s.io/v1beta1 is not served since Kubernetes "
            "1.22: get the CRD from a cluster (`kubectl get crd NAME -o yaml`) or "
            "a newer release of the project",
        )
    document = CrdDocument(source, position, value)
    _check_shape(document)
    return document


def _check_shape(document: CrdDocument) -> None:
    """The parts of a CRD the import reads, present with the right types (the
    checker of the API server's rules runs on the rest)."""
    where = document.where
    spec = document.body.get("spec")
    if not isinstance(spec, dict):
        raise SchemaError(f"{where}: spec: Required value")
    given = spec.get("names")
    names: dict[str, Any] = given if isinstance(given, dict) else {}
    required = [
        ("spec.group", spec.get("group")),
        ("spec.names.kind", names.get("kind")),
        ("spec.names.plural", names.get("plural")),
    ]
    for key, value in required:
        if not isinstance(value, str) or not value:
            raise SchemaError(f"{where}: {key}: Required value")
    versions = spec.get("versions")
    if not isinstance(versions, list) or not versions:
        raise SchemaError(f"{where}: spec.versions: Required value")
    for index, version in enumerate(versions):
        path = f"spec.versions[{index}]"
        if not isinstance(version, dict) or not isinstance(version.get("name"), str):
            raise SchemaError(f"{where}: {path}.name: Required value")
        schema = (version.get("schema") or {}).get("openAPIV3Schema")
        if not isinstance(schema, dict):
            raise SchemaError(
                f"{where}: {path}.schema.openAPIV3Schema: Required value: version "
                f"{version['name']} has no schema",
                hint="opgen makes models from the schema: import a CRD whose "
                "versions carry openAPIV3Schema",
            )


def read_crd(
    document: CrdDocument,
    versions: Collection[str],
    *,
    module: Callable[[str], str],
    recognise: Callable[[str], Recogniser | None] = lambda version: None,
) -> list[ImportedVersion]:
    """The models of the chosen versions of `document`, each placed in
    `module(version)` and read with `recognise(version)`; the root model of each
    is the kind."""
    spec = document.spec
    names = spec["names"]
    several = len(spec["versions"]) > 1
    read: list[ImportedVersion] = []
    for position, entry in enumerate(spec["versions"]):
        version = str(entry["name"])
        if version not in versions:
            continue
        target = module(version)
        where = f"spec.versions[{position}].schema.openAPIV3Schema"
        schema, diagnostics = _without_type_meta(
            _sorted(entry["schema"]["openAPIV3Schema"]), document, where
        )
        try:
            models = read_schema(
                schema,
                document.kind,
                place=functools.partial(_place, target),
                recognise=recognise(version),
            )
        except SchemaError as error:
            raise SchemaError(
                f"{document.where}: {where} (version {version}): {error.message}",
                location=error.location,
                hint=error.hint,
            ) from None
        resource = _resource(document, entry, names, several)
        read.append(
            ImportedVersion(
                crd=document,
                version=version,
                module=target,
                models=_with_resource(models, document.kind, resource),
                diagnostics=tuple(diagnostics),
            )
        )
    return read


def _sorted(value: Any) -> Any:
    """A copy with every mapping in key order, as the stored copy is written: the
    fields of a model come out in the same order from either."""
    if isinstance(value, dict):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    return value


def _place(module: str, key: str) -> Placement:
    """Every model in the version's module, under its key until it is named."""
    return Placement(module, key)


def _without_type_meta(
    schema: dict[str, Any], document: CrdDocument, where: str
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The root schema without apiVersion, kind and metadata (op.CustomResource's
    own fields); a warning when the CRD restricts metadata beyond `type: object`."""
    diagnostics = []
    properties = schema.get("properties")
    if isinstance(properties, dict):
        metadata = properties.get("metadata")
        if isinstance(metadata, dict) and set(metadata) - {"type", "description"}:
            diagnostics.append(
                Diagnostic(
                    f"{where}.properties.metadata restricts the object's metadata "
                    f"({', '.join(sorted(set(metadata) - {'type', 'description'}))}); "
                    "the imported model does not check it (the API server does)",
                    location=Location(file=document.where),
                )
            )
        schema["properties"] = {
            k: v for k, v in properties.items() if k not in _TYPE_META
        }
    required = [r for r in schema.get("required", ()) if r not in _TYPE_META]
    schema.pop("required", None)
    if required:
        schema["required"] = required
    return schema, diagnostics


_KEPT_ANNOTATIONS = ("api-approved.kubernetes.io",)
"""CRD annotations the API server requires (for a `*.k8s.io` or
`*.kubernetes.io` group), kept on the imported kind so its CRD is again one
the server accepts."""


def _kept_annotations(document: CrdDocument) -> tuple[tuple[str, str], ...]:
    metadata = document.body.get("metadata") or {}
    annotations = metadata.get("annotations") or {}
    return tuple(
        (key, str(annotations[key])) for key in _KEPT_ANNOTATIONS if key in annotations
    )


def _resource(
    document: CrdDocument,
    entry: dict[str, Any],
    names: dict[str, Any],
    several: bool,
) -> ResourceDecl:
    subresources = entry.get("subresources") or {}
    scale = subresources.get("scale")
    return ResourceDecl(
        group=document.group,
        names=KindNames(
            kind=document.kind,
            plural=document.plural,
            singular=str(names.get("singular") or document.kind.lower()),
            list_kind=str(names.get("listKind") or f"{document.kind}List"),
            short_names=tuple(names.get("shortNames") or ()),
            categories=tuple(names.get("categories") or ()),
        ),
        scope="Cluster" if document.spec.get("scope") == "Cluster" else "Namespaced",
        version=KindVersion(
            version=str(entry["name"]),
            source=SourceRef(file=document.source, module="", cls=document.kind),
            served=bool(entry.get("served", True)),
            storage=bool(entry.get("storage", False)),
            deprecated=bool(entry.get("deprecated", False)),
            deprecation_warning=entry.get("deprecationWarning"),
            status_subresource="status" in subresources,
            scale=(
                ScaleSubresource(
                    spec_replicas_path=str(scale["specReplicasPath"]),
                    status_replicas_path=str(scale["statusReplicasPath"]),
                    label_selector_path=scale.get("labelSelectorPath"),
                )
                if isinstance(scale, dict)
                else None
            ),
            printer_columns=tuple(
                PrinterColumn(
                    name=str(column["name"]),
                    type=str(column["type"]),
                    json_path=str(column["jsonPath"]),
                    description=column.get("description"),
                    format=column.get("format"),
                    priority=int(column.get("priority") or 0),
                )
                for column in entry.get("additionalPrinterColumns") or ()
            ),
            selectable_fields=tuple(
                str(item["jsonPath"]) for item in entry.get("selectableFields") or ()
            ),
        ),
        several_versions=several,
        crd_annotations=_kept_annotations(document),
    )


def _with_resource(models: ModelSet, root: str, resource: ResourceDecl) -> ModelSet:
    """The root model as the kind; the descriptions of `spec` and `status` moved
    onto their models, since `op.CustomResource` declares those fields itself."""
    updated = dict(models.models)
    root_model = updated[root]
    for item in root_model.fields:
        shape = item.node.shape
        if (
            item.wire_name in ("spec", "status")
            and isinstance(shape, ModelRef)
            and item.node.description is not None
        ):
            inner: ModelDecl = updated[shape.key]
            updated[shape.key] = dataclasses.replace(
                inner, description=item.node.description
            )
            node = dataclasses.replace(item.node, description=None)
            root_model = dataclasses.replace(
                root_model,
                fields=tuple(
                    dataclasses.replace(f, node=node) if f is item else f
                    for f in root_model.fields
                ),
            )
    updated[root] = dataclasses.replace(root_model, resource=resource)
    return ModelSet(models=updated, aliases=dict(models.aliases))
