"""The render stage: file values from the IR and the PROJECT record; it never writes.

- `crd`: CustomResourceDefinitions as data, checked, dumped by `yaml` the way
  controller-gen formats them;
- `rbac`: `config/rbac/role.yaml` from `op.rbac` markers (read back with
  `opgen.engine.reading.rbac_rules`), with controller-gen's merge rules;
- `client`: the typed-client modules;
- `scaffold`: what `init` and `create api` write, from the templates in
  `opgen/templates/` and the view-models of `views`; `wiring` computes the
  lines between scaffold markers; `templating` renders and black-formats;
- `generate`: everything `opgen generate` produces for a project, and what it
  removes.

Every function returns `opgen.write.File` values; the CLI plans and applies them.
"""
