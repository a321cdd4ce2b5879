"""The schema stage: Pydantic models → Kubernetes structural schemas, and the checker.

Pipeline per kind version (see `build`): `generator.KubeJsonSchema` makes
Pydantic's JSON schema with Kubernetes type mappings and records markers;
`flatten.Flattener` inlines references, applies markers and cleans nodes;
`build` wraps the root. `check` enforces the API server's structural-schema and
CRD validation rules on a whole CRD before anything is written. `catalogue`
recognises the schemas of `op.k8s` types in other projects' CRDs (`opgen
import crd`).

Markers reach this stage only through `opgen.engine.reading`'s protocol: field
markers are handed to `KubeJsonSchema.attach_marker` (a `MarkerCollector`)
while Pydantic generates, type markers come from `type_markers(cls)`, and
`annotated` refuses metadata outside `opgen.api.registry`. The rules the
checker ports (formats, Go regexes, value validation, CEL reasons, names) are
the engine's too (`opgen.engine.openapi`, `goregex`, `values`, `cel`,
`naming`), shared with the models' own enforcement.
"""

from opgen.schema.build import VersionSchema, build_version_schema, kind_schemas

__all__ = ["VersionSchema", "build_version_schema", "kind_schemas"]
