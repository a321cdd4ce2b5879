"""Readable class names for the models of inline schemas, and one class per shape.

`read_schema` keys the models of a CRD by their path (`Certificate.spec`,
`Certificate.spec.keystores.jks`, `ServiceMonitor.spec.endpoints[*]`).
`name_models(models)` gives each a class name a person would write, the way
controller-gen's Go types are usually named:

- the root of a kind is the kind (`Certificate`), its direct children are
  the kind and the field (`CertificateSpec`, `CertificateStatus`);
- deeper models are named after their field (`keystores.jks` → `Jks`), list
  items and map values after the singular of it (`endpoints[*]` →
  `Endpoint`, `podIPs[*]` → `PodIP`), or after the Go type their
  description begins with, as controller-gen's item descriptions do
  (`RelabelConfig allows ...` → `RelabelConfig`);
- a name already taken in the module (by a kind, or by a model met earlier,
  shallower paths first) is prefixed with the parent's class name
  (`HeadGroupSpec.template` is `Template`, `WorkerGroupSpec.template` then
  `WorkerGroupSpecTemplate`), then with the kind, then numbered.

Models with the same content (fields, markers and descriptions, all the way
down) become one class, as they were one Go type: the name of the shallowest
path wins. Roots of kinds are never merged.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import keyword
import re
from collections.abc import Iterable
from typing import Any

from opgen.model.openapi import (
    ListOf,
    MapOf,
    ModelDecl,
    ModelRef,
    ModelSet,
    Node,
)
from opgen.openapi.parse import wire_words

__all__ = ["class_name", "name_models", "singular"]

_RESERVED = frozenset(
    {"op", "Annotated", "Literal", "Field", "TypeAliasType", "annotations"}
)
"""Names the rendered module imports (`opgen.render.models`)."""
_GO_TYPE_NAME = re.compile(r"^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+$")
_SEGMENT = re.compile(r"\.([^.\[{]+)|(\[\*\])|(\{\*\})")


def class_name(wire_name: str) -> str:
    """`tlsConfig` → `TlsConfig`, `podIPs` → `PodIPs`, `x-ray` → `XRay`: the
    words of a JSON name, each capitalised, acronyms kept."""
    words = wire_words(wire_name) or ["Field"]
    name = "".join(word[0].upper() + word[1:] for word in words)
    return f"Field{name}" if name[0].isdigit() else name


def singular(name: str) -> str:
    """The singular of the last word of a CamelCase name: `Endpoints` →
    `Endpoint`, `Policies` → `Policy`, `Statuses` → `Status`, `PodIPs` → `PodIP`;
    a name that does not look plural stays as it is."""
    lower = name.lower()
    if len(name) > 2 and name[-1] == "s" and name[-2].isupper():
        return name[:-1]  # an acronym's plural: URIs, IPs
    if lower.endswith(("ss", "us", "is")) or not lower.endswith("s"):
        return name
    if lower.endswith("ies") and len(name) > 3:
        return name[:-3] + ("Y" if name[-3].isupper() else "y")
    if lower.endswith(("sses", "shes", "ches", "xes", "zzes", "uses")):
        return name[:-2]
    return name[:-1]


def name_models(models: ModelSet, reserved: Iterable[str] = ()) -> ModelSet:
    """`models` (one module, keyed by path) with readable class names, models of
    the same content merged into one."""
    merged = _merge_same_content(models)
    taken = set(_RESERVED) | set(reserved)
    kinds = {key: m.resource.names.kind for key, m in merged.items() if m.resource}
    taken |= set(kinds.values())
    names: dict[str, str] = dict(kinds)
    for key in sorted(merged, key=_path_order):
        if key in names:
            continue
        names[key] = _free_name(key, merged[key], names, kinds, taken)
        taken.add(names[key])
    renamed = {
        key: dataclasses.replace(model, name=names[key])
        for key, model in merged.items()
    }
    return ModelSet(models=renamed, aliases=dict(models.aliases))


def _segments(key: str) -> tuple[str, list[str]]:
    """`Kind.spec.ports[*]` → (`Kind`, [`.spec`, `.ports`, `[*]`])."""
    start = _SEGMENT.search(key)
    root = key if start is None else key[: start.start()]
    return root, [m.group(0) for m in _SEGMENT.finditer(key, len(root))]


def _path_order(key: str) -> tuple[int, str]:
    return len(_segments(key)[1]), key


def _parent(key: str) -> str:
    root, segments = _segments(key)
    return root + "".join(segments[:-1])


def _own_name(key: str) -> str:
    """The name a model gets from its path alone."""
    root, fields = _segments(key)
    if not fields:
        return root
    last = fields[-1]
    if last in ("[*]", "{*}"):
        container = _own_name(_parent(key)) if len(fields) > 1 else root
        if len(fields) > 1 and fields[-2] not in ("[*]", "{*}"):
            container = class_name(fields[-2][1:])
        item = singular(container)
        if item == container:
            item += "Item" if last == "[*]" else "Value"
        return item
    name = class_name(last[1:])
    return f"{root}{name}" if len(fields) == 1 else name


def _free_name(
    key: str,
    model: ModelDecl,
    names: dict[str, str],
    kinds: dict[str, str],
    taken: set[str],
) -> str:
    own = _own_name(key)
    documented = _documented_name(model)
    ancestor = _parent(key)
    while ancestor not in names and ancestor != _parent(ancestor):
        ancestor = _parent(ancestor)
    parent = names.get(ancestor, "")
    root, _ = _segments(key)
    kind = kinds.get(root, root)
    for candidate in (*documented, own, parent + own, kind + own):
        if _usable(candidate, taken):
            return candidate
    number = 2
    while not _usable(f"{parent}{own}{number}", taken):
        number += 1
    return f"{parent}{own}{number}"


def _documented_name(model: ModelDecl) -> tuple[str, ...]:
    """The Go type's name, when the model's description begins with it, as
    controller-gen's do for list items (`RelabelConfig allows dynamic
    rewriting ...`): a CamelCase word of two humps or more."""
    words = (model.description or "").split(maxsplit=1)
    first = words[0].rstrip(".,:;") if words else ""
    return (first,) if _GO_TYPE_NAME.match(first) else ()


def _usable(name: str, taken: set[str]) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name) and name not in taken


# -- one class per shape -------------------------------------------------------
def _merge_same_content(models: ModelSet) -> dict[str, ModelDecl]:
    """Models keyed as before, minus those merged into an earlier one of the same
    content, with references pointing at the survivors."""
    digests: dict[str, str] = {}

    def digest(key: str) -> str:
        found = digests.get(key)
        if found is None:
            model = models.models[key]
            if model.resource is not None:
                found = f"kind:{key}"
            else:
                found = _hash(
                    [
                        model.description,
                        _json(model.facts),
                        [
                            [f.name, f.wire_name, f.required, node_digest(f.node)]
                            for f in model.fields
                        ],
                    ]
                )
            digests[key] = found
        return found

    def node_digest(node: Node) -> str:
        shape = node.shape
        if isinstance(shape, ModelRef):
            inner: Any = ["model", digest(shape.key)]
        elif isinstance(shape, ListOf):
            inner = ["list", node_digest(shape.item)]
        elif isinstance(shape, MapOf):
            inner = ["map", node_digest(shape.value)]
        else:
            inner = repr(shape)
        return _hash([inner, node.description, _json(node.default), _json(node.facts)])

    survivor: dict[str, str] = {}
    first: dict[str, str] = {}
    for key in sorted(models.models, key=_path_order):
        survivor[key] = first.setdefault(digest(key), key)

    def repoint(node: Node) -> Node:
        shape = node.shape
        if isinstance(shape, ModelRef) and survivor[shape.key] != shape.key:
            return dataclasses.replace(node, shape=ModelRef(survivor[shape.key]))
        if isinstance(shape, ListOf):
            return dataclasses.replace(node, shape=ListOf(repoint(shape.item)))
        if isinstance(shape, MapOf):
            return dataclasses.replace(node, shape=MapOf(repoint(shape.value)))
        return node

    return {
        key: dataclasses.replace(
            model,
            fields=tuple(
                dataclasses.replace(f, node=repoint(f.node)) for f in model.fields
            ),
        )
        for key, model in models.models.items()
        if survivor[key] == key
    }


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


def _hash(parts: Any) -> str:
    return hashlib.sha256(_json(parts).encode()).hexdigest()
