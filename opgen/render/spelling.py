"""Markers as user code, from the marker registry alone.

Every registered marker names the call that makes it (`marker_name()`:
`op.MaxLength`, `op.print_column`) and, when it stands for one schema keyword,
declares that keyword (`keyword`). The reverse renderer turns a schema fact
into marker objects through those declarations (`markers_for`) and writes each
by reading its call's signature (`spell`), so a registered marker needs no
table here. The call's parameters take the marker's fields in order; `*args`
and `**kwargs` take its one tuple field, and a parameter named for one item
of a plural field its only item.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import Field, fields
from typing import Any

from opgen import api as op
from opgen.api.registry import default_registry
from opgen.engine.markers import Marker
from opgen.engine.naming import to_camel
from opgen.errors import MarkerError, SchemaError

__all__ = ["BY_KEYWORD", "constructor", "exclusive_flags", "markers_for", "spell"]

ValueText = Callable[[str, Any], str]
"""How an argument's value is written: (parameter name, value) → source."""


def _by_keyword() -> dict[str, tuple[type[Marker], ...]]:
    found: dict[str, list[type[Marker]]] = {}
    for marker in default_registry():
        written = getattr(marker, "keyword", None)
        if isinstance(written, str):
            found.setdefault(written, []).append(marker)
    return {key: tuple(markers) for key, markers in found.items()}


BY_KEYWORD = _by_keyword()
"""Schema keyword → the registered markers that stand for it."""


def constructor(marker: type[Marker]) -> Callable[..., Marker]:
    """The call user code makes the marker with: `op.<marker_name()>`."""
    made: Callable[..., Marker] = getattr(op, marker.marker_name())
    return made


def _parameters(marker: type[Marker]) -> list[inspect.Parameter]:
    return list(inspect.signature(constructor(marker)).parameters.values())


def _arguments(marker: Marker) -> list[Field[Any]]:
    """The marker's fields its call sets (not those its `__post_init__` works out)."""
    return [item for item in fields(marker) if item.init]


def spell(marker: Marker, value_text: ValueText) -> str:
    """`op.Name(arguments)`: the call that makes `marker`, leaving out what
    the call defaults. When the call has keyword-only options every argument
    is named; otherwise the required ones are positional."""
    parameters = _parameters(type(marker))
    values = [
        _field_value(marker, item.name, p.name)
        for item, p in zip(_arguments(marker), parameters, strict=True)
    ]
    named_only = any(p.kind is p.KEYWORD_ONLY for p in parameters)
    arguments: list[str] = []

    def value_text_of(name: str, value: Any) -> str:
        if isinstance(value, Marker):
            return spell(value, value_text)
        return value_text(name, value)

    for parameter, value in zip(parameters, values, strict=True):
        name = parameter.name
        if parameter.kind is parameter.VAR_POSITIONAL:
            arguments += [value_text_of(name, item) for item in value]
        elif parameter.kind is parameter.VAR_KEYWORD:
            arguments += [f"{key}={value_text_of(key, item)}" for key, item in value]
        elif parameter.default is parameter.empty and not named_only:
            arguments.append(value_text_of(name, value))
        elif not _is_default(value, parameter.default):
            arguments.append(f"{name}={value_text_of(name, _as_given(value))}")
    return f"op.{marker.marker_name()}({', '.join(arguments)})"


def _field_value(marker: Marker, field: str, parameter: str) -> Any:
    """The value a parameter gives the field in its place, a call taking one
    item of a plural field (`op.Not(schema)` for `schemas`) that item."""
    value = getattr(marker, field)
    if field == parameter + "s" and isinstance(value, tuple) and len(value) == 1:
        return value[0]
    return value


def _is_default(value: Any, default: Any) -> bool:
    if default is inspect.Parameter.empty:
        return False
    return bool(value == default or (default is None and value == ()))


def _as_given(value: Any) -> Any:
    """A field's value as the call takes it: pairs as a mapping, tuples as lists."""
    if isinstance(value, tuple):
        if value and all(isinstance(i, tuple) and len(i) == 2 for i in value):
            return dict(value)
        return list(value)
    return value


def markers_for(
    keyword: str, value: Any, facts: Mapping[str, Any], what: str, where: str
) -> list[Marker]:
    """The markers that write `keyword: value` on a node of `facts` (`what`:
    model, map or node); empty for a flag that is off."""
    candidates = [m for m in BY_KEYWORD.get(keyword, ()) if _fits(m, facts, what)]
    if len(candidates) != 1:
        raise SchemaError(
            f"{where}: no opgen marker writes {keyword!r}",
            hint="the schema uses a keyword opgen cannot write into a CRD",
        )
    (marker,) = candidates
    items = value if marker.repeatable and isinstance(value, list) else [value]
    try:
        return [made for item in items for made in _make(marker, item)]
    except (MarkerError, TypeError, ValueError) as error:
        raise SchemaError(f"{where}: {keyword}: {error}") from error


def exclusive_flags(facts: Mapping[str, Any]) -> set[str]:
    """The keywords (`exclusiveMinimum`) that only choose between the markers
    of a bound that `facts` has (`op.Minimum` or `op.ExclusiveMinimum`)."""
    return {
        flag
        for keyword in facts
        for marker in BY_KEYWORD.get(keyword, ())
        if isinstance(flag := getattr(marker, "exclusive_flag", None), str)
    }


def _fits(marker: type[Marker], facts: Mapping[str, Any], what: str) -> bool:
    flag = getattr(marker, "exclusive_flag", None)
    if isinstance(flag, str) and getattr(marker, "exclusive", False) != bool(
        facts.get(flag, False)
    ):
        return False
    stands_on = getattr(marker, "applies_to", None)
    if isinstance(stands_on, str):
        return stands_on == ("maps" if what == "map" else "models")
    return True


def _make(marker: type[Marker], value: Any) -> list[Marker]:
    make = constructor(marker)
    parameters = _parameters(marker)
    if all(p.default is not p.empty for p in parameters) and isinstance(value, bool):
        return [make()] if value else []
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return [make(*value) if isinstance(value, list) else make(value)]
    if len(parameters) > 1 and isinstance(value, dict):
        wire = {to_camel(p.name): p.name for p in parameters}
        unknown = sorted(set(value) - set(wire))
        if unknown:
            raise ValueError(f"op.{marker.marker_name()} has no argument for {unknown}")
        return [make(**{wire[key]: item for key, item in value.items()})]
    return [make(value)]
