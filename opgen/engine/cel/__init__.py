"""CEL as the API server runs it for CRD validation rules.

`facts` holds what opgen knows without a CEL engine (reasons, `oldSelf`,
field-name escaping); `library` Kubernetes' CEL functions; `program`
compiling and running one expression; `rules` checking a node's
`x-kubernetes-validations` against a value.
"""

from __future__ import annotations

from opgen.engine.cel.facts import REASONS, cel_field, uses_old_self

__all__ = ["REASONS", "cel_field", "uses_old_self"]
