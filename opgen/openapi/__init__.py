"""The reverse direction: OpenAPI schemas → the models IR (`opgen.model.openapi`).

- `read_components(...)` reads the `components.schemas` of `/openapi/v3`
  documents from a set of root definitions, following `$ref`s;
- `read_schema(...)` reads one inline schema (a CRD's `openAPIV3Schema`),
  making a model of every object node with properties;
- `opgen.openapi.kubernetes` builds the IR of `opgen.api.k8s` from the API
  server's documents and the Go sources of `k8s.io/api`, shaped as
  controller-gen writes the same Go types;
- `opgen.openapi.crd` reads other projects' CRDs (`opgen import crd`) into
  models keyed by path, and `opgen.openapi.naming` gives those their class
  names.

Text and data in, IR out: no I/O here. `opgen.render.models` writes the IR as
Python modules.
"""

from opgen.openapi.parse import (
    Placement,
    Recognised,
    Recogniser,
    SchemaReader,
    read_components,
    read_schema,
    snake_case,
)

__all__ = [
    "Placement",
    "Recognised",
    "Recogniser",
    "SchemaReader",
    "read_components",
    "read_schema",
    "snake_case",
]
