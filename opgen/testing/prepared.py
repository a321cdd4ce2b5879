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
template's; building that class alone costs as much again), and the `op.k8s`
classes their code reads (`op.k8s.ServicePort(...)` in a function: the
names its code reads, in a module that holds `opgen.api`). `RUNTIME_KINDS`,
the kinds the runtime writes itself (an `EventRecorder`'s Events), are
prepared with them.

`prepare_runtime` loads the parts of `opgen.runtime` the same modules name
(`rt.status`, `rt.create_or_update`), which the runtime loads at their first
use, that is in the first test that reconciles.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterable, Iterator
from types import CodeType, ModuleType

from pydantic import BaseModel, ValidationError

from opgen.errors import OpgenError

__all__ = [
    "RUNTIME_KINDS",
    "named_models",
    "prepare_models",
    "prepare_runtime",
    "project_modules",
    "runtime_kinds",
]

RUNTIME_KINDS = (("opgen.api.k8s.events_v1", "Event"),)
"""The kinds the runtime writes itself, by module and name (imported when prepared)."""


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
    models (`RUNTIME_KINDS` not counted)."""
    named = named_models(modules)
    for model in [*named, *(m for m in runtime_kinds() if m not in named)]:
        _prepare(model)
    return len(named)


def named_models(modules: Iterable[ModuleType]) -> list[type[BaseModel]]:
    """The opgen models the `modules` name, each once, in the order met: those
    they hold, and the `op.k8s` ones their code reads from `opgen.api` or
    `opgen.api.k8s` (`op.k8s.ServicePort(...)` in a function)."""
    from opgen import api as op
    from opgen.api import k8s

    seen: dict[type[BaseModel], None] = {}
    for module in modules:
        held = list(vars(module).values())
        read = _names_read(module, (op, k8s)) & set(k8s.__all__)
        for value in [*held, *(getattr(k8s, name) for name in sorted(read))]:
            if isinstance(value, type) and issubclass(value, op.Model):
                seen.setdefault(value)
    return list(seen)


def runtime_kinds() -> list[type[BaseModel]]:
    """`RUNTIME_KINDS`' classes."""
    return [getattr(importlib.import_module(m), n) for m, n in RUNTIME_KINDS]


def prepare_runtime(modules: Iterable[ModuleType]) -> set[str]:
    """Load what the `modules` name of `opgen.runtime`'s surface that it loads
    at first use (a name their functions and methods read, in a module that
    holds `opgen.runtime`); returns those names."""
    import opgen.runtime as rt

    lazy = rt._SUBMODULES | rt._EXPORTS.keys()
    names: set[str] = set()
    for module in modules:
        names |= _names_read(module, (rt,)) & lazy
    for name in sorted(names):
        getattr(rt, name)
    return names


def _names_read(module: ModuleType, holders: tuple[ModuleType, ...]) -> set[str]:
    """The attribute and global names the functions and methods of `module`
    read (their code's `co_names`), when it holds one of `holders`."""
    members = list(vars(module).values())
    if not any(value is holder for value in members for holder in holders):
        return set()
    names: set[str] = set()
    for code in _codes(members, module.__name__):
        names.update(code.co_names)
    return names


def _codes(members: Iterable[object], module: str) -> Iterator[CodeType]:
    """The code of the functions and methods among `members` defined in
    `module`, with the code nested in them (closures, comprehensions)."""
    for value in members:
        if isinstance(value, type) and value.__module__ == module:
            yield from _codes(list(vars(value).values()), module)
            continue
        function = getattr(value, "__func__", value)  # a class or static method
        code = getattr(function, "__code__", None)
        if isinstance(code, CodeType) and function.__module__ == module:
            yield from _nested(code)


def _nested(code: CodeType) -> Iterator[CodeType]:
    yield code
    for constant in code.co_consts:
        if isinstance(constant, CodeType):
            yield from _nested(constant)


def _prepare(cls: type[object]) -> None:
    from opgen.api.preparing import prepare_rules, settle_checks
    from opgen.runtime.resources import resource_type

    if getattr(cls, "__pydantic_complete__", True) is False:
        cls.model_rebuild(raise_errors=False)  # type: ignore[attr-defined]
    settle_checks(cls)
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
