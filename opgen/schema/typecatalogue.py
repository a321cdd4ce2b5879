"""What the import's type matcher knows of opgen's types, built once and cached.

`opgen.schema.catalogue.TypeMatcher` compares a CRD's nodes with the schemas
opgen writes for every `op.k8s` type (and `op.Condition`, ...). Building those
schemas means importing the 450 Pydantic models of `op.k8s` and generating
their schemas four times (with and without descriptions, each with nested
ObjectMeta in both of controller-gen's forms): seconds, on every import of a
CRD, for the same answer each time. So `type_catalogue()` builds the data
once and keeps it in the user's cache directory
(`$XDG_CACHE_HOME/opgen/import/`, or `~/.cache/opgen/import/`), in a file
named by a fingerprint of everything the schemas depend on: the Python
version, Pydantic's version and the source of `opgen.api`, `opgen.engine`
and `opgen.schema`. A file written by another version of any of them is
never read (and is deleted when the new one is written); a file that cannot
be read is rebuilt; a cache directory that cannot be written only costs the
time. The data is plain (`marshal`, which keeps the sharing of the schemas'
common subtrees): no code is loaded from the cache.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import marshal
import os
import sys
import tempfile
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opgen.cachedir import CACHE_ENV, cache_dir
from opgen.engine.naming import to_camel
from opgen.openapi.kubernetes import KNOWN
from opgen.openapi.parse import SchemaNode

__all__ = ["CACHE_ENV", "TypeCatalogue", "cache_file", "type_catalogue"]

_VALUE_TYPES = frozenset(KNOWN.values()) - {"ObjectMeta"}
_OUTSIDE_K8S_API = frozenset({"apiextensions_v1", "apiregistration_v1"})
"""op.k8s modules whose Go types are not in k8s.io/api (apiextensions-apiserver,
kube-aggregator): CRDs do not embed them, and JSONSchemaProps is recursive."""
_SOURCES = ("api", "engine", "schema")
_FORMAT = 2
"""Bumped when the layout of the cached data or its keys change (2: core/v1's
classes keyed by their part modules, `opgen.api.k8s._core_v1_pod_spec.PodSpec`)."""


@dataclass(frozen=True)
class TypeCatalogue:
    """Every candidate type: its name after `op.`, its fields, its schemas."""

    names: tuple[str, ...]
    """`k8s.PodTemplateSpec`, `Condition`, ... (by position)."""
    fields: tuple[frozenset[str], ...]
    """Each candidate's wire names."""
    classes: tuple[str, ...]
    """Each candidate's class, as a key of `nested`."""
    nested: Mapping[str, Mapping[str, str | None]]
    """Class → wire name → the class the field holds (in a list or map, or
    optional), or None for a field of another type."""
    schemas: Mapping[tuple[bool, bool], tuple[SchemaNode, ...]]
    """(embedded ObjectMeta, descriptions) → each candidate's schema, as
    opgen writes it for a field of the type."""


@functools.cache
def type_catalogue() -> TypeCatalogue:
    """The catalogue: from the cache when it holds this version's, else built
    (and cached)."""
    path = cache_file(os.environ)
    data = _read(path)
    if data is None:
        data = _build()
        _write(path, data)
    return TypeCatalogue(
        names=tuple(data["names"]),
        fields=tuple(frozenset(f) for f in data["fields"]),
        classes=tuple(data["classes"]),
        nested=data["nested"],
        schemas={
            (embedded, described): tuple(data["schemas"][f"{embedded}-{described}"])
            for embedded in (False, True)
            for described in (False, True)
        },
    )


def cache_file(env: Mapping[str, str]) -> Path:
    """Where this version's catalogue is kept."""
    return cache_dir(env) / "import" / f"catalogue-{_fingerprint()}.marshal"


@functools.cache
def _fingerprint() -> str:
    import pydantic

    import opgen

    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{_FORMAT} {sys.version} {pydantic.VERSION}".encode())
    root = Path(opgen.__file__).parent
    for package in _SOURCES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        return None
    return data


def _write(path: Path, data: dict[str, Any]) -> None:
    """Atomically, replacing other versions' files; failures only cost time."""
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(marshal.dumps(data))
            os.replace(temporary, path)
        except OSError:
            Path(temporary).unlink(missing_ok=True)
            raise
        for stale in path.parent.glob("catalogue-*.marshal"):
            if stale != path:
                stale.unlink(missing_ok=True)


def _build() -> dict[str, Any]:
    import opgen.api as op
    import opgen.api.k8s as k8s

    models: list[type[Any]] = []
    names: list[str] = []
    for name in sorted(k8s.__all__):
        value = getattr(k8s, name)
        if (
            not inspect.isclass(value)
            or not issubclass(value, op.Model)
            or name == "ObjectMeta"
            or value.__module__.rsplit(".", 1)[-1] in _OUTSIDE_K8S_API
        ):
            continue
        models.append(value)
        names.append(name if name in _VALUE_TYPES else f"k8s.{name}")
    nested: dict[str, dict[str, str | None]] = {}
    pending = list(models)
    while pending:
        model = pending.pop()
        if _key(model) in nested:
            continue
        fields = _fields(model)
        nested[_key(model)] = {
            wire: _key(held) if held else None for wire, held in fields.items()
        }
        pending.extend(held for held in fields.values() if held is not None)
    schemas = {
        f"{embedded}-{described}": _schemas(models, embedded, described)
        for embedded in (False, True)
        for described in (False, True)
    }
    return {
        "format": _FORMAT,
        "names": names,
        "fields": [sorted(nested[_key(model)]) for model in models],
        "classes": [_key(model) for model in models],
        "nested": nested,
        "schemas": schemas,
    }


def _key(model: type[Any]) -> str:
    return f"{model.__module__}.{model.__qualname__}"


def _schemas(
    models: list[type[Any]], embedded_object_meta: bool, descriptions: bool
) -> list[SchemaNode]:
    """Every candidate's schema, built in one pass: a model with a field of each
    type shares the flattening of the types they have in common (PodSpec in
    PodTemplateSpec, JobSpec, DeploymentSpec, ...), many times cheaper than one
    build per type."""
    from pydantic import create_model

    import opgen.api as op
    from opgen.schema.build import model_schema
    from opgen.schema.options import CrdOptions

    fields: dict[str, Any] = {
        f"type{position}": (model | None, None) for position, model in enumerate(models)
    }
    every = create_model("EveryKubernetesType", __base__=op.Model, **fields)
    options = CrdOptions(
        max_description_length=None if descriptions else 0,
        embedded_object_meta=embedded_object_meta,
    )
    properties = model_schema(every, options)["properties"]
    return [properties[f"type{position}"] for position in range(len(models))]


def _fields(model: Any) -> dict[str, type[Any] | None]:
    """Wire name → the model class the field holds (in a list or map, or
    optional), or None for a field of another type."""
    import opgen.api as op

    found: dict[str, type[Any] | None] = {}
    for attribute, info in model.model_fields.items():
        held = None
        for candidate in _classes_in(info.annotation):
            if inspect.isclass(candidate) and issubclass(candidate, op.Model):
                held = candidate
        found[info.alias or to_camel(attribute)] = held
    return found


def _classes_in(annotation: Any) -> list[Any]:
    if hasattr(annotation, "__value__"):  # TypeAliasType
        return _classes_in(annotation.__value__)
    arguments = typing.get_args(annotation)
    if not arguments:
        return [annotation]
    if typing.get_origin(annotation) is typing.Annotated:
        return _classes_in(arguments[0])
    return [found for argument in arguments for found in _classes_in(argument)]
