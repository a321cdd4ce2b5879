"""The schema stage: Pydantic models → Kubernetes structural schemas, and the checker.

Pipeline per kind version (see `build`): `generator.KubeJsonSchema` makes
Pydantic's JSON schema with Kubernetes type mappings and records markers;
`flatten.Flattener` inlines references, applies markers and cleans nodes;
`build` wraps the root. `check` enforces the API server's structural-schema and
CRD validation rules on a whole CRD before anything is written.
"""

from opgen.schema.build import VersionSchema, build_version_schema

__all__ = ["VersionSchema", "build_version_schema"]
