"""Type declarations of Go API packages (`k8s.io/api/core/v1`, ...), read from source.

The API server's OpenAPI is the source of `opgen.api.k8s`, but it loses a few
facts that controller-gen reads from the Go declarations of the same types:
- which `default`s are `+default=` markers (controller-gen writes them) and
  which are the zero values openapi-gen adds to non-pointer fields, or
  `+default=ref(...)` (controller-gen writes neither);
- embedded structs (`json:",inline"`), whose `+structType=atomic` controller-gen
  merges into the embedding type;
- the documentation of named scalar types (`type Capability string`), which
  controller-gen shows on list items and map values of that type.

`parse_go_types(source)` reads the declarations of one gofmt-formatted file:
struct types with their fields (json name, Go type, doc, markers) and named
non-struct types with their docs. It is a reader for API type files, not a Go
parser: anything else in the file is skipped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "GoDefault",
    "GoField",
    "GoType",
    "doc_text",
    "element_type",
    "go_default",
    "go_required",
    "go_validations",
    "inner_type",
    "parse_go_types",
]

_STRUCT = re.compile(r"^type (\w+) struct \{$")
_EMPTY_STRUCT = re.compile(r"^type (\w+) struct ?\{\}$")
_NAMED = re.compile(r"^type (\w+) ([\w.\[\]*]+)$")
_FIELD = re.compile(r"^\t(\w+)\s+([^\s`]+)\s*(?:`(.*)`)?$")
_EMBEDDED = re.compile(r"^\t(\*?[\w.]+)\s*(?:`(.*)`)?$")
_JSON_TAG = re.compile(r'json:"([^"]*)"')
_IMPORT = re.compile(r'^\s*(?:import\s+)?(\w+\s+)?"([^"]+)"$')


@dataclass(frozen=True)
class GoField:
    """One field of a Go struct."""

    name: str
    """The Go name (the type name for an embedded field)."""
    json_name: str
    """The name on the wire ("" for an inline embed)."""
    type: str
    """The Go type as written: `*LocalObjectReference`, `[]Capability`, ..."""
    inline: bool = False
    omitempty: bool = False
    """`omitempty` or `omitzero`: optional unless a marker says otherwise."""
    doc: tuple[str, ...] = ()
    markers: tuple[str, ...] = ()

    def marker(self, name: str) -> str | None:
        """The value of `+name=value` (the last one written), or None."""
        found = None
        for marker in self.markers:
            if marker.startswith(f"+{name}="):
                found = marker[len(name) + 2 :]
        return found


@dataclass(frozen=True)
class GoType:
    """A struct type (`fields`) or a named type over another (`underlying`)."""

    name: str
    doc: tuple[str, ...] = ()
    markers: tuple[str, ...] = ()
    fields: tuple[GoField, ...] | None = None
    underlying: str | None = None
    imports: tuple[tuple[str, str], ...] = ()
    """The imports of the declaring file, (name, package path), to resolve
    qualified types like `metav1.TypeMeta`."""

    def package_of(self, qualifier: str) -> str | None:
        return next((path for name, path in self.imports if name == qualifier), None)

    def field(self, json_name: str) -> GoField | None:
        return next((f for f in self.fields or () if f.json_name == json_name), None)


@dataclass(frozen=True)
class GoDefault:
    """A field's default as controller-gen sees it: `+default=` (strict JSON) and
    `+kubebuilder:default=` (the latter wins); `ref(...)` values are skipped."""

    value: Any


def _comment_text(line: str) -> str:
    text = line.strip().removeprefix("//")
    return text[1:] if text.startswith(" ") else text


def _split_comment(lines: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    doc: list[str] = []
    markers: list[str] = []
    for line in lines:
        text = _comment_text(line)
        if text.strip().startswith("+"):
            markers.append(text.strip())
        else:
            doc.append(text)
    return tuple(doc), tuple(markers)


def _field(line: str, comment: list[str]) -> GoField | None:
    doc, markers = _split_comment(comment)
    match = _FIELD.match(line)
    if match is not None:
        name, go_type, tags = match[1], match[2], match[3] or ""
        tag = _JSON_TAG.search(tags)
        if tag is None and not name[0].isupper():
            return None  # unexported and not serialised
        json_name, _, options = (tag[1] if tag else name).partition(",")
        if json_name == "-":
            return None
        return GoField(
            name=name,
            json_name=json_name,
            type=go_type,
            inline="inline" in options.split(","),
            omitempty=bool({"omitempty", "omitzero"} & set(options.split(","))),
            doc=doc,
            markers=markers,
        )
    embedded = _EMBEDDED.match(line)
    if embedded is not None:
        go_type = embedded[1]
        tag = _JSON_TAG.search(embedded[2] or "")
        json_name, _, options = (tag[1] if tag else "").partition(",")
        if json_name == "-":
            return None
        return GoField(
            name=go_type.lstrip("*").rsplit(".", 1)[-1],
            json_name=json_name,
            type=go_type,
            inline=not json_name or "inline" in options.split(","),
            omitempty="omitempty" in options.split(","),
            doc=doc,
            markers=markers,
        )
    return None


def parse_go_types(source: str) -> dict[str, GoType]:
    """The struct and named types declared at the top level of one Go file."""
    types: dict[str, GoType] = {}
    comment: list[str] = []
    lines = source.splitlines()
    imports = _imports(lines)
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if line.startswith("//"):
            comment.append(line)
            continue
        struct = _STRUCT.match(line)
        if struct is not None:
            fields: list[GoField] = []
            field_comment: list[str] = []
            while index < len(lines) and lines[index] != "}":
                body = lines[index]
                index += 1
                if body.strip().startswith("//"):
                    field_comment.append(body)
                    continue
                if not body.strip():
                    field_comment = []
                    continue
                parsed = _field(body, field_comment)
                if parsed is not None:
                    fields.append(parsed)
                field_comment = []
            index += 1
            doc, markers = _split_comment(comment)
            types[struct[1]] = GoType(
                struct[1],
                doc=doc,
                markers=markers,
                fields=tuple(fields),
                imports=imports,
            )
            comment = []
            continue
        empty = _EMPTY_STRUCT.match(line)
        if empty is not None:
            doc, markers = _split_comment(comment)
            types[empty[1]] = GoType(
                empty[1], doc=doc, markers=markers, fields=(), imports=imports
            )
            comment = []
            continue
        named = _NAMED.match(line)
        if named is not None:
            doc, markers = _split_comment(comment)
            types[named[1]] = GoType(
                named[1],
                doc=doc,
                markers=markers,
                underlying=named[2],
                imports=imports,
            )
        comment = []
    return types


def _imports(lines: list[str]) -> tuple[tuple[str, str], ...]:
    found: list[tuple[str, str]] = []
    in_block = False
    for line in lines:
        if line.startswith("import ("):
            in_block = True
            continue
        if in_block and line.startswith(")"):
            break
        if in_block or line.startswith("import "):
            match = _IMPORT.match(line)
            if match is not None:
                path = match[2]
                name = (match[1] or "").strip() or path.rsplit("/", 1)[-1]
                found.append((name, path))
            if not in_block:
                continue
    return tuple(found)


def inner_type(go_type: str) -> str:
    """The Go type one level in: a slice's items, a map's values (pointers
    stripped), any other type as it is: `map[string][]string` → `[]string`."""
    current = go_type.lstrip("*")
    if current.startswith("[]"):
        return current[2:]
    if current.startswith("map["):
        depth = 0
        for position, char in enumerate(current):
            if char == "[":
                depth += 1
            elif char == "]":
                depth -= 1
                if depth == 0:
                    return current[position + 1 :]
    return current


def element_type(go_type: str) -> str:
    """The named type at the bottom of a pointer, slice or map type:
    `*[]Capability` → `Capability`, `map[string]resource.Quantity` → `resource.Quantity`.
    """
    current = go_type
    while (inner := inner_type(current)) != current:
        current = inner
    return current


def doc_text(lines: Iterable[str]) -> str | None:
    """A Go doc comment as a description, the way the API server's OpenAPI
    writes it: lines of a paragraph joined by spaces, paragraphs by a blank
    line; `TODO` lines dropped, everything after `---` dropped."""
    paragraphs: list[list[str]] = [[]]
    for raw in lines:
        line = raw.strip()
        if line == "---":
            break
        if line.startswith("TODO"):
            continue
        if not line:
            if paragraphs[-1]:
                paragraphs.append([])
            continue
        paragraphs[-1].append(line)
    text = "\n\n".join(" ".join(p) for p in paragraphs if p)
    return text or None


def go_default(field: GoField) -> GoDefault | None:
    """The default controller-gen writes for `field`, if any."""
    for name in ("kubebuilder:default", "default"):
        value = field.marker(name)
        if value is None:
            continue
        if value.startswith("ref("):
            return None
        try:
            return GoDefault(json.loads(value))
        except ValueError:
            return GoDefault(value)  # marker syntax: a bare word is a string
    return None


_VALIDATION = re.compile(r"^\+kubebuilder:validation:(\w+)=(.*)$")
_VALIDATION_KEYWORDS = {
    "MaxLength": "maxLength",
    "MinLength": "minLength",
    "Pattern": "pattern",
    "Maximum": "maximum",
    "Minimum": "minimum",
    "MaxItems": "maxItems",
    "MinItems": "minItems",
    "Format": "format",
    "Enum": "enum",
}


def go_required(field: GoField) -> bool:
    """Whether controller-gen makes the field required: its markers, by
    precedence, else not `omitempty`/`omitzero`."""
    markers = set(field.markers)
    for names, required in (
        (("+kubebuilder:validation:Optional",), False),
        (("+kubebuilder:validation:Required",), True),
        (("+optional", "+k8s:optional"), False),
        (("+required", "+k8s:required"), True),
    ):
        if markers & set(names):
            return required
    return not field.omitempty


def go_validations(field: GoField) -> dict[str, Any]:
    """The schema keywords of the field's `+kubebuilder:validation:X=value` markers."""
    found: dict[str, Any] = {}
    for marker in field.markers:
        match = _VALIDATION.match(marker)
        if match is None:
            continue
        name, text = match[1], match[2]
        keyword = _VALIDATION_KEYWORDS.get(name)
        if keyword is None:
            raise ValueError(f"{field.name}: unsupported marker {marker}")
        found[keyword] = _marker_value(text, keyword)
    return found


def _marker_value(text: str, keyword: str) -> Any:
    if text.startswith("`") and text.endswith("`"):
        return text[1:-1]
    if keyword == "enum":
        items = text.strip("{}").split(";" if ";" in text else ",")
        return [_marker_value(item.strip(), "") for item in items]
    try:
        return json.loads(text)
    except ValueError:
        return text
