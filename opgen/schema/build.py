"""The openAPIV3Schema of one kind version: generate, flatten, wrap the root.

`build_version_schema(model)` runs the whole schema stage for one
`CustomResource` class and returns plain data, the origin of every node (for
the checker's error messages) and warnings. Schemas are cached per class in
the run's `RunContext`: Pydantic does not cache JSON schemas and several
stages ask for the same one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import PydanticUserError
from pydantic.errors import PydanticSchemaGenerationError

from opgen.engine.markers import FLOAT_FLAG, OBJECT_META_FLAG, SchemaNode
from opgen.errors import Diagnostic, Location, OpgenError, SchemaError
from opgen.load.context import RunContext
from opgen.model.kinds import VersionKey, source_file
from opgen.schema.flatten import INTERNAL_KEYS, Flattener
from opgen.schema.generator import KubeJsonSchema
from opgen.schema.options import DEFAULT_OPTIONS, CrdOptions, apply_options

__all__ = [
    "API_VERSION_DESCRIPTION",
    "KIND_DESCRIPTION",
    "VersionSchema",
    "build_version_schema",
    "kind_schemas",
    "model_schema",
]

API_VERSION_DESCRIPTION = (
    "APIVersion defines the versioned schema of this representation of an object.\n"
    "Servers should convert recognized schemas to the latest internal value, and\n"
    "may reject unrecognized values.\n"
    "More info: https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#resources"
)
KIND_DESCRIPTION = (
    "Kind is a string value representing the REST resource this object represents.\n"
    "Servers may infer this from the endpoint the client submits requests to.\n"
    "Cannot be updated.\n"
    "In CamelCase.\n"
    "More info: https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#types-kinds"
)
_TYPE_META_FIELDS = ("apiVersion", "kind", "metadata")


@dataclass(frozen=True)
class VersionSchema:
    """The structural schema of one version, where each node came from, and warnings."""

    schema: SchemaNode
    origins: dict[int, Location]
    diagnostics: tuple[Diagnostic, ...] = field(default=())

    def origin(self, node: object) -> Location | None:
        return self.origins.get(id(node))


def build_version_schema(
    model: type[Any],
    options: CrdOptions = DEFAULT_OPTIONS,
    run: RunContext | None = None,
) -> VersionSchema:
    """The openAPIV3Schema for a CustomResource class (cached in `run` per class and options)."""
    run = RunContext() if run is None else run
    cached: VersionSchema | None = run.schemas.get((model, options))
    if cached is not None:
        return cached
    location = Location(file=source_file(model), cls=model.__qualname__)
    generator = KubeJsonSchema(run)
    try:
        raw = generator.generate(model.__pydantic_core_schema__, mode="validation")
    except OpgenError:
        raise
    except (PydanticUserError, PydanticSchemaGenerationError) as error:
        raise SchemaError(
            f"Pydantic cannot describe this model: {error}",
            location=location,
            hint="use the types docs/markers.md lists under 'Python and Pydantic types'",
        ) from None
    flattened = Flattener(raw, generator).flatten(location)
    root = _wrap_root(flattened.schema, flattened.origins, location)
    _finish(root, flattened.origins, options)
    result = VersionSchema(root, flattened.origins, tuple(flattened.diagnostics))
    run.schemas[(model, options)] = result
    return result


def kind_schemas(
    models: Mapping[VersionKey, type[Any]],
    options: CrdOptions = DEFAULT_OPTIONS,
    run: RunContext | None = None,
) -> dict[VersionKey, VersionSchema]:
    """The schema of every version the loader found (`LoadedKinds.models`), by
    (group, kind, version)."""
    run = RunContext() if run is None else run
    return {
        key: build_version_schema(model, options, run) for key, model in models.items()
    }


def model_schema(
    model: type[Any],
    options: CrdOptions = DEFAULT_OPTIONS,
    run: RunContext | None = None,
) -> SchemaNode:
    """The structural schema of a model wherever a field holds it (no root
    wrapping): what a CRD shows for a field of this type, without the field's
    own description and markers."""
    location = Location(file=source_file(model), cls=model.__qualname__)
    generator = KubeJsonSchema(RunContext() if run is None else run)
    raw = generator.generate(model.__pydantic_core_schema__, mode="validation")
    flattened = Flattener(raw, generator).flatten(location)
    _finish(flattened.schema, flattened.origins, options)
    return flattened.schema


def _wrap_root(
    node: SchemaNode, origins: dict[int, Location], location: Location
) -> SchemaNode:
    """apiVersion and kind as plain strings, metadata as `{type: object}` (the API server owns it)."""
    properties = dict(node.get("properties", {}))
    fixed = {
        "apiVersion": {"description": API_VERSION_DESCRIPTION, "type": "string"},
        "kind": {"description": KIND_DESCRIPTION, "type": "string"},
        "metadata": {"type": "object"},
    }
    for name, value in fixed.items():
        properties[name] = value
        origins[id(value)] = location
    root = {**node, "properties": properties, "type": "object"}
    required = [
        name for name in node.get("required", ()) if name not in _TYPE_META_FIELDS
    ]
    root.pop("required", None)
    if required:
        root["required"] = required
    root.pop("x-kubernetes-map-type", None)
    origins[id(root)] = location
    return root


def _finish(
    root: SchemaNode, origins: dict[int, Location], options: CrdOptions
) -> None:
    """Refuse floats that did not opt in, apply the CRD options, then drop opgen's
    internal keys (in place, once per node: shared nodes are visited once)."""
    seen: set[int] = set()
    stack: list[SchemaNode] = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.get(FLOAT_FLAG):
            raise SchemaError(
                "float fields are refused by default: Go and JSON clients round them "
                "differently and Kubernetes APIs avoid them",
                location=origins.get(id(node)),
                hint="use int or op.Quantity; or opt in with op.Float "
                '(Annotated[float, op.Type("number")])',
            )
        apply_options(node, options)
        for key in (INTERNAL_KEYS | {OBJECT_META_FLAG}) & node.keys():
            del node[key]
        for child in _children(node):
            stack.append(child)


def _children(node: SchemaNode) -> list[SchemaNode]:
    children: list[SchemaNode] = []
    properties = node.get("properties")
    if isinstance(properties, dict):
        children.extend(v for v in properties.values() if isinstance(v, dict))
    for key in ("items", "additionalProperties", "not"):
        value = node.get(key)
        if isinstance(value, dict):
            children.append(value)
    for key in ("anyOf", "allOf", "oneOf"):
        value = node.get(key)
        if isinstance(value, list):
            children.extend(v for v in value if isinstance(v, dict))
    return children
