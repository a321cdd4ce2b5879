"""Where Pydantic and the API server may legitimately disagree, per CRD.

The property test (`test_pydantic_vs_server.py`) compares verdicts on the
*supported subset*: everything the generator draws, minus what is listed
here. Each entry names the fields or constraints it keeps out, and why; the
general rules of the subset are in docs/testing.md.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from typing import Any

__all__ = ["OUTSIDE", "Outside", "outside_for", "python_sets"]


@dataclass(frozen=True)
class Outside:
    reason: str
    omit: frozenset[str] = frozenset()
    """Optional fields never drawn."""
    always: frozenset[str] = frozenset()
    """Optional fields always drawn."""
    keep: frozenset[str] = frozenset()
    """`path: constraint` pairs never broken (`path: null`: never null)."""
    fixed: dict[str, Any] = field(default_factory=dict)
    """Fields always given this value."""


OUTSIDE: dict[str, Outside] = {
    "typecases.cases.opgen.dev": Outside(
        "op.Type replaces the schema of the Python type (a bool that travels as a "
        "string needs a custom serialiser the case does not have)",
        omit=frozenset({"spec.enabled", "spec.stamp"}),
    ),
    "schemalesscases.cases.opgen.dev": Outside(
        "op.Schemaless() describes nothing of the Python type: the server keeps any "
        "object as a tree's children and any string as the payload, Python wants "
        "TreeNodes and base64",
        omit=frozenset({"spec.payload", "spec.tree.children"}),
    ),
    "optionalcases.cases.opgen.dev": Outside(
        "op.Optional() makes the CRD laxer than the Python model on purpose",
        always=frozenset({"spec.image"}),
    ),
    "cronjobs.testdata.kubebuilder.io": Outside(
        "controller-tools' test API: a type-level PreserveUnknownFields hides a "
        "Python-required field from the CRD, op.Optional() makes three fields "
        "optional only for the server, op.Type('string') puts a bool on the wire "
        "as a string, Schemaless() over op.Bytes takes any string on the server, and "
        "a required nullable field holding None is left out of opgen's "
        "exclude_none wire form",
        fixed={
            "spec.unprunedFomType": {"concreteField": "x"},
            "spec.unprunedFomTypeAndField": {"concreteField": "x"},
        },
        keep=frozenset({"spec.canBeNull: null"}),
        always=frozenset(
            {
                "spec.explicitlyOptionalKubebuilder",
                "spec.explicitlyOptionalKubernetes",
                "spec.explicitlyOptionalK8s",
            }
        ),
        omit=frozenset({"spec.noReallySuspend", "spec.schemaless"}),
    ),
}


def python_sets(model: type, prefix: str = "") -> set[str]:
    """Wire paths of the `set[...]` fields of a model, at any depth."""
    found: set[str] = set()
    for name, info in getattr(model, "model_fields", {}).items():
        path = f"{prefix}{info.alias or name}"
        for inner in _types_in(info.annotation):
            if typing.get_origin(inner) in (set, frozenset) or inner in (
                set,
                frozenset,
            ):
                found.add(path)
            elif isinstance(inner, type) and hasattr(inner, "model_fields"):
                found |= python_sets(inner, f"{path}.")
    return found


def _types_in(annotation: Any) -> list[Any]:
    if hasattr(annotation, "__value__"):  # TypeAliasType
        return _types_in(annotation.__value__)
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _types_in(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return [t for arg in typing.get_args(annotation) for t in _types_in(arg)]
    return [annotation]


def outside_for(name: str, model: type) -> Outside:
    """The CRD's entry, plus: duplicates are never drawn for Python sets.

    A `set[...]` field silently drops duplicate items the server refuses.
    """
    entry = OUTSIDE.get(name, Outside(""))
    sets = frozenset(f"{path}: duplicate" for path in python_sets(model))
    return dataclasses.replace(entry, keep=entry.keep | sets)
