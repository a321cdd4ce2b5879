"""opgen's engine: rules and machinery several stages share. Internal, not a public API.

Nothing here is for types files or reconcilers (they import `opgen.api`), and
names may change between releases. `opgen.api`, `opgen.load`,
`opgen.schema`, `opgen.project`, `opgen.render` and `opgen.runtime` import
these modules directly; the package itself re-exports nothing, so importing
one module (say `naming`, which needs no Pydantic) stays cheap. The engine
imports no generator stage, nor typer, jinja2 or black; it sits below
`opgen.api` and above the plain-data IR (`opgen.model`).

Kubernetes' and Go's rules, as plain functions:

- `naming`: plurals, camelCase wire names, DNS-1123/1035 name rules.
- `duration`: Go duration strings to and from `timedelta`.
- `goregex`: Go RE2 regular expressions in Python, and what RE2 refuses.
- `openapi`: the API server's OpenAPI types and formats, and the format checks.
- `values`: a port of kube-openapi's value validators.
- `wire`: a Python value in the form it travels to the API server.
- `cel`: CEL facts (rule reasons, transition rules, escaped field names).

The marker machinery the user-facing markers are built on:

- `markers`: `Marker`, `Placement`, `MarkerContext`, `SchemaNode`,
  `MarkerCollector`, `FLOAT_FLAG`.
- `kinds`: the kind-level markers `@op.kind` and its siblings record,
  `KindMarkers`, `ResourceInfo`.
- `recording`: where decorators keep what they record on a class.
- `reading`: the one protocol for reading markers off a model (a field's, a
  type's, a kind's, a reconciler's RBAC rules); see its docstring and
  docs/architecture.md.
- `registry`: `MarkerRegistry`, a closed set of marker classes (opgen's own
  set is `opgen.api.registry.default_registry()`).
"""
