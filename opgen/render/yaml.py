"""YAML as controller-gen writes it (go-yaml v2 through sigs.k8s.io/yaml).

Keys sorted at every level, two-space indentation, list dashes level with their
parent key, plain scalars folded at 80 columns, multi-line strings as `|-`
blocks, strings that would read as another type double-quoted (`"true"`,
`"124"`, `""`), other strings that cannot be plain single-quoted (`'*'`),
integral floats as integers and other floats in Go's shortest form. No anchors
or aliases, even when the same object appears twice (the schema stage shares
nodes). Each document starts with `---`. Round-tripping controller-tools' own
golden CRDs through `dump_documents` reproduces them byte for byte.
"""

from __future__ import annotations

import decimal
import io
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import yaml

__all__ = ["dump_document", "dump_documents", "go_float"]


_RESOLVED: dict[tuple[str, Any], str] = {}
"""The tag each scalar resolves to, by (value, implicit): the emitter asks twice
for every scalar it writes, and most are the same few hundred strings."""


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """SafeDumper with go-yaml's scalar choices and no aliases."""

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        # A scalar's tag depends on its value alone: the dumper has no path
        # resolvers, and its implicit resolvers are fixed once this module loads.
        if kind is not yaml.ScalarNode:
            return super().resolve(kind, value, implicit)
        key = (value, implicit)
        tag = _RESOLVED.get(key)
        if tag is None:
            tag = _RESOLVED[key] = super().resolve(kind, value, implicit)
        return tag


# go-yaml (YAML 1.1) also reads y/n as booleans; quote them like it does.
_Dumper.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:y|Y|n|N)$"), list("yYnN")
)


def go_float(value: float) -> str:
    """Format a float like Go's `strconv.FormatFloat(v, 'g', -1, 64)` (what go-yaml writes)."""
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    if value == 0:
        return "0"
    _, digit_tuple, exponent = decimal.Decimal(repr(value)).normalize().as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(str(d) for d in digit_tuple)
    point = len(digits) + exponent  # value = 0.<digits> * 10**point
    sign = "-" if value < 0 else ""
    if point - 1 < -4 or point - 1 >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        power = point - 1
        return f"{sign}{mantissa}e{'+' if power >= 0 else '-'}{abs(power):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return f"{sign}{digits}{'0' * (point - len(digits))}"
    return f"{sign}{digits[:point]}.{digits[point:]}"


_STR_TAG = "tag:yaml.org,2002:str"
# PyYAML reads "!", "&", "*" and "=" as special tags; go-yaml reads them as strings.
_PLAIN_TAGS = frozenset({_STR_TAG, "tag:yaml.org,2002:yaml", "tag:yaml.org,2002:value"})


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value:
        return dumper.represent_scalar(_STR_TAG, value, style="|")
    tag = dumper.resolve(yaml.ScalarNode, value, (True, False))  # type: ignore[no-untyped-call]
    if tag not in _PLAIN_TAGS:
        # go-yaml double-quotes strings that would read as another type ("", "true", "124")
        return dumper.represent_scalar(_STR_TAG, value, style='"')
    return dumper.represent_scalar(_STR_TAG, value)


def _represent_float(dumper: yaml.SafeDumper, value: float) -> yaml.ScalarNode:
    if math.isfinite(value) and value.is_integer():
        return dumper.represent_int(int(value))
    text = go_float(value)
    if "." not in text and text[-3:] not in ("inf", "nan"):
        # Go writes 1e-05 plainly; PyYAML would add "!!float" because YAML 1.1
        # floats need a dot. Go's YAML reader (and Kubernetes) reads it as a number.
        return yaml.ScalarNode(_STR_TAG, text)
    return dumper.represent_scalar("tag:yaml.org,2002:float", text)


def _represent_mapping(
    dumper: yaml.SafeDumper, value: Mapping[Any, Any]
) -> yaml.MappingNode:
    return dumper.represent_mapping("tag:yaml.org,2002:map", sorted(value.items()))


_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(float, _represent_float)
_Dumper.add_representer(dict, _represent_mapping)
_Dumper.add_representer(tuple, yaml.SafeDumper.represent_list)


_DUMP_OPTIONS: dict[str, Any] = {
    "default_flow_style": False,
    "allow_unicode": True,
    "width": 80,
    "indent": 2,
    "sort_keys": True,
}
_TAGS = {
    bool: "tag:yaml.org,2002:bool",
    int: "tag:yaml.org,2002:int",
    type(None): "tag:yaml.org,2002:null",
}


_STYLES: dict[str, str | None] = {}
"""The style each string is written in (None: plain), as `_represent_str` decides."""


class _Nodes:
    """The node tree PyYAML's representer would build for a document of plain data —
    dicts, lists, tuples, str, bool, int, float, None — built without its generic
    dispatch and alias bookkeeping (most of a dump's time); any other value goes
    through the representer. The C emitter then writes the same bytes."""

    def __init__(self, dumper: Any) -> None:
        self._dumper = dumper

    def node(self, value: Any) -> yaml.Node:
        kind = type(value)
        if kind is str:
            return self._string(value)
        if kind is dict:
            return yaml.MappingNode(
                "tag:yaml.org,2002:map",
                [(self.node(k), self.node(v)) for k, v in sorted(value.items())],
                flow_style=False,
            )
        if kind is list or kind is tuple:
            return yaml.SequenceNode(
                "tag:yaml.org,2002:seq", [self.node(v) for v in value], flow_style=False
            )
        if kind is bool:
            return yaml.ScalarNode(_TAGS[bool], "true" if value else "false")
        if kind is int:
            return yaml.ScalarNode(_TAGS[int], str(value))
        if value is None:
            return yaml.ScalarNode(_TAGS[type(None)], "null")
        if kind is float:
            return _represent_float(self._dumper, value)
        node: yaml.Node = self._dumper.represent_data(value)
        return node

    def _string(self, value: str) -> yaml.ScalarNode:
        # A fresh node each time (a shared one would become an alias), the style
        # decided once per distinct string (every dumper decides alike).
        try:
            style = _STYLES[value]
        except KeyError:
            style = _STYLES[value] = _represent_str(self._dumper, value).style
        return yaml.ScalarNode(_STR_TAG, value, style=style)


def dump_document(document: Mapping[str, Any]) -> str:
    """One YAML document (without the `---` line)."""
    stream = io.StringIO()
    dumper = _Dumper(stream, **_DUMP_OPTIONS)
    try:
        dumper.open()
        dumper.serialize(_Nodes(dumper).node(dict(document)))
        dumper.close()
    finally:
        dumper.dispose()
    return stream.getvalue()


def dump_documents(documents: Sequence[Mapping[str, Any]]) -> str:
    """Several documents, each introduced by a `---` line, as controller-gen writes them."""
    return "".join(f"---\n{dump_document(document)}" for document in documents)
