"""A test session's models made ready at its start, not in its first tests.

Pydantic builds the validator of each `op.k8s` class when the class is first
used (`opgen.api`'s `BuiltinModel`: importing them is most of an operator's
start-up), and the client builds a kind's decoder when it first decodes one.
Both are paid once a process, by whichever test first uses the class: in
the example's controller tests, 0.05 to 0.1 s of CPU in the test that first
builds a pod spec itself. The same holds for what a kind's first validation
with its CEL rules reads, class by class, and for its CEL programs (`opgen.api.preparing`'s
`prepare_rules`; in the example, 0.03 to 0.05 s in the first test that
validates a sample).
opgen's pytest plugin calls `prepare_models` when
a backend starts (the `envtest` and `memory_session` fixtures, alike), with
the modules that name the classes the tests will use: the collected test
modules and the project's own package. Only the classes those modules name
are built, not the types they nest (a Deployment's validator holds its pod
template's; building that class alone costs as much again).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable
from types import ModuleType

from pydantic import ValidationError

from opgen.errors import OpgenError

__all__ = ["prepare_models", "project_modules"]


def project_modules(package: str | None) -> list[ModuleType]:
    """The modules of `package` imported so far (none without a package)."""
    if not package:
        return []
    prefix = f"{package}."
    return [
        module
        for name, module in list(sys.modules.items())
        if module is not None and (name == package or name.startswith(prefix))
    ]


def prepare_models(modules: Iterable[ModuleType]) -> int:
    """Build the validators of the opgen models the `modules` name, their rule
    walks, and the client's decoders of those that are kinds; returns how many
    models."""
    from opgen import api as op

    seen: set[type] = set()
    for module in modules:
        for value in list(vars(module).values()):
            fresh = isinstance(value, type) and value not in seen
            if fresh and issubclass(value, op.Model):
                seen.add(value)
                _prepare(value)
    return len(seen)


def _prepare(cls: type[object]) -> None:
    from opgen.api.preparing import prepare_rules
    from opgen.runtime.resources import resource_type

    if getattr(cls, "__pydantic_complete__", True) is False:
        cls.model_rebuild(raise_errors=False)  # type: ignore[attr-defined]
    prepare_rules(cls)
    try:
        kind = resource_type(cls)
    except (TypeError, OpgenError):  # not a kind (a nested type, a generic base)
        return
    # a decode builds the decoder; whether this near-empty object is valid is no matter
    with contextlib.suppress(ValidationError, ValueError, TypeError):
        kind.decode_dict(
            {
                "apiVersion": kind.api_version,
                "kind": kind.kind,
                "metadata": {"name": "prepared"},
            }
        )
