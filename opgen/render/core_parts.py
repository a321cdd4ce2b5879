"""core/v1 split into part modules along what its kinds reach.

`op.k8s.ConfigMap` should not make the hundred classes of a PodSpec. So the
classes of core/v1 are written into part modules: the roots are core/v1's
kinds and every core/v1 class another group's module refers to; a class's
signature is the set of roots that reach it, and each distinct signature is
one part. A class refers only to classes whose signature holds its own, so a
part imports only parts of strictly larger signatures, never back: a program
creates the classes of the parts it uses and of the parts those refer to.
`opgen.api.k8s.core_v1` stays the public module, loading a name's part when
the name is first used.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass

from opgen.engine.naming import pluralize, split_words
from opgen.errors import SchemaError
from opgen.model.openapi import AliasDecl, ModelDecl, ModelRef, ModelSet, walk

__all__ = ["CoreParts", "split_core"]

_Decl = ModelDecl | AliasDecl


@dataclass(frozen=True)
class CoreParts:
    """The set with core/v1's classes and aliases moved into their parts."""

    models: ModelSet
    homes: dict[str, str]
    """Each core/v1 name → the module of its part."""


def split_core(models: ModelSet, core: str) -> CoreParts:
    """`models` with the declarations of module `core` written into part
    modules beside it (`opgen.api.k8s._core_v1_pod_spec`, ...)."""
    declarations: dict[str, _Decl] = {**models.models, **models.aliases}
    members = {key for key, decl in declarations.items() if decl.module == core}
    roots = _roots(declarations, members)
    reached = {root: _closure(root, declarations) & members for root in roots}
    signatures = {
        key: frozenset(root for root in roots if key in reached[root])
        for key in members
    }
    groups: dict[frozenset[str], list[str]] = {}
    for key in sorted(members):
        groups.setdefault(signatures[key], []).append(key)
    package, _, leaf = core.rpartition(".")
    module_of: dict[str, str] = {}
    for keys in groups.values():
        part = f"{package}._{leaf}_{_part_name(keys, declarations)}"
        if part in module_of.values():
            raise SchemaError(f"two parts of {core} would both be {part}")
        module_of.update(dict.fromkeys(keys, part))
    _check_acyclic(members, declarations, signatures)
    moved = {
        key: (
            dataclasses.replace(decl, module=module_of[key]) if key in members else decl
        )
        for key, decl in declarations.items()
    }
    return CoreParts(
        models=ModelSet(
            models={k: d for k, d in moved.items() if isinstance(d, ModelDecl)},
            aliases={k: d for k, d in moved.items() if isinstance(d, AliasDecl)},
        ),
        homes={declarations[key].name: module_of[key] for key in sorted(members)},
    )


def _references(decl: _Decl) -> Iterator[str]:
    nodes = (
        [f.node for f in decl.fields] if isinstance(decl, ModelDecl) else [decl.node]
    )
    for node in nodes:
        for inner in walk(node):
            if isinstance(inner.shape, ModelRef):
                yield inner.shape.key


def _roots(declarations: dict[str, _Decl], members: set[str]) -> set[str]:
    """The kinds of the module and its declarations other modules refer to."""
    kinds = {key for key in members if _is_kind(declarations[key])}
    referenced = {
        key
        for decl in declarations.values()
        if decl.key not in members
        for key in _references(decl)
        if key in members
    }
    return kinds | referenced


def _is_kind(decl: _Decl) -> bool:
    return isinstance(decl, ModelDecl) and (
        decl.builtin is not None or decl.resource is not None
    )


def _closure(root: str, declarations: dict[str, _Decl]) -> set[str]:
    seen: set[str] = set()
    pending = [root]
    while pending:
        key = pending.pop()
        if key not in seen:
            seen.add(key)
            pending.extend(_references(declarations[key]))
    return seen


def _part_name(keys: list[str], declarations: dict[str, _Decl]) -> str:
    """The part after its principal type: the one class no other of the part
    refers to (`pod_spec`); several such, the words all their names end with,
    in the plural (`volume_sources`), else the first of them by name."""
    inside = set(keys)
    referred = {
        key
        for other in keys
        for key in _references(declarations[other])
        if key in inside and key != other
    }
    tops = sorted(
        declarations[key].name for key in keys if key not in referred
    ) or sorted(declarations[key].name for key in keys)
    words = [split_words(name) for name in tops]
    if len(tops) > 1:
        common = 0
        while (
            common < min(map(len, words))
            and len({tuple(w[len(w) - common - 1 :]) for w in words}) == 1
        ):
            common += 1
        if common:
            suffix = words[0][len(words[0]) - common :]
            return "_".join([*(w.lower() for w in suffix[:-1]), pluralize(suffix[-1])])
    return "_".join(word.lower() for word in words[0])


def _check_acyclic(
    members: set[str],
    declarations: dict[str, _Decl],
    signatures: dict[str, frozenset[str]],
) -> None:
    """Every reference between parts goes to a strictly larger signature, so
    the parts import each other without a cycle."""
    for key in sorted(members):
        for target in _references(declarations[key]):
            if target not in members or signatures[target] == signatures[key]:
                continue
            if not signatures[key] < signatures[target]:
                raise SchemaError(
                    f"{declarations[key].name} refers to {declarations[target].name}, "
                    "whose part does not come after its own",
                    hint="core/v1's parts would import each other in a cycle",
                )
