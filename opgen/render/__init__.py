"""The render stage: file values from the IR and the PROJECT record; it never writes.

- `crd`: CustomResourceDefinitions as data, checked, dumped by `yaml` the way
  controller-gen formats them;
- `rbac`: `config/rbac/role.yaml` from `op.rbac` markers (read back with
  `opgen.engine.reading.rbac_rules`), with controller-gen's merge rules;
- `views`: the data of every template in `opgen/templates/`, as frozen
  dataclasses (`project`, `resource`, a client `module`); templates only loop,
  substitute and test the views' flags;
- `client`: the typed-client modules;
- `models`: modules of `op.Model` classes from the reverse stage's IR
  (`op.k8s`, and the kinds `opgen import crd` imports), `core_types` the
  `op.k8s` package, `imported` the modules, clients and packages of imported
  kinds;
- `scaffold`: what `init`, `create api` and `delete api` write, from the
  templates and `views`; `wiring` computes the lines between scaffold markers;
  `templating` renders and black-formats;
- `generate`: everything `opgen generate` produces for a project; which of the
  files an earlier run wrote go is `opgen.project.removal`'s decision.

Every function returns `opgen.write.File` values; the CLI plans and applies them.
"""
